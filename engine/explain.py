"""Why a move is illegal, in a sentence a player understands.

Only the game's public state is read, so the sentences follow the rules the
game applies rather than restating them.

>>> format_columns([1, 2, 4, 5, 6, 7])
'1, 2, 4-7'

Each reason is a :class:`~engine.sentence.Sentence`, so a referee can say
it in the players' own language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from engine.colour import Colour
from engine.move import Move, MoveKind
from engine.phase import Phase
from engine.rules import Rules
from engine.sentence import Sentence


class Explained(Protocol):
    """What :func:`explain` reads of a game: its public state only."""

    @property
    def rules(self) -> Rules: ...
    @property
    def to_move(self) -> Colour | None: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def pending_return(self) -> int | None: ...
    def legal_moves(self) -> Sequence[Move]: ...
    def column(self, column: int) -> tuple[Colour, ...]: ...


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


def explain(game: Explained, move: Move, shift: int = 0) -> Sentence:
    """The reason ``move`` is not legal in ``game`` (assumed not over).

    Sentences name column ``c`` as ``c - shift``: a referee of a physical
    5-in-a-Row grid, whose edge strips are not part of it, passes 1 so that
    players read the grid's own column numbers."""
    rules, mover = game.rules, game.to_move or Colour.RED
    column = move.column - shift  # as named; move.column is the engine's
    if move.column > rules.width:
        return Sentence(
            "there is no column {column}: the board has columns 1-{last}",
            column=column,
            last=rules.width - shift,
        )
    if move.column not in rules.playable_columns:
        if move.kind is MoveKind.DROP:
            return Sentence(
                "column {column} is an edge strip: discs are never dropped into it", column=column
            )
        return Sentence(
            "column {column} is an edge strip: its discs are never popped", column=column
        )
    legal_columns = format_columns(m.column - shift for m in game.legal_moves())
    phase = game.phase
    if move.kind is MoveKind.DROP:
        if phase is Phase.FILL:
            return Sentence(
                "in the fill phase discs go into the lowest columns: {columns}",
                columns=legal_columns,
            )
        if phase is Phase.POP:
            return Sentence(
                "in the pop phase {colour} pops one of their own discs from the "
                "bottom row, in column {columns}",
                colour=mover,
                columns=legal_columns,
            )
        if phase is Phase.RETURN:
            source = (game.pending_return or 0) - shift
            if column == source:
                return Sentence(
                    "the disc popped from column {source} must go back into another "
                    "column: {columns}",
                    source=source,
                    columns=legal_columns,
                )
            return Sentence(
                "column {column} is full; the disc popped from column {source} can go into "
                "{columns}",
                column=column,
                source=source,
                columns=legal_columns,
            )
        return Sentence("column {column} is full", column=column)
    if phase is Phase.FILL:
        return Sentence(
            "in the fill phase discs are only dropped: pops begin once the grid is full"
        )
    if phase is Phase.RETURN:
        return Sentence(
            "the disc popped from column {source} must first go back in, into column {columns}",
            source=(game.pending_return or 0) - shift,
            columns=legal_columns,
        )
    if phase is Phase.PLAY and not rules.pops:
        return Sentence("pops are not allowed in {rules}", rules=rules)
    discs = game.column(move.column)
    if not discs:
        return Sentence("column {column} is empty: there is no disc to pop", column=column)
    if discs[0] is not mover:
        return Sentence(
            "the bottom disc of column {column} is {owner}'s; {colour} can pop only their own",
            column=column,
            owner=discs[0],
            colour=mover,
        )
    if not shift:
        return Sentence("{move} is not allowed now", move=str(move))
    if move.kind is MoveKind.POP:
        return Sentence("pop in column {column} is not allowed now", column=column)
    return Sentence("drop in column {column} is not allowed now", column=column)
