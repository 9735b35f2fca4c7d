"""Which positions the opening book holds, and solving them in a fixed order.

The computer meets, as Red, the empty board and every position after its
own book move and any answer; as Yellow, every first move and the same
onwards. A :class:`Plan` says which of those the book holds: every one
before ply ``depth``; after it, those whose outcome solve (from a fresh
table of ``slots`` slots, as the computer meets them at worst) needs more
than ``nodes`` positions, since the solver answers the others within the
thinking budget. Only a position in the book leads further: the book plays
its move and every answer is a candidate two plies on.

Hints in a game between two people, and ``popref bestmove``, meet any
opening, not only the computer's: before ply ``every`` the book holds every
position however it was reached (after six moves, 8,231 once per mirror
pair, where the computer's own lines meet 145). A fresh solve of one of those
takes seconds to minutes, and in the time of a move the solver's fallback
lost won openings (issue 24: ``2 1`` and ``6 7``). They lead no further than
the others.

Before ply ``exact`` a position gets the best move by exact score (fastest
win, slowest loss); later, a won position gets the first move, centre
first, that keeps the win (one outcome solve per move, far cheaper), a
drawn one a drawing move (its exact score is 0 anyway), a lost one the
slowest loss (rare: the person has played perfectly so far).

Plies are visited in order, each in key order and once per mirror pair, and
node counts of the compiled core are deterministic, so the same plan always
gives the same book and a build resumes from any prefix.

>>> from engine.solver.classic import ClassicSolver
>>> records = {}
>>> plan = Plan(depth=3, exact=3, until=3, every=0)
>>> build(ClassicSolver(4, 4, core="python"), 4, 4, plan, records, lambda *entry: None)
3
>>> len(records), records[0]  # the empty board's key is 0: a draw, play column 3
(7, Record(score=0, column=3, exact=True, ply=0, nodes=-1))
>>> plan = Plan(depth=3, exact=3, nodes=1000, every=0)  # beyond ply 3, only the long solves
>>> build(ClassicSolver(4, 4, core="python"), 4, 4, plan, records, lambda *entry: None)
8
>>> len(records), len(book_entries(plan, records))
(44, 11)
>>> plan = Plan(depth=3, exact=3, nodes=1000, every=3)  # and every opening of two moves
>>> build(ClassicSolver(4, 4, core="python"), 4, 4, plan, records, lambda *entry: None)
8
>>> len(records), len(book_entries(plan, records))
(48, 15)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import NamedTuple

from engine.solver.book import Entry
from engine.solver.classic import ClassicSolver
from engine.solver.cores import DEFAULT_SLOTS, CoreName
from engine.solver.limits import SearchStopped
from engine.solver.position import Position


class Record(NamedTuple):
    """A solved position: its book entry, its ply, the nodes its outcome solve took.

    ``nodes`` is -1 where no outcome solve was counted (before the plan's
    ``exact`` ply, or read from a book file): such a position is in the book.
    """

    score: int
    column: int
    exact: bool
    ply: int
    nodes: int

    def entry(self) -> Entry:
        """The book's entry for this position."""
        return Entry(self.score, self.column, self.exact)


@dataclass(frozen=True)
class Plan:
    """Which positions a book holds (see the module's text)."""

    depth: int = 7
    exact: int = 7
    nodes: int = 1_000_000  # 125 ms here on one core when set (45 ms now), under 0.5 s on a Pi 4
    slots: int = DEFAULT_SLOTS  # the table the computer's solver uses
    until: int = 42  # build no plies from this one on
    every: int = 7  # before this ply, every position however reached (hints between people)

    def holds(self, record: Record) -> bool:
        """Whether the book holds a solved position."""
        return record.ply < self.depth or record.nodes < 0 or record.nodes > self.nodes

    def fits(self, record: Record) -> bool:
        """Whether a record (e.g. of an earlier build) is what this plan solves."""
        if record.ply < self.exact:
            return record.exact
        return record.exact == (record.score <= 0)


# (canonical key, record) of one solved position
OnSolved = Callable[[int, Record], None]


def _canonical_position(position: Position) -> Position:
    mirrored = position.mirrored()
    return mirrored if mirrored.key() < position.key() else position


def _answers(position: Position) -> Iterator[Position]:
    """The positions after every reply that does not end the game."""
    cells = position.width * position.height
    for column in range(1, position.width + 1):
        if position.can_play(column) and not position.wins_with(column):
            after = position.play(column)
            if after.moves < cells:
                yield after


