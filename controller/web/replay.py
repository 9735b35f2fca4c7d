"""An archived game, position by position, for the page's replay: the engine
replays the record, so the page never needs a rule of its own.

>>> data = replay("Rules: classic\\nSize: 4x4\\n\\n1 2\\n")
>>> data["moves"], data["positions"][1], data["winning"]
(['1', '2'], ['....', '....', '....', 'R...'], [])
"""

from __future__ import annotations

from typing import Any

from engine import RecordError, read_record
from engine.colour import Colour


def replay(record: str) -> dict[str, Any]:
    """The record's rules, result, moves (and who made each, ``by``), and
    the board (rows top first) and scores before the first move and after
    each one; ``winning``, the cells
    of the line that won, as ``[column, row]`` (row 1 at the bottom, columns
    counted as in ``positions``). Raises ``ValueError`` when the record
    cannot be replayed."""
    try:
        game = read_record(record)
    except RecordError as error:
        raise ValueError(str(error)) from None
    moves = [str(m) for m in game.moves]
    positions: list[list[str]] = []
    scores: list[list[int]] = []
    by: list[str] = []  # who made each move
    walk = game.copy()
    while True:
        positions.append(list(walk.rows()))
        scores.append([walk.scores[Colour.RED], walk.scores[Colour.YELLOW]])
        if not walk.moves:
            break
        walk.undo()
        assert walk.to_move is not None  # a move was made from here
        by.append(walk.to_move.value)
    positions.reverse()
    scores.reverse()
    by.reverse()
    return {
        "rules": game.rules.name,
        "result": None if game.result is None else str(game.result),
        "winning": sorted([column, row] for column, row in game.winning_cells()),
        "strips": game.rules.strips,
        "moves": moves,
        "by": by,
        "positions": positions,
        "scores": scores,
        "record": record,
    }
