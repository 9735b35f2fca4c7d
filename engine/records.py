"""Game records: a few ``Key: value`` header lines, a blank line, the moves.

::

    Rules: pop10
    Size: 7x6
    Result: *

    4 3 5 2 6 1 7

Games from a position add ``Start:`` (rows top first, separated by ``/``),
``To-Move:`` and, in Pop 10, ``Scores: red yellow``. Options that differ
from the preset are written too (``Repetition: 3``, ``Both-Lines: opponent``,
...). ``Result`` is ``red``, ``yellow``, ``draw`` or ``*`` (not over).
Lines starting with ``#`` are comments.

>>> from engine import new_game
>>> game = new_game("classic")
>>> for move in "4 4 3".split():
...     game.play(move)
>>> print(write_record(game))
Rules: classic
Size: 7x6
Result: *
<BLANKLINE>
4 4 3
<BLANKLINE>
>>> read_record(write_record(game)).moves == game.moves
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from engine.colour import Colour
from engine.errors import MoveError, RecordError, RulesError
from engine.game import Game
from engine.move import parse_move, split_moves
from engine.rules import PRESETS, Rules, parse_size, rules_named
from engine.start import game_from_position, new_game

MOVES_PER_LINE = 20


def _yes_no(text: str) -> bool:
    if text.lower() in ("yes", "no"):
        return text.lower() == "yes"
    raise ValueError(f"write yes or no, not {text!r}")


def _repetition(text: str) -> int | None:
    return None if text.lower() in ("off", "0") else int(text)


# header -> (Rules field, reader, writer) for options beyond name and size
OPTIONS: dict[str, tuple[str, Callable[[str], Any], Callable[[Any], str]]] = {
    "Line": ("line", int, str),
    "Pops": ("pops", _yes_no, lambda v: "yes" if v else "no"),
    "Pop10": ("pop10", _yes_no, lambda v: "yes" if v else "no"),
    "Strips": ("strips", _yes_no, lambda v: "yes" if v else "no"),
    "Repetition": ("repetition", _repetition, lambda v: "off" if v is None else str(v)),
    "Both-Lines": ("both_lines", str, str),
    "Target": ("target", int, str),
}
HEADERS = ("Rules", "Size", *OPTIONS, "Start", "To-Move", "Scores", "Result")


def write_record(game: Game) -> str:
    """The record of ``game``: its rules, start, moves and result."""
    rules = game.rules
    lines = [f"Rules: {rules.name}", f"Size: {rules.width}x{rules.height}"]
    preset = PRESETS.get(rules.name, Rules())
    for header, (field, _read, write) in OPTIONS.items():
        if getattr(rules, field) != getattr(preset, field):
            lines.append(f"{header}: {write(getattr(rules, field))}")
    start = _start_of(game)
    if start is not None:
        lines.append(f"Start: {'/'.join(start.rows())}")
        lines.append(f"To-Move: {start.to_move or 'red'}")
        scores = start.scores
        if rules.pop10:
            lines.append(f"Scores: {scores[Colour.RED]} {scores[Colour.YELLOW]}")
    lines.append(f"Result: {game.result or '*'}")
    lines.append("")
    tokens = [str(move) for move in game.moves]
    for at in range(0, len(tokens), MOVES_PER_LINE):
        lines.append(" ".join(tokens[at : at + MOVES_PER_LINE]))
    return "\n".join(lines) + "\n"


def _start_of(game: Game) -> Game | None:
    """The game's starting position, or None when it began on the empty board."""
    start = game.copy()
    while start.moves:
        start.undo()
    fresh = new_game(game.rules)
    if start.position_key() == fresh.position_key():
        return None
    return start


def read_record(text: str) -> Game:
    """Replay a record and check its stated result; errors name the line."""
    lines = text.splitlines()
    headers: dict[str, tuple[str, int]] = {}
    body_at = len(lines)
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        if not stripped:
            if headers:
                body_at = number
                break
            continue
        key, sep, value = stripped.partition(":")
        key = key.strip().title()
        if not sep or key not in HEADERS:
            if headers:
                body_at = number - 1
                break
            raise RecordError(f"line {number}: a record starts with a 'Rules: NAME' line")
        if key in headers:
            raise RecordError(f"line {number}: {key} is given twice")
        headers[key] = (value.strip(), number)
    if "Rules" not in headers:
        raise RecordError("line 1: a record starts with a 'Rules: NAME' line")
    game = _start_game(headers)
    body = "\n".join(line for line in lines[body_at:] if not line.lstrip().startswith("#"))
    # split_moves counts lines of the body; shift them to the file's numbering
    kept = [i for i, line in enumerate(lines[body_at:]) if not line.lstrip().startswith("#")]
    for number, (token, body_line) in enumerate(split_moves(body, game.rules), start=1):
        where = body_at + kept[body_line - 1] + 1
        try:
            game.play(parse_move(token))
        except MoveError as error:
            raise RecordError(f"line {where}: move {number} ({token}): {error}") from None
    stated, result_line = headers.get("Result", ("*", 0))
    actual = str(game.result or "*")
    if stated.lower() != actual:
        place = f"line {result_line}" if result_line else "the record"
        raise RecordError(
            f"{place}: the record says the result is {stated!r}, but the moves give {actual!r}"
        )
    return game


def _start_game(headers: dict[str, tuple[str, int]]) -> Game:
    def fail(key: str, reason: object) -> RecordError:
        return RecordError(f"line {headers[key][1]}: {key}: {reason}")

    name = headers["Rules"][0]
    try:
        rules = rules_named(name)
        if "Size" in headers:
            rules = rules_named(name, parse_size(headers["Size"][0]))
    except RulesError as error:
        raise fail("Size" if name.lower() in PRESETS else "Rules", error) from None
    for header, (field, read, _write) in OPTIONS.items():
        if header in headers:
            try:
                rules = dataclasses.replace(rules, **{field: read(headers[header][0])})
            except (RulesError, ValueError) as error:
                raise fail(header, error) from None
    if "Start" not in headers:
        for key in ("To-Move", "Scores"):
            if key in headers:
                raise fail(key, "only a game with a Start position has one")
        return new_game(rules)
    rows = headers["Start"][0].split("/")
    to_move = headers.get("To-Move", ("red", 0))[0].lower()
    try:
        scores = tuple(int(n) for n in headers.get("Scores", ("0 0", 0))[0].split())
    except ValueError:
        raise fail("Scores", "write two whole numbers: red yellow") from None
    try:
        game = game_from_position(rules, rows, to_move, scores)  # type: ignore[arg-type]
    except RulesError as error:
        raise fail("Start", error) from None
    if "Size" in headers and game.rules.size != rules.size:
        width, height = game.rules.size
        raise fail(
            "Start", f"the position is {width}x{height} but Size says {rules.width}x{rules.height}"
        )
    return game
