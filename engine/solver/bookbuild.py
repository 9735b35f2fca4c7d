"""Which positions the opening book holds, and solving them in a fixed order.

The computer meets, before move ``depth``: as Red, the empty board and every
position after its own book move and any answer; as Yellow, every first move
and the same onwards. Positions are visited ply by ply, each ply in key order
and once per mirror pair, so the book depends only on ``depth`` and the game
values: rebuilding gives the same file, and a build resumes from any prefix.

>>> from engine.solver.classic import ClassicSolver
>>> solved = {}
>>> build(ClassicSolver(4, 4, core="python"), 4, 4, 3, solved, lambda *entry: None)
3
>>> len(solved), solved[0]  # the empty board's key is 0: a draw, play column 3
(7, (0, 3))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping

from engine.solver.book import canonical
from engine.solver.classic import ClassicSolver, Position

# (canonical key, score, column, ply) of one solved position
OnSolved = Callable[[int, int, int, int], None]


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
    width: int, height: int, depth: int, solved: MutableMapping[int, tuple[int, int]]
) -> Iterator[tuple[int, list[Position]]]:
    """``(ply, positions)`` in build order; reads the book moves from ``solved``.

    The positions of ply ``p + 2`` follow the book moves of ply ``p``, so the
    caller must have solved a ply before asking for the one two later.
    """
    levels: dict[int, list[Position]] = {}
    empty = Position.empty(width, height)
    for ply in range(depth):
        if ply == 0:
            found = [empty]
        elif ply == 1:
            found = list(_answers(empty))
        else:
            found = []
            for position in levels[ply - 2]:
                column = solved[canonical(position)[0]][1]
                if position.wins_with(column):
                    continue
                after = position.play(column)
                if after.moves < width * height:
                    found.extend(_answers(after))
        unique = {p.key(): p for p in map(_canonical_position, found)}
        levels[ply] = [unique[key] for key in sorted(unique)]
        yield ply, levels[ply]


def build(
    solver: ClassicSolver,
    width: int,
    height: int,
    depth: int,
    solved: MutableMapping[int, tuple[int, int]],
    on_solved: OnSolved,
    should_stop: Callable[[], bool] | None = None,
) -> int:
    """Solve every book position up to ``depth`` not yet in ``solved``.

    Fills ``solved`` (``{key: (score, column)}``), tells ``on_solved`` about
    each new entry, and returns the number of complete plies. A stop raises
    :class:`~engine.solver.limits.SearchStopped`; what was solved is kept.
    """
    complete = 0
    for ply, positions in plies(width, height, depth, solved):
        for position in positions:
            key = position.key()
            if key in solved:
                continue
            column, score = solver.best_move_and_score(position, should_stop)
            solved[key] = (score, column)
            on_solved(key, score, column, ply)
        complete = ply + 1
    return complete
