"""A referee's state as JSON-able data, and back: the journal's first record.

>>> from controller.referee import Referee, Table
>>> referee = Referee(Table(), "popout")
>>> restore(Table(), snapshot(referee)).game.rules.name
'popout'
"""

from __future__ import annotations

from typing import Any

from controller.referee import Referee, Table
from engine import game_from_position
from engine.colour import Colour


def snapshot(referee: Referee) -> dict[str, Any]:
    """Everything needed to rebuild ``referee`` (faults and a rules selection
    in progress are left out: they are re-detected or short-lived)."""
    return {
        "game_number": referee.game_number,
        "rules": referee.game.rules.name,
        "start": referee.start_rows,
        "moves": [str(m) for m in referee.game.moves],
        "next_rules": referee.next_rules,
        "grid": ["".join(c.letter if c else "?" for c in column) for column in referee.grid],
        "slider_open": referee.slider_open,
        "rebuilding": referee.rebuilding,
        "problem": referee.problem,
        "last_entry_at": referee.last_entry_at,
        "pairing_since": referee.pairing_since,
    }


def restore(table: Table, data: dict[str, Any]) -> Referee:
    """The referee a :func:`snapshot` describes. Raises ``ValueError`` (an
    engine error included), ``KeyError`` or ``TypeError`` when the data does
    not describe a state of this table."""
    referee = Referee(table, str(data["rules"]))
    grid = [str(column) for column in data["grid"]]
    if len(grid) != table.columns:
        raise ValueError(f"it was saved for {len(grid)} columns and the board has {table.columns}")
    if any(len(column) > table.rows for column in grid):
        raise ValueError(f"it holds a column taller than the board's {table.rows} rows")
    referee.grid = [[None if d == "?" else Colour.from_letter(d) for d in c] for c in grid]
    start = data.get("start")
    if start is not None:
        rules = referee.rules_for(str(data["rules"]))
        referee.game = game_from_position(rules, [str(row) for row in start], Colour.RED)
        referee.start_rows = [str(row) for row in start]
    for token in data["moves"]:
        referee.game.play(str(token))
    referee.game_number = int(data["game_number"])
    referee.next_rules = str(data["next_rules"])
    referee.slider_open = bool(data["slider_open"])
    referee.rebuilding = bool(data["rebuilding"])
    problem = data.get("problem")
    referee.problem = str(problem) if problem is not None else None
    last = data.get("last_entry_at")
    referee.last_entry_at = float(last) if last is not None else None
    pairing = data.get("pairing_since")
    referee.pairing_since = float(pairing) if pairing is not None else None
    return referee
