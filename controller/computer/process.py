"""The computer's searches in a process of their own.

A pure-Python search on a thread of the daemon shares the GIL with the loop:
each time the loop wants it back it must wait for the search thread to be
scheduled and let go, which on a busy machine puts tens of milliseconds on
the way from a sensor edge to the lights. :class:`ProcessThinker` runs the
search in a child process instead (started on first use, kept for the next
searches), so the loop competes with it only for a CPU. The budget still runs
on the daemon's own clock: the loop calls :meth:`ProcessThinker.poll` and,
when the budget is spent, tells the child to finish with what it has.

>>> from engine import new_game
>>> game = new_game("classic")
>>> for move in "4 5 4 5 4 5".split():  # Red wins in column 4
...     game.play(move)
>>> from hardware.clock import FakeClock
>>> thinker = ProcessThinker(FakeClock(), budget=5.0)
>>> done = threading.Event()
>>> thinker.start(Job("computer", (1, 6), game, level=3, seed=1), done.set)
>>> done.wait(60.0)
True
>>> [str(answer.move) for answer in thinker.answers()]
['4']
>>> thinker.close()
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from controller.computer.thinker import Answer, Job, solver
from engine import Move, parse_move
from engine.solver.limits import Limits
from hardware.clock import Clock

log = logging.getLogger("popref")

NO_JOB = 0


def _serve(conn: Connection, wanted: Any, hurry: Any, parent: int) -> None:
    """The child: one job at a time, until the daemon closes the pipe or dies."""
    os.nice(5)  # the loop, not the search, comes first for the CPU
    choose = solver()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        number, job = message

        def stop(number: int = number) -> bool:
            # a cancelled or hurried job, or a daemon that died (kill -9)
            return wanted.value != number or hurry.value == number or os.getppid() != parent

        try:
            move = str(choose(job, Limits(should_stop=stop)))
        except Exception as error:  # reported to the daemon, which plays on
            move = f"error: {type(error).__name__}: {error}"
        try:
            conn.send((number, move))
        except (BrokenPipeError, OSError):
            return


class ProcessThinker:
    """Searches in a child process for at most ``budget`` seconds of ``clock``.

    Only one search runs at a time; a newer one cancels the older.
    """

    def __init__(self, clock: Clock, budget: float) -> None:
        self.clock = clock
        self.budget = budget
        self._context = multiprocessing.get_context("spawn")
        self._wanted = self._context.Value("q", NO_JOB, lock=False)
        self._hurry = self._context.Value("q", NO_JOB, lock=False)
        self._conn: Connection | None = None
        self._process: Any = None
        self._receiver: threading.Thread | None = None
        self._lock = threading.Lock()
        self._number = NO_JOB
        self._job: Job | None = None
        self._wake: Callable[[], None] | None = None
        self._deadline: float | None = None
        self._ready: list[Answer] = []

    # -- the child ----------------------------------------------------------------

    def _ensure_child(self) -> Connection:
        if self._conn is not None and self._process is not None and self._process.is_alive():
            return self._conn
        ours, theirs = self._context.Pipe()
        process = self._context.Process(
            target=_serve,
            args=(theirs, self._wanted, self._hurry, os.getpid()),
            name="popref-search",
            daemon=True,
        )
        process.start()
        theirs.close()
        self._conn, self._process = ours, process
        self._receiver = threading.Thread(
            target=self._receive, args=(ours,), name="popref-search-answers", daemon=True
        )
        self._receiver.start()
        return ours

    def _receive(self, conn: Connection) -> None:
        """Answers from the child, handed to the loop (with a wake-up)."""
        while True:
            try:
                number, text = conn.recv()
            except (EOFError, OSError):
                self._child_gone(conn)
                return
            self._answer(number, text)

    def _answer(self, number: int, text: str) -> None:
        with self._lock:
            job, wake = self._job, self._wake
            if number != self._number or job is None:
                return  # a search the daemon no longer wants
            move = self._legal(job, text)
            self._ready.append(Answer(job, move))
            self._job, self._deadline = None, None
        if wake is not None:
            wake()

    @staticmethod
    def _legal(job: Job, text: str) -> Move:
        if not text.startswith("error:"):
            move = parse_move(text)
            if job.game.is_legal(move):
                return move
        log.error("The computer's search failed (%s); playing the first legal move.", text)
        return job.game.legal_moves()[0]

    def _child_gone(self, conn: Connection) -> None:
        """The child died mid-search: the game must not stall."""
        with self._lock:
            if conn is not self._conn:
                return  # closed on purpose
            self._conn = None
            number = self._number if self._job is not None else None
        if number is not None:
            self._answer(number, "error: the search process ended")

    # -- the thinker ----------------------------------------------------------------

    def start(self, job: Job, wake: Callable[[], None]) -> None:
        self.cancel()
        with self._lock:
            self._number += 1
            self._job, self._wake = job, wake
            self._deadline = self.clock() + job.seconds(self.budget)
            number = self._number
        self._wanted.value = number
        conn = self._ensure_child()
        try:
            conn.send((number, job))
        except (BrokenPipeError, OSError):
            self._child_gone(conn)

    def poll(self, now: float) -> None:
        """Spend the budget on the daemon's clock: past the deadline the child
        answers with what it has."""
        deadline = self._deadline
        if deadline is not None and now >= deadline:
            self._hurry.value = self._number

    def next_deadline(self) -> float | None:
        return self._deadline

    def cancel(self) -> None:
        with self._lock:
            self._job, self._deadline = None, None
            self._ready.clear()
        self._wanted.value = NO_JOB

    def answers(self) -> list[Answer]:
        with self._lock:
            ready, self._ready = self._ready, []
        return ready

    def close(self) -> None:
        self.cancel()
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(None)
        if self._process is not None:
            self._process.join(timeout=5.0)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(timeout=5.0)
        if conn is not None:
            conn.close()  # after the child: the receiver has seen its end close
