"""Why a move is illegal, in a sentence a player understands.

Only the game's public state is read, so the sentences follow the rules the
game applies rather than restating them.

>>> format_columns([1, 2, 4, 5, 6, 7])
'1, 2, 4-7'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine.colour import Colour
from engine.move import Move, MoveKind

if TYPE_CHECKING:
    from engine.game import Game


def format_columns(columns: Iterable[int]) -> str:
    """Columns as a short list; runs of three or more become ``a-b``."""
    runs: list[list[int]] = []
    for column in sorted(set(columns)):
        if runs and runs[-1][-1] == column - 1:
            runs[-1].append(column)
        else:
            runs.append([column])
    parts: list[str] = []
    for run in runs:
        if len(run) >= 3:
            parts.append(f"{run[0]}-{run[-1]}")
        else:
            parts.extend(str(column) for column in run)
    return ", ".join(parts)


def explain(game: Game, move: Move, shift: int = 0) -> str:
    """The reason ``move`` is not legal in ``game`` (assumed not over).

    Sentences name column ``c`` as ``c - shift``: a referee of a physical
    5-in-a-Row grid, whose edge strips are not part of it, passes 1 so that
    players read the grid's own column numbers."""
    from engine.game import Phase  # the game module imports this one

    rules, mover = game.rules, game.to_move or Colour.RED
    column = move.column - shift  # as named; move.column is the engine's
    if move.column > rules.width:
        return f"there is no column {column}: the board has columns 1-{rules.width - shift}"
    if move.column not in rules.playable_columns:
        if move.kind is MoveKind.DROP:
            return f"column {column} is an edge strip: discs are never dropped into it"
        return f"column {column} is an edge strip: its discs are never popped"
    legal_columns = format_columns(m.column - shift for m in game.legal_moves())
    phase = game.phase
    if move.kind is MoveKind.DROP:
        if phase is Phase.FILL:
            return f"in the fill phase discs go into the lowest columns: {legal_columns}"
        if phase is Phase.POP:
            return (
                f"in the pop phase {mover.title} pops one of their own discs from the "
                f"bottom row, in column {legal_columns}"
            )
        if phase is Phase.RETURN:
            source = (game.pending_return or 0) - shift
            if column == source:
                return (
                    f"the disc popped from column {source} must go back into another "
                    f"column: {legal_columns}"
                )
            return f"column {column} is full; the disc popped from column {source} can go into {legal_columns}"  # noqa: E501
        return f"column {column} is full"
    if phase is Phase.FILL:
        return "in the fill phase discs are only dropped: pops begin once the grid is full"
    if phase is Phase.RETURN:
        return (
            f"the disc popped from column {(game.pending_return or 0) - shift} must first go "
            f"back in, into column {legal_columns}"
        )
    if phase is Phase.PLAY and not rules.pops:
        return f"pops are not allowed in {rules.title}"
    discs = game.column(move.column)
    if not discs:
        return f"column {column} is empty: there is no disc to pop"
    if discs[0] is not mover:
        return (
            f"the bottom disc of column {column} is {discs[0].title}'s; "
            f"{mover.title} can pop only their own"
        )
    what = f"{move.kind.value} in column {column}" if shift else str(move)
    return f"{what} is not allowed now"
