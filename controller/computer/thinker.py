"""Searching for the computer's moves and hints without holding up the daemon.

The daemon asks for a :class:`Job` (the computer's move, or a hint for the
player to move) and keeps serving sensors, lights, the journal and the
watchdog; the answer comes back through :meth:`Thinker.answers` and a call of
the daemon's wake-up. The daemon's own is
:class:`controller.computer.process.ProcessThinker`, a search process. Here,
:class:`ThreadedThinker` searches on a worker thread (tests give it their own
``choose``) until the budget runs out on the daemon's clock, or until it is
cancelled (the game was abandoned, the slider was opened mid-thought).
:class:`InlineThinker` searches at once, on the caller's thread: the
simulator, whose time moves only when a player acts, uses it.

>>> from engine import new_game
>>> game = new_game("classic")
>>> for move in "4 5 4 5 4 5".split():  # Red wins in column 4
...     game.play(move)
>>> thinker = InlineThinker(budget=1.0)
>>> thinker.start(Job("computer", (1, 6), game, level=3, seed=1), lambda: None)
>>> [str(answer.move) for answer in thinker.answers()]
['4']
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from controller.i18n.text import Text
from controller.referee.computer_seat import MAX_LEVEL
from engine import Game, Move
from engine.solver.limits import Limits, search_seconds
from hardware.clock import Clock

log = logging.getLogger("popref")

# "ponder": full strength thinking on the other player's time (its answer is
# not used: what counts is the tables it leaves warm for the next move);
# "study": the same on the time of a person who may ask for a hint, about
# their own position (what it proves answers the hint)
Purpose = Literal["computer", "hint", "ponder", "study"]
AHEAD: frozenset[Purpose] = frozenset({"ponder", "study"})  # answers nobody plays


@dataclass(frozen=True)
class Job:
    """One search: ``game`` is the searcher's own copy; ``key`` names the
    position it was asked for, so a late answer for an old one is ignored;
    ``budget`` (seconds) replaces the thinker's own."""

    purpose: Purpose
    key: tuple[Any, ...]
    game: Game = field(compare=False)
    level: int
    seed: int
    budget: float | None = None

    def seconds(self, budget: float) -> float:
        """How long this job may search, for a thinker whose budget is ``budget``."""
        return search_seconds(budget if self.budget is None else self.budget)


@dataclass(frozen=True, slots=True)
class Pick:
    """A search's move; ``proven``: it is proven to keep the position's
    outcome (:attr:`engine.solver.opponent.Choice.proven`), as a hint says."""

    move: Move
    proven: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    job: Job
    pick: Pick

    @property
    def move(self) -> Move:
        return self.pick.move


Choose = Callable[[Job, Limits], Pick]


class _Opponents:
    """The solver's opponents for the game in progress: the computer's and the
    hints' (the exact solver's table, tens of MB, is worth keeping from move
    to move, but not from game to game)."""

    KEEP = 2

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[object, int, int], object] = OrderedDict()
        self._lock = threading.Lock()
        self._told: set[str] = set()  # what the opponents had to do without, said once

    def __call__(self, job: Job, limits: Limits) -> Pick:
        from controller.computer.helper import outcome_move_here
        from engine.solver.opponent import Opponent

        # full strength ignores the seed: the computer's moves, its pondering
        # and the hints share one opponent, one solver's table (34 MB)
        key = (job.game.rules, job.level, job.seed if job.level < MAX_LEVEL else 0)
        with self._lock:
            opponent = self._cache.get(key)
            if opponent is None:
                opponent = self._cache[key] = Opponent(
                    job.game.rules, job.level, job.seed, outcome_move=outcome_move_here()
                )
                while len(self._cache) > self.KEEP:
                    self._cache.popitem(last=False)
                problem = opponent.book_problem
                if problem is not None and problem not in self._told:
                    self._told.add(problem)
                    log.warning("The computer is %s.", problem)
            self._cache.move_to_end(key)
        assert isinstance(opponent, Opponent)
        if job.purpose == "ponder":
            opponent.ponder(job.game, limits)
        elif job.purpose == "study":
            opponent.study(job.game, limits)
        else:
            choice = opponent.choose(job.game, limits)
            return Pick(choice.move, choice.proven)
        return Pick(job.game.legal_moves()[0])  # an answer nobody plays


def solver() -> Choose:
    """The real search: :class:`engine.solver.opponent.Opponent`."""
    return _Opponents()


def _safely(choose: Choose, job: Job, limits: Limits) -> Pick:
    """``choose``'s pick; a search that fails still gives a legal move (proven
    to keep nothing), so a game against the computer never stalls."""
    try:
        pick = choose(job, limits)
        if job.game.is_legal(pick.move):
            return pick
        log.error("The computer's search chose %s, which is not legal; playing another.", pick.move)
    except Exception:
        log.exception("The computer's search failed; playing the first legal move.")
    return Pick(job.game.legal_moves()[0])


