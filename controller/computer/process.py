"""The computer's searches in a process of their own.

A pure-Python search on a thread of the daemon shares the GIL with the loop:
each time the loop wants it back it must wait for the search thread to be
scheduled and let go, which on a busy machine puts tens of milliseconds on
the way from a sensor edge to the lights. :class:`ProcessThinker` runs the
search in a child process instead (started on first use, kept for the next
searches), so the loop competes with it only for a CPU. The budget still runs
on the daemon's own clock: the loop calls :meth:`ProcessThinker.poll` and,
when the budget is spent, tells the child to finish with what it has.

A child that does not answer within :data:`ANSWER_GRACE` of that (stopped,
hung) or that dies (``kill -9``, out of memory) costs no move: it is killed,
a new one searches the same position again, and if that one fails too, the
computer thinks on a thread of the daemon at a level that costs
milliseconds (:data:`FALLBACK_LEVEL`) from then on. Each says so on the board
(:meth:`ProcessThinker.notice`) and in the log. At most one message to the
child is in flight at a time, so a child that stops reading can never fill
the pipe and block the daemon's loop.

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
import dataclasses
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from controller.computer.thinker import Answer, Choose, Job, Pick, ThreadedThinker, solver
from controller.i18n.text import Text, _t
from engine import parse_move
from engine.solver.limits import Limits
from hardware.clock import Clock

log = logging.getLogger("popref")

NO_JOB = 0
# How long past its budget a search process may take to answer before it
# counts as hung: a hurried search answers within milliseconds, but a child
# started cold on a loaded Pi first spends a second or two importing.
ANSWER_GRACE = 3.0
# The computer's level while it thinks in the daemon's own process: its search
# (a few hundred positions, milliseconds of pure Python) never holds up the loop.
FALLBACK_LEVEL = 5


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
            pick = choose(job, Limits(should_stop=stop))
            move, proven = str(pick.move), pick.proven
        except Exception as error:  # reported to the daemon, which plays on
            move, proven = f"error: {type(error).__name__}: {error}", False
        try:
            conn.send((number, move, proven))
        except (BrokenPipeError, OSError):
            return


def lowered(choose: Choose) -> Choose:
    """``choose`` at :data:`FALLBACK_LEVEL` at most (the answer keeps the job
    it was asked for, so the daemon takes it as that job's)."""

    def cheaply(job: Job, limits: Limits) -> Pick:
        return choose(dataclasses.replace(job, level=min(job.level, FALLBACK_LEVEL)), limits)

    return cheaply


class ProcessThinker:
    """Searches in a child process for at most ``budget`` seconds of ``clock``;
    a child that has not answered ``grace`` seconds after that is replaced.

    Only one search runs at a time; a newer one cancels the older.
    """

    def __init__(self, clock: Clock, budget: float, grace: float = ANSWER_GRACE) -> None:
        self.clock = clock
        self.budget = budget
        self.grace = grace
        self._context = multiprocessing.get_context("spawn")
        self._wanted = self._context.Value("q", NO_JOB, lock=False)
        self._hurry = self._context.Value("q", NO_JOB, lock=False)
        self._process: Any = None
        self._receiver: threading.Thread | None = None
        # shared with the receiver thread, under the lock
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._number = NO_JOB
        self._job: Job | None = None
        self._wake: Callable[[], None] | None = None
        self._ready: list[Answer] = []
        self._in_flight = False  # a job sent to the child and not answered yet
        self._gone = False  # the child died with a job to do
        self._sent = NO_JOB  # the job last sent to the child
        self._notice: Text | None = None  # cleared when a child answers
        # the loop's own
        self._deadline: float | None = None  # the child is told to hurry then
        self._answer_by: float | None = None  # and replaced if it has not answered by then
        self._restarted = False  # the child was replaced during this job
        self._fallback: ThreadedThinker | None = None  # thinking in the daemon, for good

    @property
    def pid(self) -> int | None:
        """The search process's id, while there is one."""
        process = self._process
        return process.pid if process is not None else None

    # -- the child ----------------------------------------------------------------

    def _ensure_child(self) -> Connection:
        with self._lock:
            conn = self._conn
        if conn is not None and self._process is not None and self._process.is_alive():
            return conn
        self._stop_child()
        ours, theirs = self._context.Pipe()
        process = self._context.Process(
            target=_serve,
            args=(theirs, self._wanted, self._hurry, os.getpid()),
            name="popref-search",
            daemon=True,
        )
        try:
            process.start()
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        with self._lock:
            self._conn, self._in_flight, self._gone = ours, False, False
        self._process = process
        self._receiver = threading.Thread(
            target=self._receive, args=(ours,), name="popref-search-answers", daemon=True
        )
        self._receiver.start()
        return ours

    def _stop_child(self) -> None:
        """End the child, whatever state it is in (SIGKILL ends a stopped
        process too); its receiver then sees the pipe close and closes it."""
        with self._lock:
            self._conn = None  # from now on its end is no news
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.join(timeout=5.0)
        receiver, self._receiver = self._receiver, None
        if receiver is not None:
            receiver.join(timeout=5.0)

    def _receive(self, conn: Connection) -> None:
        """Answers from the child, handed to the loop (with a wake-up); the
        pipe is closed here, by the one thread that reads it."""
        try:
            while True:
                try:
                    number, text, proven = conn.recv()
                except (EOFError, OSError):
                    self._child_gone(conn)
                    return
                self._answer(conn, number, text, proven)
        finally:
            with self._lock:
                conn.close()  # under the lock: the loop sends under it too

    def _answer(self, conn: Connection, number: int, text: str, proven: bool) -> None:
        with self._lock:
            if conn is not self._conn:
                return  # a replaced child
            self._in_flight = False
            job, wake = self._job, self._wake
            if number != self._number or job is None:
                # a search the daemon no longer wants; the one it wants now
                # may have waited for the child to finish this one
                with contextlib.suppress(Exception):  # a dying child: its end says so
                    self._send_locked()
                return
            self._ready.append(Answer(job, self._legal(job, text, proven)))
            self._job = None
            self._notice = None  # a child answers again: nothing to say
        if wake is not None:
            wake()

    @staticmethod
    def _legal(job: Job, text: str, proven: bool) -> Pick:
        """The child's pick, or the first legal move (proven to keep nothing)
        where its search failed."""
        if not text.startswith("error:"):
            move = parse_move(text)
            if job.game.is_legal(move):
                return Pick(move, proven)
        log.error("The computer's search failed (%s); playing the first legal move.", text)
        return Pick(job.game.legal_moves()[0])

    def _child_gone(self, conn: Connection) -> None:
        """The child died: the loop starts another (the game must not stall)."""
        with self._lock:
            if conn is not self._conn:
                return  # ended on purpose
            self._conn, self._in_flight = None, False
            self._gone = self._job is not None
            wake = self._wake if self._gone else None
        if wake is not None:
            wake()

    def _send(self) -> None:
        """Hand the job to the child (starting one if need be)."""
        try:
            self._ensure_child()
            with self._lock:
                self._send_locked()
        except Exception as error:  # no process could be started, or it died at once
            self._rescue(f"failed ({error})")

    def _send_locked(self) -> None:
        """Send the job wanted now, unless it has been sent or the child is
        still busy with the last one: it ends a cancelled job within
        milliseconds, and one message at a time keeps the pipe from filling
        up when the child stops reading. The caller holds the lock."""
        job, number, conn = self._job, self._number, self._conn
        if job is None or conn is None or self._sent == number or self._in_flight:
            return
        conn.send((number, job))
        self._in_flight, self._sent = True, number

    def _rescue(self, why: str) -> None:
        """The child failed the job (``why``): start a new one on the same
        job, and after a second failure think in the daemon from now on."""
        self._stop_child()
        with self._lock:
            job, wake = self._job, self._wake
        if job is None or wake is None:
            return
        if not self._restarted:
            self._restarted = True
            log.warning("The computer's search process %s; starting a new one.", why)
            self._notice = _t("The computer's search process stopped; a new one thinks again.")
            self._begin(job, wake)
            return
        log.error(
            "The computer's search process %s again; the computer now thinks in the daemon "
            "at level %d at most. Restart popref to give it its search process back.",
            why,
            FALLBACK_LEVEL,
        )
        self._notice = _t(
            "The computer's search process keeps failing; the computer plays at level "
            "{level} at most until popref is restarted.",
            level=FALLBACK_LEVEL,
        )
        self._fallback = ThreadedThinker(self.clock, self.budget, lowered(solver()))
        self._fallback.start(job, wake)
        with self._lock:
            self._job = None
        self._deadline = self._answer_by = None

    # -- the thinker ----------------------------------------------------------------

    def start(self, job: Job, wake: Callable[[], None]) -> None:
        self.cancel()
        if self._fallback is not None:
            self._fallback.start(job, wake)
            return
        self._restarted = False
        self._begin(job, wake)

    def _begin(self, job: Job, wake: Callable[[], None]) -> None:
        with self._lock:
            self._number += 1
            self._job, self._wake = job, wake
        self._deadline = self.clock() + job.seconds(self.budget)
        self._answer_by = self._deadline + self.grace
        self._wanted.value = self._number  # the child drops any older job
        self._send()

    def poll(self, now: float) -> None:
        """Spend the budget on the daemon's clock: past the deadline the child
        answers with what it has; past the grace after that, or when it has
        died, another takes over."""
        if self._fallback is not None:
            self._fallback.poll(now)
            return
        with self._lock:
            waiting, gone = self._job is not None, self._gone
            self._gone = False
        if not waiting:
            return
        if gone:
            self._rescue("ended")
        elif self._answer_by is not None and now >= self._answer_by:
            self._rescue(f"did not answer within {self.grace:g} s of its budget")
        elif self._deadline is not None and now >= self._deadline:
            self._hurry.value = self._number

    def next_deadline(self) -> float | None:
        if self._fallback is not None:
            return self._fallback.next_deadline()
        if self._job is None or self._deadline is None:
            return None
        # once hurried, the next thing to do is to replace a child that never answers
        return self._deadline if self._hurry.value != self._number else self._answer_by

    def notice(self) -> Text | None:
        """What the board should say about the search process, if anything."""
        return self._notice

    def cancel(self) -> None:
        if self._fallback is not None:
            self._fallback.cancel()
        with self._lock:
            self._job = None
            self._ready.clear()
        self._deadline = self._answer_by = None
        self._wanted.value = NO_JOB

    def answers(self) -> list[Answer]:
        if self._fallback is not None:
            return self._fallback.answers()
        with self._lock:
            ready, self._ready = self._ready, []
        return ready

    def close(self) -> None:
        self.cancel()
        if self._fallback is not None:
            self._fallback.close()
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                with contextlib.suppress(BrokenPipeError, OSError):
                    conn.send(None)
        process, self._process = self._process, None
        if process is not None:
            process.join(timeout=5.0)
            if process.is_alive():
                process.kill()
                process.join(timeout=5.0)
        if self._receiver is not None:
            self._receiver.join(timeout=5.0)