def plies(
    width: int, height: int, plan: Plan, records: Mapping[int, Record]
) -> Iterator[tuple[int, list[Position]]]:
    """``(ply, positions)`` in build order, until a ply has none.

    The positions of ply ``p + 2`` follow the book moves of ply ``p``, so the
    caller must have solved a ply before asking for the one two later.
    """
    levels: dict[int, list[Position]] = {}
    empty = Position.empty(width, height)
    everything = [empty]  # every position of this ply, however reached
    for ply in range(min(plan.until, width * height)):
        if ply == 0:
            found = [empty]
        elif ply == 1:
            found = list(_answers(empty))
        else:
            found = []
            for position in levels[ply - 2]:
                record = records[position.key()]
                if not plan.holds(record) or position.wins_with(record.column):
                    continue
                after = position.play(record.column)
                if after.moves < width * height:
                    found.extend(_answers(after))
        unique = _unique(found)
        levels[ply] = [unique[key] for key in sorted(unique)]
        if not levels[ply] and (ply == 0 or not levels[ply - 1]):
            return
        if ply < plan.every:
            if ply > 0:
                everything = list(_unique(a for p in everything for a in _answers(p)).values())
            unique |= _unique(everything)
        yield ply, [unique[key] for key in sorted(unique)]


def _unique(positions: Iterable[Position]) -> dict[int, Position]:
    """Each position once per mirror pair, by its key."""
    return {p.key(): p for p in map(_canonical_position, positions)}


class _Solve:
    """Solves one book position as the plan says."""

    def __init__(self, solver: ClassicSolver, plan: Plan, should_stop: Callable[[], bool] | None):
        self.solver = solver
        self.plan = plan
        self.should_stop = should_stop
        self._fresh: ClassicSolver | None = None

    def __call__(self, position: Position) -> Record:
        stop = self.should_stop
        if position.moves < self.plan.exact:
            column, score = self.solver.best_move_and_score(position, stop)
            return Record(score, column, True, position.moves, -1)
        fresh = self._fresh_solver()
        fresh.reset()  # counted from a fresh table: the computer's worst case
        start = fresh.nodes
        polls = 0

        def past_budget() -> bool:
            # the core asks every check_every positions of a call, so this
            # stops the count past the budget for sure, at the same place each run
            nonlocal polls
            polls += 1
            return polls * fresh.core.check_every > self.plan.nodes or bool(stop and stop())

        solver = fresh
        try:
            column, outcome = fresh.best_move_for_outcome(position, past_budget)
        except SearchStopped:
            if stop and stop():
                raise
            # a long one: solved on the large shared table, warm from its
            # neighbours; the move and the scores depend on game values alone
            solver = self.solver
            column, outcome = solver.best_move_for_outcome(position, stop)
        nodes = fresh.nodes - start
        if outcome > 0:
            return Record(1, column, False, position.moves, nodes)
        if outcome < 0:
            column, score = solver.best_move_and_score(position, stop)
            return Record(score, column, True, position.moves, nodes)
        return Record(0, column, True, position.moves, nodes)

    def _fresh_solver(self) -> ClassicSolver:
        if self._fresh is None:
            core: CoreName = "python" if self.solver.core.name == "python" else "compiled"
            self._fresh = ClassicSolver(
                self.solver.width, self.solver.height, core=core, slots=self.plan.slots
            )
        return self._fresh


def build(
    solver: ClassicSolver,
    width: int,
    height: int,
    plan: Plan,
    records: MutableMapping[int, Record],
    on_solved: OnSolved,
    should_stop: Callable[[], bool] | None = None,
) -> int:
    """Solve every position of the plan not yet in ``records``.

    ``solver`` solves the exact plies (give it a large table); the outcome
    plies get a fresh table of ``plan.slots`` each. Fills ``records``
    (``{key: Record}``), tells ``on_solved`` about each new one, and returns
    the number of complete plies. A stop raises
    :class:`~engine.solver.limits.SearchStopped`; what was solved is kept.
    """
    solve = _Solve(solver, plan, should_stop)
    complete = 0
    for ply, positions in plies(width, height, plan, records):
        for position in positions:
            key = position.key()
            known = records.get(key)
            if known is not None and plan.fits(known):
                continue
            records[key] = record = solve(position)
            on_solved(key, record)
        complete = ply + 1
    return complete


def book_entries(plan: Plan, records: Mapping[int, Record]) -> dict[int, Entry]:
    """The entries of the book: the records the plan holds."""
    return {key: record.entry() for key, record in records.items() if plan.holds(record)}


def discs(key: int, width: int, height: int) -> int:
    """The number of discs of a position from its key (``current + mask``)."""
    return Position.from_key(width, height, key).moves