class Thinker(Protocol):
    """What the daemon needs from a searcher."""

    def start(self, job: Job, wake: Callable[[], None]) -> None:
        """Search for ``job`` (cancelling any search still running), then call
        ``wake`` once the answer is ready."""

    def cancel(self) -> None:
        """Drop the search running now, if any: it gives no answer."""

    def answers(self) -> list[Answer]:
        """The answers ready since the last call."""

    def poll(self, now: float) -> None:
        """Called by the loop at ``now`` (its clock), e.g. to end a search
        whose budget is spent."""

    def next_deadline(self) -> float | None:
        """When :meth:`poll` next has something to do."""

    def notice(self) -> Text | None:
        """What the board should say about the searching (it fell back to a
        lower level, say), or ``None``."""

    def close(self) -> None: ...


class ThreadedThinker:
    """Searches on a worker thread for at most ``budget`` seconds of ``clock``.

    The search polls its stop check every few hundred positions (the exact
    Classic solver also lets go of the GIL between checks), so the daemon's
    loop keeps running while it thinks: the daemon lets a woken thread take
    the interpreter lock within half a millisecond
    (:func:`controller.daemon.wakeup.quick_handoffs`). The worker is not
    niced: a low-priority thread preempted while it holds the lock would hold
    up the loop.
    """

    def __init__(self, clock: Clock, budget: float, choose: Choose | None = None) -> None:
        self.clock = clock
        self.budget = budget
        self.choose = choose or solver()
        self._lock = threading.Lock()
        self._ready: list[Answer] = []
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._last: threading.Thread | None = None  # the latest, cancelled or not

    def start(self, job: Job, wake: Callable[[], None]) -> None:
        self.cancel()
        stop = threading.Event()
        deadline = self.clock() + job.seconds(self.budget)
        limits = Limits(should_stop=lambda: stop.is_set() or self.clock() >= deadline)
        thread = threading.Thread(
            target=self._run,
            args=(job, limits, stop, wake, self._last),
            name="popref-thinker",
            daemon=True,
        )
        self._stop, self._thread, self._last = stop, thread, thread
        thread.start()

    def _run(
        self,
        job: Job,
        limits: Limits,
        stop: threading.Event,
        wake: Callable[[], None],
        previous: threading.Thread | None,
    ) -> None:
        if previous is not None:
            # a cancelled search ends within a few hundred positions; the
            # solver's tables are not for two searches at once
            previous.join()
        pick = _safely(self.choose, job, limits)
        with self._lock:
            if stop.is_set():
                return
            self._ready.append(Answer(job, pick))
        wake()

    def cancel(self) -> None:
        with self._lock:
            if self._stop is not None:
                self._stop.set()
            self._ready.clear()
        self._stop = self._thread = None

    @property
    def thinking(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def answers(self) -> list[Answer]:
        with self._lock:
            ready, self._ready = self._ready, []
        return ready

    def poll(self, now: float) -> None:
        """Nothing to do: the worker reads the clock itself."""

    def next_deadline(self) -> float | None:
        return None

    def notice(self) -> Text | None:
        return None

    def wait(self, timeout: float) -> bool:
        """Wait until the search running now has ended; whether it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def close(self) -> None:
        self.cancel()
        if self._last is not None:
            self._last.join(timeout=5.0)


class InlineThinker:
    """Searches at once, in :meth:`start`, for at most ``budget`` seconds of
    real time: for the simulator, where a search is one step of a scripted
    run. (Below the top level the solver never reads a clock, so scripts are
    repeatable; at the top level, Classic's exact solver is too whenever it
    finishes in time.)"""

    def __init__(
        self,
        budget: float,
        choose: Choose | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.budget = budget
        self.choose = choose or solver()
        self.clock = clock
        self._ready: list[Answer] = []

    def start(self, job: Job, wake: Callable[[], None]) -> None:
        deadline = self.clock() + job.seconds(self.budget)
        pick = _safely(self.choose, job, Limits(should_stop=lambda: self.clock() >= deadline))
        self._ready = [Answer(job, pick)]
        wake()

    def cancel(self) -> None:
        self._ready = []

    def poll(self, now: float) -> None:
        """Nothing to do: a search ends before :meth:`start` returns."""

    def next_deadline(self) -> float | None:
        return None

    def notice(self) -> Text | None:
        return None

    def answers(self) -> list[Answer]:
        ready, self._ready = self._ready, []
        return ready

    def close(self) -> None:
        self._ready = []
