"""Progress lines of a long Classic solve, for ``popref solve``'s standard error.

A solve of an early position can take minutes; one line every
:data:`EVERY` seconds, from :data:`FIRST` seconds on, says it is alive: the
positions searched so far and the bounds proven on the score. A quicker
solve says nothing. The lines come from the solver's ``should_stop``, which
the core calls every few thousand positions, so they cost no thread.

>>> import io
>>> from engine.solver.classic import ClassicSolver, Position
>>> ticks = iter(range(1_000_000))
>>> out = io.StringIO()
>>> solver = ClassicSolver(7, 6, core="python")
>>> progress = Progress(solver, lambda: float(next(ticks)), out, "popref solve")
>>> progress.start("line 1", after_move=False)
>>> position = Position.from_columns(7, 6, [int(c) for c in "6242432155656447531617622"])
>>> solver.solve(position, progress.should_stop)
0
>>> print(out.getvalue().splitlines()[0])
popref solve: line 1: the score is between -1 and 2 after 3,162 positions (2 s)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from engine.solver.classic import ClassicSolver

FIRST = 2.0  # seconds a solve runs before its first line: a quick one says nothing
EVERY = 5.0  # seconds between two lines


class Progress:
    """Reports one solve after another of ``solver``, timed by ``clock``."""

    def __init__(
        self, solver: ClassicSolver, clock: Callable[[], float], out: TextIO, prog: str
    ) -> None:
        self._solver = solver
        self._clock = clock
        self._out = out
        self._prog = prog
        self._what = ""
        self._flip = False
        self._started = self._due = 0.0
        self._nodes = self._seen = self._polls = 0

    def start(self, what: str, after_move: bool) -> None:
        """A new solve, named ``what``; ``after_move``: it is of the position
        after a move, whose score for the mover is the solved one negated."""
        self._what, self._flip = what, after_move
        self._started = self._clock()
        self._due = self._started + FIRST
        self._nodes = self._seen = self._solver.nodes
        self._polls = 0

    def should_stop(self) -> bool:
        """Never stops the solve; prints a line when one is due."""
        if self._solver.nodes != self._seen:  # a null-window test has ended
            self._seen, self._polls = self._solver.nodes, 0
        self._polls += 1
        now = self._clock()
        if now >= self._due:
            self._due = now + EVERY
            self._report(now)
        return False

    def _report(self, now: float) -> None:
        # the core asks every check_every positions of a test: those of the
        # running test so far, plus the finished tests' exact counts
        nodes = self._seen - self._nodes + self._polls * self._solver.core.check_every
        low, high = self._solver.bounds
        if self._flip:
            low, high = -high, -low
        print(
            f"{self._prog}: {self._what}: the score is between {low} and {high} "
            f"after {nodes:,} positions ({now - self._started:.0f} s)",
            file=self._out,
            flush=True,
        )
