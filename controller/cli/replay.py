"""``popref replay``: play moves through the rules engine and print the result.

``popref replay --rules pop10 "4 3 5 2"`` prints the board and the state;
``--json`` prints one JSON object instead; ``-`` reads the moves, or a whole
game record, from standard input. Bad input: exit status 2 and one line on
standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.cli.argtypes import rules_name
from engine import (
    RULES_NAMES,
    Colour,
    Game,
    MoveError,
    NotAMoveError,
    RecordError,
    RulesError,
    new_game,
    parse_move,
    parse_size,
    read_record,
    rules_named,
)
from engine.move import split_moves

PROG = "popref replay"


class ReplayError(Exception):
    """Bad input to ``popref replay``; the message is the whole error line."""


# --rules is required but for a game record, which names its own rules
USAGE = """\
%(prog)s --rules NAME [--size WxH] [--json] MOVES
       %(prog)s [--json] - < RECORD"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``popref replay``'s options on ``parser``."""
    parser.usage = USAGE
    parser.add_argument(
        "--rules",
        type=rules_name,
        metavar="NAME",
        help=f"the game: {', '.join(RULES_NAMES)} (a record read from - names its own)",
    )
    parser.add_argument(
        "--size", metavar="WxH", help="board size, edge strips included (default: the game's)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "moves",
        metavar="MOVES",
        help="moves separated by spaces, e.g. '4 4 p4'; - reads moves or a record from stdin",
    )


def run(args: argparse.Namespace) -> int:
    """Replay, print, and return the exit status (2 for bad input)."""
    try:
        game = _replay(args)
    except ReplayError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(describe(game)))
    else:
        print(render(game))
    return 0


def _replay(args: argparse.Namespace) -> Game:
    text: str = _read_stdin() if args.moves == "-" else args.moves
    if _looks_like_record(text):
        try:
            game = read_record(text)
        except RecordError as error:
            raise ReplayError(f"record: {error}") from None
        _check_record_matches(game, args)
        return game
    if args.rules is None and args.moves == "-":
        # meant as a record: say what one is (as _looks_like_record knows one),
        # not that --rules is missing
        raise ReplayError(
            "standard input is not a game record: a record starts with a 'Rules: NAME' "
            "line, as `popref games N` prints one (moves alone need --rules NAME)"
        )
    if args.rules is None:
        raise ReplayError(
            f"--rules is required: one of {', '.join(RULES_NAMES)} "
            "(only a game record names its own)"
        )
    try:
        size = parse_size(args.size) if args.size is not None else None
        game = new_game(rules_named(args.rules, size))
    except RulesError as error:
        raise ReplayError(str(error)) from None
    for number, (token, _line) in enumerate(split_moves(text, game.rules), start=1):
        try:
            game.play(parse_move(token))
        except MoveError as error:
            reason = error.reason if isinstance(error, NotAMoveError) else str(error)
            shown = token if len(token) <= 20 else f"{token[:20]}... ({len(token)} characters)"
            raise ReplayError(f"move {number} ({shown}): {reason}") from None
    return game


def _read_stdin() -> str:
    from controller.simulator.script import ScriptError, read_stdin

    try:
        return read_stdin("standard input")
    except ScriptError as error:
        raise ReplayError(str(error)) from None


def _looks_like_record(text: str) -> bool:
    """Whether *text* is a game record: its first line that is neither
    blank nor a comment is its ``Rules:`` header."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.lower().startswith("rules:")
    return False


def _check_record_matches(game: Game, args: argparse.Namespace) -> None:
    rules = game.rules
    if args.rules is not None and args.rules.strip().lower() != rules.name:
        raise ReplayError(f"the record is a game of {rules.name}, not {args.rules}")
    if args.size is not None:
        try:
            size = parse_size(args.size)
        except RulesError as error:
            raise ReplayError(str(error)) from None
        if size != rules.size:
            raise ReplayError(
                f"the record's board is {rules.width}x{rules.height}, not {args.size}"
            )


def describe(game: Game) -> dict[str, Any]:
    """The JSON object ``--json`` prints."""
    scores = game.scores
    return {
        "rules": game.rules.name,
        "size": [game.rules.width, game.rules.height],
        "board": list(game.rows()),
        "to_move": game.to_move.value if game.to_move else None,
        "result": str(game.result) if game.result is not None else None,
        "scores": {"red": scores[Colour.RED], "yellow": scores[Colour.YELLOW]},
        "phase": game.phase.value,
        "moves": [str(move) for move in game.moves],
        "legal_moves": [str(move) for move in game.legal_moves()],
        "pending_return": game.pending_return,
        "passed": game.passed.value if game.passed else None,
        "winning_cells": sorted([column, row] for column, row in game.winning_cells()),
    }


def render(game: Game) -> str:
    """The board and the state, for people."""
    rules = game.rules
    numbers = "".join(str(column % 10) for column in range(1, rules.width + 1))
    lines = [*game.rows(), numbers, ""]
    moves = len(game.moves)
    played = f"{moves} move{'' if moves == 1 else 's'}"
    lines.append(f"{rules.title} {rules.width}x{rules.height}, {played}")
    if game.result == "draw":
        lines.append("Result: draw")
    elif isinstance(game.result, Colour):
        lines.append(f"Result: {game.result.title} wins")
    else:
        assert game.to_move is not None
        lines.append(f"To move: {game.to_move.title} ({game.phase.value} phase)")
        lines.append(f"Legal: {' '.join(str(move) for move in game.legal_moves())}")
    if rules.pop10:
        scores = game.scores
        lines.append(f"Scores: Red {scores[Colour.RED]}, Yellow {scores[Colour.YELLOW]}")
    if game.passed is not None:
        lines.append(f"{game.passed.title} had no disc to pop and passed")
    return "\n".join(lines)
