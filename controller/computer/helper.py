"""A second core for the Classic outcome search, where the budget is wall time.

:meth:`ClassicSolver.outcome_move` asks its tests one at a time: the first
child's win, then a safe move, then the other children's wins. In a won
position whose first child only draws, the budget goes on that child's two
tests and the winning child is asked too late (issue 24: ``537437``,
``25435712``, ``277215132`` of the Connect Four test sets, each changing
the result at 250 ms). A helper thread asks the other children's wins
meanwhile, on the same table (the compiled core searches without the GIL,
and each table entry is one word, so the two searches share what either
finds). Each thread writes its own :class:`Proofs` and reads both: the
solver's order skips what the helper has answered, and a win the helper
proves ends the search at once. The engine has no threads of its own; this
is given to :class:`Opponent` as its ``outcome_move`` (:func:`outcome_move_here`).

It helps only where a second core is free and the budget is wall time: on
one core, or on a budget of positions or CPU time, the helper's positions
are taken from the search's own. Its positions are not added to the
solver's count, and the opponent leaves it out where the budget is a node
count. Measured with ``bench/outside.py --clock wall --helper --against .``
on 2 idle cores (2026-12-03): on 120 test-set positions and 4 openings
(seed 2), 0 moves changed the result at 250 ms where 1 s proves one that
keeps it (2 without), and 1 of 120 moves short of the best score (3); on
seed 1's 60, the same as without (``537437`` needs 4.4 M positions on the
helper's side too).

>>> from engine.solver.classic import ClassicSolver, Position
>>> solver = ClassicSolver(4, 4, core="python")
>>> outcome_move_helped(solver, Position.from_columns(4, 4, [2, 3, 2, 3, 2]))  # Yellow must block
(2, 0)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.solver.classic import ClassicSolver
from engine.solver.limits import SearchStopped
from engine.solver.position import Position
from engine.solver.proofs import Proofs

if TYPE_CHECKING:
    from engine.solver.opponent import OutcomeMove

MIN_CORES = 2  # a core each for the solver and its helper
BOARD_CORES = 2  # kept for a board's loop, its page and its sensors
NAME = "solver helper"  # the helper thread's name


def worth_a_helper(cores: int | None, board: bool = True) -> bool:
    """Whether a machine of ``cores`` cores (``os.cpu_count()``, None if
    unknown) gives the solver a helper. Beside a ``board`` (the daemon's
    search process) two cores are kept for its loop, its page and its
    sensors: on a Pi 4 or 5 yes, on two cores the helper would take the
    loop's. Without one (``popref bestmove``) two cores are enough.

    >>> worth_a_helper(4), worth_a_helper(2), worth_a_helper(None)
    (True, False, False)
    >>> worth_a_helper(2, board=False), worth_a_helper(1, board=False)
    (True, False)
    """
    kept = BOARD_CORES if board else 0
    return cores is not None and cores - kept >= MIN_CORES


def outcome_move_here(board: bool = True) -> OutcomeMove | None:
    """The opponent's ``outcome_move`` on this machine: the helped one where
    :func:`worth_a_helper` says so, else None (the solver's own)."""
    return outcome_move_helped if worth_a_helper(os.cpu_count(), board) else None


class _Both(Proofs):
    """One thread's proofs (it writes them, in ``mine``'s dictionaries),
    read together with the other thread's: a dictionary has one writer, so
    no narrowing is lost to a race."""

    def __init__(self, mine: Proofs, theirs: Proofs) -> None:
        super().__init__(mine.low, mine.high)
        self.theirs = theirs

    def at_least(self, column: int) -> int:
        return max(super().at_least(column), self.theirs.at_least(column))

    def at_most(self, column: int) -> int:
        return min(super().at_most(column), self.theirs.at_most(column))


def outcome_move_helped(
    solver: ClassicSolver,
    position: Position,
    should_stop: Callable[[], bool] | None = None,
    proofs: Proofs | None = None,
) -> tuple[int, int]:
    """:meth:`ClassicSolver.outcome_move`, with a helper thread asking the
    wins of every child but the first. ``should_stop`` is asked from both
    threads; the helper has ended, and what it proved is in ``proofs``, when
    this returns or raises."""
    proofs = Proofs() if proofs is None else proofs
    others = solver.ordered_safe_moves(position)[1:]
    helpers = Proofs()
    won, done = threading.Event(), threading.Event()
    helper = solver.sharing()

    def stopped() -> bool:
        return bool(should_stop and should_stop())

    def ask_the_others() -> None:
        seen = _Both(helpers, proofs)
        try:
            for column in others:
                if helper.keeps(position, column, 1, seen, lambda: done.is_set() or stopped()):
                    won.set()
                    return
        except SearchStopped:
            return

    thread = threading.Thread(target=ask_the_others, name=NAME, daemon=True)
    thread.start()
    try:
        own = _Both(proofs, helpers)
        return solver.outcome_move(position, lambda: won.is_set() or stopped(), own)
    except SearchStopped:
        winning = [c for c in others if helpers.at_least(c) >= 1]
        if won.is_set() and winning:
            return winning[0], 1
        raise
    finally:
        done.set()
        thread.join()
        for column in set(helpers.low) | set(helpers.high):
            proofs.prove(column, helpers.at_least(column), helpers.at_most(column))


__all__ = [
    "BOARD_CORES",
    "MIN_CORES",
    "NAME",
    "outcome_move_helped",
    "outcome_move_here",
    "worth_a_helper",
]
