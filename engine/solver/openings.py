"""Pop Out 7x6's opening: a proven winning move for the side that wins.

Pop Out on the standard grid is a first player's win, but the win is too
deep for the outcome search (:mod:`engine.solver.outcome`) in a move's time
until a few plies are played: from the start it takes about a billion
positions. ``bench/popout_openings.py`` builds this table once: from the
start and from every position after two plies (:func:`roots`), the move
that the outcome search proves wins for the side to move, then every reply
of the other side's, and so on while a position's proof takes more
positions than full strength searches in a move; each entry's move is
proven to win within its ``plies``. Nearly every opening of two plies is
Red's win; where one is Red's loss (``1 4``), the table holds Yellow's win
from each of Red's replies instead. An entry is keyed by the side to move
too, since with pops the discs do not say whose turn it is. Positions are
kept in one of their two mirror images (the smaller), so a lookup tries
both.

Only for the rules it was proven under: Pop Out 7x6, lines of four, the
popper winning a pop that completes lines for both, no repetition rule (a
circle is a draw: the wins never need one).

>>> from engine import new_game
>>> from engine.solver.fastsearch import state_of
>>> game = new_game("popout")
>>> move, plies = opening_move(game.rules, state_of(game))
>>> str(move), plies <= 63
('4', True)
"""

from __future__ import annotations

import dataclasses
from functools import cache

from engine.game import Game
from engine.move import Move, MoveKind
from engine.rules import Rules, rules_named
from engine.solver.fastsearch import State, state_of, to_move
from engine.solver.openings_data import OPENINGS
from engine.start import new_game

WIDTH, HEIGHT = 7, 6
STRIDE = HEIGHT + 1
COLUMN = (1 << HEIGHT) - 1


def applies(rules: Rules) -> bool:
    """Whether the table holds for a game under ``rules``."""
    return dataclasses.replace(rules, name="popout") == rules_named("popout")


def mirror(board: int) -> int:
    """A bitboard of the 7x6 grid seen in a mirror (column 1 <-> 7).

    >>> mirror(1) == 1 << (6 * STRIDE)
    True
    """
    seen = 0
    for column in range(WIDTH):
        cells = board >> (column * STRIDE) & COLUMN
        seen |= cells << ((WIDTH - 1 - column) * STRIDE)
    return seen


def canonical(red: int, yellow: int) -> tuple[int, int, bool]:
    """The discs in the table's form, and whether that is the mirror image."""
    flipped = (mirror(red), mirror(yellow))
    if flipped < (red, yellow):
        return flipped[0], flipped[1], True
    return red, yellow, False


def mirrored(move: Move) -> Move:
    """``move`` in the mirror image of the grid.

    >>> str(mirrored(Move.pop(2)))
    'p6'
    """
    column = WIDTH + 1 - move.column
    return Move.drop(column) if move.kind is MoveKind.DROP else Move.pop(column)


def in_table_form(game: Game) -> Game:
    """``game`` itself, or its mirror image where that is the table's form
    (the positions the table was proven on: a search is not symmetric)."""
    state = state_of(game)
    if not canonical(state[0], state[1])[2]:
        return game
    image = new_game(game.rules)
    for move in game.moves:
        image.play(mirrored(move))
    return image


def roots() -> list[Game]:
    """Where the table begins: the start and every position after two
    plies (Red's first move may be anywhere: a person's, or a bench's
    random opening)."""
    start = new_game(rules_named("popout"))
    return [start] + [game for first in replies(start) for game in replies(first)]


def after_each(game: Game) -> list[tuple[Move, Game]]:
    """Each legal move in ``game`` and the game after it."""
    return [(move, game.after(move)) for move in game.legal_moves()]


def replies(game: Game) -> list[Game]:
    """The positions after each legal move in ``game`` that do not end it."""
    return [after for _move, after in after_each(game) if after.result is None]


Key = tuple[int, int, int]  # the side to move (0 Red, 1 Yellow), Red's discs, Yellow's


def key(state: State) -> tuple[Key, bool]:
    """A position's key in the table, and whether it is of the mirror image."""
    red, yellow, flipped = canonical(state[0], state[1])
    return (state[2], red, yellow), flipped


Entry = tuple[int, int, int, int, int]  # the key's three, a move's code, its plies
Entries = dict[Key, tuple[int, int]]


def entries(rows: tuple[Entry, ...]) -> Entries:
    """A table's rows as a dictionary from a position's key."""
    return {(side, red, yellow): (code, plies) for side, red, yellow, code, plies in rows}


def rows(table: Entries) -> str:
    """``table`` as the rows of its data module, which :func:`entries` reads
    back (sorted: a rebuilt table shows only what changed).

    >>> print(rows({(0, 0x1, 0x80, 3, 61)[:3]: (3, 61)}), end="")
        (0, 0x1, 0x80, 3, 61),
    """
    return "".join(
        f"    ({side}, 0x{red:X}, 0x{yellow:X}, {code}, {plies}),\n"
        for (side, red, yellow), (code, plies) in sorted(table.items())
    )


def look_up(table: Entries, rules: Rules, state: State) -> tuple[Move, int] | None:
    """The move and plies ``table`` holds for ``state`` (the play phase of
    Pop Out 7x6 only), in the position's own image of the grid."""
    if not applies(rules) or state[3] != 0:
        return None
    position, flipped = key(state)
    found = table.get(position)
    if found is None:
        return None
    code, plies = found
    move = to_move(code)
    return (mirrored(move) if flipped else move), plies


@cache
def _table() -> Entries:
    return entries(OPENINGS)


def opening_move(rules: Rules, state: State) -> tuple[Move, int] | None:
    """The proven winning move in ``state`` for the side to move and the
    plies it wins within, if the table has the position (the play phase)."""
    return look_up(_table(), rules, state)


__all__ = [
    "after_each",
    "applies",
    "canonical",
    "entries",
    "in_table_form",
    "key",
    "look_up",
    "mirror",
    "mirrored",
    "opening_move",
    "replies",
    "roots",
    "rows",
]
