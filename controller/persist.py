"""A referee's state as JSON-able data, and back: the journal's first record.

>>> from controller.referee import Referee, Table
>>> referee = Referee(Table(), "popout")
>>> restore(Table(), snapshot(referee)).game.rules.name
'popout'
"""

from __future__ import annotations

from typing import Any

from controller.computer import Seat
from controller.referee import Referee, Table
from engine import game_from_position, parse_move
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
        "computer": referee.computer.data() if referee.computer is not None else None,
        "next_computer": referee.next_computer.value if referee.next_computer else None,
        "computer_move": str(referee.computer_move) if referee.computer_move else None,
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
    # the computer's seat is the game's own (its seed above all), whatever the
    # configuration says now; journals from before the opponent have none
    seat = data.get("computer")
    referee.computer = Seat.from_data(seat) if seat is not None else None
    upcoming = data.get("next_computer")
    referee.next_computer = Colour(upcoming) if upcoming is not None else None
    chosen = data.get("computer_move")
    referee.computer_move = parse_move(str(chosen)) if chosen is not None else None
    if referee.computer_move is not None and not referee.game.is_legal(referee.computer_move):
        raise ValueError(f"the computer's move {chosen} does not fit the game")
    return referee
