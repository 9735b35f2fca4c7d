"""The engine's exceptions: narrow, each with a one-line message for people.

Every exception is a :class:`ValueError`, so a caller that only wants to know
"was that input bad?" can catch one thing; callers that care catch the narrow
class.

>>> from engine import new_game, IllegalMoveError
>>> game = new_game("classic")
>>> try:
...     game.play("p4")
... except IllegalMoveError as error:
...     print(error)
pops are not allowed in Classic
"""

from __future__ import annotations


class MoveError(ValueError):
    """A move that cannot be played: malformed, illegal, or too late."""


class InvalidMoveError(MoveError):
    """Text that is not a move in the notation of ``docs/rules.md``."""


class NotAMoveError(InvalidMoveError):
    """A token that is no move at all: ``reason`` says so without the token
    (``not a move: ...``), for a caller that names the token its own way.

    >>> error = NotAMoveError("x4", "columns are numbers")
    >>> str(error), error.reason
    ("'x4' is not a move: columns are numbers", 'not a move: columns are numbers')
    """

    def __init__(self, token: str, why: str) -> None:
        self.token = token
        self.reason = f"not a move: {why}"
        super().__init__(f"{token!r} is {self.reason}")


class IllegalMoveError(MoveError):
    """A well-formed move the rules do not allow in this position."""


class GameOverError(IllegalMoveError):
    """A move played after the game ended."""


class RulesError(ValueError):
    """An unknown rules name or an impossible combination of rule options."""


class PositionError(RulesError):
    """A starting position that the rules cannot reach or do not accept."""


class RecordError(ValueError):
    """A game record that cannot be read; the message names the line."""
