"""A referee's state as JSON-able data, and back: the journal's first record.

>>> from controller.referee.core import Referee, Table
>>> referee = Referee(Table(), "popout")
>>> restore(Table(), snapshot(referee)).game.rules.name
'popout'
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

from controller.i18n.text import TEXT_LIMIT, Text
from controller.referee import fields
from controller.referee.computer_seat import COLOURS, MAX_LEVEL, MIN_LEVEL, Seat
from controller.referee.core import Referee, Table
from engine import RULES_NAMES, Rules, game_from_position, new_game
from engine.colour import Colour
from engine.rules import BOTH_LINES, REPETITION

GRID_COLUMN = re.compile(r"[RY?]*")
T = TypeVar("T")


class BoardChanged(ValueError):
    """The snapshot was saved for a board of another size: not damage, but a
    game that cannot go on here."""

    def __init__(self, saved: str, now: str) -> None:
        self.saved = saved
        self.now = now
        super().__init__(f"it was saved for a {saved} board; the board is now {now}")


@dataclass(frozen=True)
class Size:
    columns: int
    rows: int | None  # unknown in snapshots written before they recorded it

    def __str__(self) -> str:
        return f"{self.columns}x{self.rows}" if self.rows is not None else f"{self.columns}-column"


def snapshot(referee: Referee) -> dict[str, Any]:
    """Everything needed to rebuild ``referee`` (faults and a rules selection
    in progress are left out: they are re-detected or short-lived)."""
    return {
        "size": [referee.table.columns, referee.table.rows],
        "game_number": referee.game_number,
        "takebacks": referee.takebacks,
        "rules": referee.game.rules.name,
        # the game's own house rules: a configuration changed since it began
        # reaches the next game, never the moves already played in this one
        "repetition": referee.game.rules.repetition,
        "both_lines": referee.game.rules.both_lines,
        "start": referee.start_rows,
        "moves": [str(m) for m in referee.game.moves],
        "next_rules": referee.next_rules,
        "grid": ["".join(c.letter if c else "?" for c in column) for column in referee.grid],
        "slider_open": referee.slider_open,
        "rebuilding": referee.rebuilding,
        "problem": referee.problem,
        # the same sentence as a message, to be said again in each reader's language
        "problem_text": referee.problem.data() if isinstance(referee.problem, Text) else None,
        "last_entry_at": referee.last_entry_at,
        "computer": referee.computer.data() if referee.computer is not None else None,
        "next_computer": referee.next_computer.value if referee.next_computer else None,
        "computer_move": str(referee.computer_move) if referee.computer_move else None,
        "next_level": referee.seats.next_level,
        **referee.pairing.data(),
        "remote": referee.remote.data(),
    }


def saved_size(data: dict[str, Any]) -> Size:
    """The board size a snapshot was saved for (older snapshots give only their columns)."""
    if "size" not in data:
        return Size(len(fields.strings(data, "grid", 1000)), None)
    size = data["size"]
    if not isinstance(size, list) or len(size) != 2:
        raise fields.FieldError('"size" is not [columns, rows]')
    columns, rows = (fields.integer({"size": n}, "size", 1, 1000) for n in size)
    return Size(columns, rows)


def check_size(table: Table, data: dict[str, Any]) -> None:
    """Raise :class:`BoardChanged` if the snapshot is for another board size."""
    saved = saved_size(data)
    if saved.columns != table.columns or saved.rows not in (None, table.rows):
        rows = saved.rows if saved.rows is not None else "?"
        raise BoardChanged(f"{saved.columns}x{rows}", f"{table.columns}x{table.rows}")


def restore(table: Table, data: dict[str, Any]) -> Referee:
    """The referee a :func:`snapshot` describes. Raises :class:`BoardChanged`
    when it was saved for another board size, ``ValueError`` (an engine
    error or a :class:`~controller.referee.fields.FieldError` included) when it is
    not exactly a state of this table as :func:`snapshot` writes it."""
    fields.only(data, _keys(), "the snapshot")
    check_size(table, data)
    rules = fields.one_of(data, "rules", RULES_NAMES)
    referee = Referee(table, rules)
    grid = fields.strings(data, "grid", table.columns)
    if len(grid) != table.columns:
        raise ValueError(f"it has {len(grid)} columns and the board has {table.columns}")
    if any(len(column) > table.rows or not GRID_COLUMN.fullmatch(column) for column in grid):
        raise ValueError(f"a column is not at most {table.rows} discs R, Y or ?")
    referee.grid = [[None if d == "?" else Colour.from_letter(d) for d in c] for c in grid]
    played = _house_rules(referee.rules_for(rules), data)
    start = fields.nullable(data, "start", lambda d, k: fields.strings(d, k, 1000))
    if start is not None:
        referee.game = game_from_position(played, start, Colour.RED)
        referee.start_rows = start
    elif played != referee.game.rules:
        referee.game = new_game(played)
    for move in fields.moves(data, "moves", 100_000):
        referee.game.play(move)
    referee.game_number = fields.integer(data, "game_number", 1)
    if "takebacks" in data:  # journals from before takebacks have none
        referee.takebacks = fields.integer(data, "takebacks", 0)
    referee.next_rules = fields.one_of(data, "next_rules", RULES_NAMES)
    referee.slider_open = fields.boolean(data, "slider_open")
    referee.rebuilding = fields.boolean(data, "rebuilding")
    referee.problem = _problem(data)
    referee.last_entry_at = fields.nullable(data, "last_entry_at", fields.number)
    # the computer's seat is the game's own (its seed above all), whatever the
    # configuration says now; journals from before the opponent have none
    referee.seats.seat = _optional(data, "computer", lambda d, k: Seat.from_data(d[k]))
    referee.seats.next_colour = _optional(data, "next_computer", _colour)
    chosen = _optional(data, "computer_move", fields.move)
    if chosen is not None:
        if not referee.game.is_legal(chosen):
            raise ValueError(f"the computer's move {chosen} does not fit the game")
        referee.seats.move = chosen
    if "next_level" in data:
        referee.seats.next_level = fields.integer(data, "next_level", MIN_LEVEL, MAX_LEVEL)
    referee.pairing.restore(data)
    if "remote" in data:  # journals from before the remote seat have none
        _remote(referee, data["remote"])
    return referee


@functools.cache
def _keys() -> frozenset[str]:
    """Every key a snapshot holds (the optional ones too)."""
    return frozenset(snapshot(Referee(Table(), RULES_NAMES[0])))


def _optional(data: dict[str, Any], key: str, read: Callable[[dict[str, Any], str], T]) -> T | None:
    """A key journals from before it existed lack: absent or null is None."""
    return fields.nullable(data, key, read) if key in data else None


def _house_rules(rules: Rules, data: dict[str, Any]) -> Rules:
    """``rules`` with the house rules the game was saved with (journals from
    before they were saved have none: the table's stand)."""
    if "repetition" in data:
        low, high = REPETITION
        repetition = _optional(data, "repetition", lambda d, k: fields.integer(d, k, low, high))
        rules = dataclasses.replace(rules, repetition=repetition)
    if "both_lines" in data:
        side = fields.one_of(data, "both_lines", BOTH_LINES)
        rules = dataclasses.replace(rules, both_lines=cast(Literal["popper", "opponent"], side))
    return rules


def _colour(data: dict[str, Any], key: str) -> Colour:
    return Colour(fields.one_of(data, key, COLOURS))


def _remote(referee: Referee, data: Any) -> None:
    """The remote player's seat: its invitation and the move it asked for."""
    if not isinstance(data, dict):
        raise fields.FieldError('"remote" is not an object')
    try:
        referee.remote.restore(data)
    except (KeyError, TypeError, ValueError) as error:
        raise fields.FieldError(f'"remote" is not a remote seat ({error})') from None
    move = referee.remote.move
    if move is not None and not referee.game.is_legal(move):
        raise ValueError(f"the remote player's move {move} does not fit the game")


def _problem(data: dict[str, Any]) -> Text | None:
    """The referee's problem sentence: its message when the journal has it
    (older journals have only the English), which must say that English."""
    english = fields.nullable(data, "problem", lambda d, k: fields.text(d, k, TEXT_LIMIT))
    text = _optional(data, "problem_text", lambda d, k: Text.from_data(d[k]))
    if text is None:
        return None if english is None else Text([english])
    if text != english:
        raise fields.FieldError('"problem_text" does not say what "problem" says')
    return text
