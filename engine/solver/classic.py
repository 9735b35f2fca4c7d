"""The exact solver for Classic (lines of four, drops only) on small boards.

A position is solved by a null-window search on its score around a negamax
core (compiled ``_core`` when installed, else ``_pycore``; same answers).
Scores follow the Connect Four test sets: 0 a draw; a win is
``(cells + 1 - moves) // 2`` for a win on the next move, one less per pair of
moves later, i.e. the winner's discs left over counted from the end; a loss
the same, negative.

>>> solver = ClassicSolver(7, 6, core="python")
>>> position = Position.from_columns(7, 6, [int(c) for c in "445533"])
>>> solver.solve(position), solver.best_move(position)
(18, 2)
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from engine.solver import _pycore
from engine.solver.cores import DEFAULT_SLOTS, CoreName, make_core
from engine.solver.limits import SearchStopped
from engine.solver.position import Position, fits
from engine.solver.proofs import Proofs, ScoreBounds


class ClassicSolver:
    """Exact scores and best moves of Classic positions of one board size.

    ``should_stop`` (a callable, checked every few thousand positions, from
    any thread) ends a search early with :class:`SearchStopped`. The table is
    kept between calls: positions of one game share much of their tree.
    """

    def __init__(
        self, width: int = 7, height: int = 6, core: CoreName = "auto", slots: int = DEFAULT_SLOTS
    ) -> None:
        if not fits(width, height):
            raise ValueError(f"a {width}x{height} board is too large for the exact solver")
        self.width = width
        self.height = height
        self.core = make_core(core, slots)
        self.nodes = 0
        # what the running solve has proven: its score lies in [low, high]
        # (read by a should_stop that reports progress)
        self.bounds = _score_range(Position.empty(width, height))

    def reset(self) -> None:
        """Forget every stored bound (e.g. between benchmark positions)."""
        self.core.clear()

    def sharing(self) -> ClassicSolver:
        """A solver on this one's table with a count of its own, for another
        thread (``controller/computer/helper.py``)."""
        other = copy.copy(self)
        other.nodes = 0
        return other

    def _window(
        self, position: Position, alpha: int, beta: int, should_stop: Callable[[], bool] | None
    ) -> int:
        value, nodes = self.core.negamax(position, alpha, beta, should_stop)
        self.nodes += nodes
        if value is None:
            raise SearchStopped
        return value

    def _immediate_win(self, position: Position) -> bool:
        board = _pycore.board_of(position.width, position.height)
        possible = (position.mask + board.bottom) & board.full
        return bool(board.winning_cells(position.current, position.mask) & possible)

    def win_score(self, position: Position) -> int:
        """The score of winning with the mover's next disc."""
        return (position.width * position.height + 1 - position.moves) // 2

    def solve(self, position: Position, should_stop: Callable[[], bool] | None = None) -> int:
        """The exact score of ``position`` for the player to move."""
        self._check(position)
        if self._immediate_win(position):
            return self.win_score(position)
        return self._narrow(position, *_score_range(position), should_stop)

    def _narrow(
        self, position: Position, low: int, high: int, should_stop: Callable[[], bool] | None
    ) -> int:
        """The exact score, known to lie in ``[low, high]``, by null-window tests."""
        while low < high:
            self.bounds = (low, high)
            middle = _probe(low, high)
            value = self._window(position, middle, middle + 1, should_stop)
            if value <= middle:
                high = value
            else:
                low = value
        return low

    def at_least(
        self, position: Position, score: int, should_stop: Callable[[], bool] | None = None
    ) -> bool:
        """Whether the exact score of ``position`` is ``score`` or more."""
        self._check(position)
        if self._immediate_win(position):
            return self.win_score(position) >= score
        return self._window(position, score - 1, score, should_stop) >= score

    def outcome(self, position: Position, should_stop: Callable[[], bool] | None = None) -> int:
        """1, 0 or -1: whether the player to move wins, draws or loses.

        One search with the window (-1, 1): much cheaper than the exact score.
        """
        self._check(position)
        if self._immediate_win(position):
            return 1
        value = self._window(position, -1, 1, should_stop)
        return (value > 0) - (value < 0)

    def outcome_move(
        self,
        position: Position,
        should_stop: Callable[[], bool] | None = None,
        proofs: Proofs | None = None,
    ) -> tuple[int, int]:
        """A column that keeps the outcome, and the outcome (1, 0 or -1).

        One null-window test per child, in the core's own move order (the
        moves that do not hand over a win at once, those making the most
        threats first): whether the first child wins (it often does, and a
        win proven at once spares proving it safe first: 12% fewer positions
        on 47 Begin-Hard positions, fewer on 22, more on 7), then for a child
        that does not win for the opponent (a safe move, known early should
        the search be stopped), then, among the children not proven lost,
        for one the opponent loses. It costs
        about one outcome solve, where :meth:`best_move_for_outcome` (whose
        centre-first choice the book needs) may solve several children more.
        Every finished test is kept in ``proofs`` (a stopped search loses only
        the test it was running), and a test ``proofs`` already answers is
        not run again.

        >>> solver = ClassicSolver(4, 4, core="python")
        >>> solver.outcome_move(Position.from_columns(4, 4, [2, 3, 2, 3, 2]))  # Yellow must block
        (2, 0)
        """
        self._check(position)
        proofs = Proofs() if proofs is None else proofs
        legal = [c for c in position.centre_first if position.can_play(c)]
        for column in legal:
            if position.wins_with(column):
                proofs.prove(column, low=1)
                return column, 1
        candidates = self.ordered_safe_moves(position)
        for column in legal:
            if column not in candidates:  # hands over a win at once
                proofs.prove(column, high=-1)
        if candidates and self.keeps(position, candidates[0], 1, proofs, should_stop):
            return candidates[0], 1
        safe = next(
            (c for c in candidates if self.keeps(position, c, 0, proofs, should_stop)), None
        )
        if safe is None:  # every move loses
            return (candidates or legal)[0], -1
        for column in candidates:
            if self.keeps(position, column, 1, proofs, should_stop):
                return column, 1
        return safe, 0

    def keeps(
        self,
        position: Position,
        column: int,
        outcome: int,
        proofs: Proofs,
        should_stop: Callable[[], bool] | None,
    ) -> bool:
        """Whether dropping into ``column`` keeps at least ``outcome`` (0 or 1)
        for the mover: from ``proofs`` where they decide it, else by one
        null-window test on the child, whose answer goes into ``proofs``.

        A drop that wins at once is a win, never a test (the child is a
        finished game, which the core would search as if it went on):

        >>> solver = ClassicSolver(4, 4, core="python")
        >>> proofs = Proofs()
        >>> solver.keeps(Position.from_columns(4, 4, [1, 2, 1, 2, 1, 2]), 1, 1, proofs, None)
        True
        >>> proofs.at_least(1)
        1
        """
        if proofs.at_least(column) >= outcome:
            return True
        if proofs.at_most(column) < outcome:
            return False
        exact = self.exact_drop_score(position, column)
        if exact is not None:
            sign = (exact > 0) - (exact < 0)
            proofs.prove(column, sign, sign)
            return sign >= outcome
        child = position.play(column)
        # the child's value is below -outcome + 1 exactly when the mover keeps ``outcome``
        target = 1 - outcome
        if self._window(child, target - 1, target, should_stop) < target:
            proofs.prove(column, low=outcome)
            return True
        proofs.prove(column, high=outcome - 1)
        return False

    def ordered_safe_moves(self, position: Position) -> list[int]:
        """The columns that do not hand over a win at once, as the core orders
        them (the most threats made first, then centre first)."""
        board = _pycore.board_of(position.width, position.height)
        safe = board.non_losing_moves(position.current, position.mask)
        ranked: list[tuple[int, int, int]] = []
        for column in position.centre_first:
            cell = safe & position.column_cells(column)
            if cell:
                threats = board.winning_cells(position.current | cell, position.mask | cell)
                ranked.append((-threats.bit_count(), len(ranked), column))
        return [column for _rank, _index, column in sorted(ranked)]

    def best_move_for_outcome(
        self, position: Position, should_stop: Callable[[], bool] | None = None
    ) -> tuple[int, int]:
        """The first column, centre first, that keeps the outcome, and the outcome."""
        outcome = self.outcome(position, should_stop)
        column = self._first_keeping(
            position,
            outcome,
            True,  # only a won position has a winning move
            lambda child: -self.outcome(child, should_stop) == outcome,
        )
        return column, outcome

    def exact_drop_score(self, position: Position, column: int) -> int | None:
        """The score of dropping into ``column`` where no search is needed,
        else None: a drop that wins at once, one that fills the grid (a
        draw), or one after which the other player wins at once.

        >>> solver = ClassicSolver(4, 4, core="python")
        >>> position = Position.from_columns(4, 4, [2, 3, 2, 3, 2])
        >>> [solver.exact_drop_score(position, column) for column in (1, 2, 3)]
        [-5, None, -5]
        """
        if position.wins_with(column):
            return self.win_score(position)
        child = position.play(column)
        if child.moves == _cells(child):
            return 0
        if self._immediate_win(child):
            return -self.win_score(child)
        return None

    def move_scores(
        self, position: Position, should_stop: Callable[[], bool] | None = None
    ) -> dict[int, int]:
        """The exact score of every legal column (for the mover, after it)."""
        return {
            column: self.move_score(position, column, should_stop)
            for column in range(1, position.width + 1)
            if position.can_play(column)
        }

    def move_score(
        self,
        position: Position,
        column: int,
        should_stop: Callable[[], bool] | None = None,
        known: Callable[[Position], int | None] | None = None,
    ) -> int:
        """The exact score of dropping into ``column`` (for the mover, after it).

        ``known`` gives the exact score of a position where it is known
        ahead (the book's), None where it must be solved.
        """
        exact = self.exact_drop_score(position, column)
        if exact is not None:
            return exact
        child = position.play(column)
        score = known(child) if known is not None else None
        return -(self.solve(child, should_stop) if score is None else score)

    def best_move(self, position: Position, should_stop: Callable[[], bool] | None = None) -> int:
        """The first column, centre first, whose score is the position's own.

        Defined by game values alone, so every core, table size and book
        agrees on it.
        """
        return self.best_move_and_score(position, should_stop)[0]

    def best_move_and_score(
        self,
        position: Position,
        should_stop: Callable[[], bool] | None = None,
        outcome: int | None = None,
    ) -> tuple[int, int]:
        """:meth:`best_move` and the position's exact score.

        A known ``outcome`` (1, 0, -1) spares the tests on the other side of 0.
        """
        bounds = self.score_bounds(position)
        if outcome is not None and outcome <= 0:  # no move does better than the position
            for column in bounds.order:
                bounds.prove(column, high=outcome)
        floor = None if outcome is None or outcome < 0 else outcome
        score = self.narrow_best(position, bounds, should_stop, floor)[1]
        column = self._first_keeping(
            position,
            score,
            self.win_score(position) == score,
            # the child's score is at most -score, i.e. not at least -score + 1
            lambda child: not self.at_least(child, -score + 1, should_stop),
        )
        return column, score

    def score_bounds(self, position: Position, proofs: Proofs | None = None) -> ScoreBounds:
        """Each legal column's score before any score test: exact after a win
        at once, a drop that fills the grid or one that hands over a win at
        once; else the child's range, narrowed by the outcomes in ``proofs``.
        The moves in the core's own order (the safe ones first).

        >>> solver = ClassicSolver(4, 4, core="python")
        >>> bounds = solver.score_bounds(Position.from_columns(4, 4, [2, 3, 2, 3, 2]))
        >>> bounds.order  # 2 blocks; the others hand over a win at once
        [2, 3, 4, 1]
        >>> bounds.low[2], bounds.high[2], bounds.low[1], bounds.high[1]
        (-5, 5, -5, -5)
        """
        self._check(position)
        proofs = Proofs() if proofs is None else proofs
        order = self.ordered_safe_moves(position)
        low: dict[int, int] = {}
        high: dict[int, int] = {}
        for column in position.centre_first:
            if not position.can_play(column):
                continue
            exact = self.exact_drop_score(position, column)
            if exact is not None:
                low[column] = high[column] = exact
            else:
                child_low, child_high = _score_range(position.play(column))
                # an outcome bound is a score bound, except "at least a loss", "at most a win"
                won, lost = proofs.at_least(column), proofs.at_most(column)
                low[column] = max(-child_high, won) if won >= 0 else -child_high
                high[column] = min(-child_low, lost) if lost <= 0 else -child_low
        order += [c for c in low if c not in order]
        return ScoreBounds(order, low, high)

    def narrow_best(
        self,
        position: Position,
        bounds: ScoreBounds,
        should_stop: Callable[[], bool] | None = None,
        floor: int | None = None,
    ) -> tuple[int, int]:
        """The best column in ``bounds`` and its exact score, narrowing them by
        null-window tests on one child at a time (about the cost of testing
        the position itself, which would name no move): a stop loses only
        the test it was running, and ``bounds.best()`` is then the best
        move proven. ``floor``: a score the position is known to reach.

        >>> solver = ClassicSolver(4, 4, core="python")
        >>> position = Position.from_columns(4, 4, [2, 3, 2, 3, 2])
        >>> solver.narrow_best(position, solver.score_bounds(position))
        (2, 0)
        """
        while True:
            column, low = bounds.best()
            high = bounds.ceiling()
            if low >= high:
                return column, low
            known = low if floor is None else max(low, floor)
            self.bounds = (known, high)
            target = high if known >= high else _probe(known, high) + 1
            for column in bounds.open(target):
                # the mover keeps ``target`` when the child's score is at most -target
                value = self._window(position.play(column), -target, 1 - target, should_stop)
                if value <= -target:
                    bounds.prove(column, low=-value)
                    break
                bounds.prove(column, high=-value)

    def _first_keeping(
        self,
        position: Position,
        value: int,
        a_win_keeps: bool,
        keeps: Callable[[Position], bool],
    ) -> int:
        """The first column, centre first, after which the mover still has
        ``value``: a winning drop if ``a_win_keeps``, a drop that fills the
        grid if ``value`` is a draw, else one whose child ``keeps`` says so.
        In a lost position every move loses as fast: the first legal one."""
        fallback = None
        for column in position.centre_first:
            if not position.can_play(column):
                continue
            fallback = fallback or column
            if position.wins_with(column):
                if a_win_keeps:
                    return column
                continue
            child = position.play(column)
            if child.moves == _cells(child):
                if value == 0:
                    return column
                continue
            if keeps(child):
                return column
        assert fallback is not None
        return fallback

    def _check(self, position: Position) -> None:
        if (position.width, position.height) != (self.width, self.height):
            raise ValueError(
                f"a {position.width}x{position.height} position for a "
                f"{self.width}x{self.height} solver"
            )


def _probe(low: int, high: int) -> int:
    """The score to test next, ``low <= middle < high`` ("more than
    ``middle``?"): near zero first, as most positions are close to a draw."""
    middle = low + (high - low) // 2
    if middle <= 0 and low // 2 < middle:
        return low // 2
    if middle >= 0 and high // 2 > middle:
        return high // 2
    return middle


def _cells(position: Position) -> int:
    return position.width * position.height


def _score_range(position: Position) -> tuple[int, int]:
    """The lowest and highest exact score a position's mover can have."""
    cells = _cells(position)
    return -(cells - position.moves) // 2, (cells + 1 - position.moves) // 2
