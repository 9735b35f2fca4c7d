"""The rules engine: every game of ``docs/rules.md`` on bitboards.

No I/O, no threads, no clocks; everything else in popref builds on it.

>>> import engine
>>> game = engine.new_game("classic")
>>> game.play("4"); game.play(engine.Move.drop(4))
>>> game.to_move, len(game.legal_moves())
(<Colour.RED: 'red'>, 7)
"""

from engine.colour import Colour
from engine.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    NotAMoveError,
    PositionError,
    RecordError,
    RulesError,
)
from engine.game import Game
from engine.move import Move, MoveKind, parse_move, parse_moves
from engine.phase import Phase
from engine.records import read_record, write_record
from engine.rules import RULES_NAMES, Rules, parse_size, rules_named
from engine.start import game_from_position, new_game

__all__ = [
    "RULES_NAMES",
    "Colour",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "MoveError",
    "MoveKind",
    "NotAMoveError",
    "Phase",
    "PositionError",
    "RecordError",
    "Rules",
    "RulesError",
    "game_from_position",
    "new_game",
    "parse_move",
    "parse_moves",
    "parse_size",
    "read_record",
    "rules_named",
    "write_record",
]
