"""Reading positions for ``popref solve`` and ``popref bestmove``, one a line.

The first whitespace-separated field of a line is the position: a compact
digit run as in the Connect Four test sets (Classic, at most 9 columns), or
move tokens joined by commas (``4,4,p4``); ``-`` or an empty line is the
start position. The rest of the line is ignored.

>>> from engine import rules_named
>>> game = read_position("4,4,p4 anything", rules_named("popout"), 1)
>>> [str(m) for m in game.moves]
['4', '4', 'p4']
>>> try:
...     read_position("4444444", rules_named("classic"), 7)
... except PositionInputError as error:
...     print(error)
line 7 (4444444): move 7 (4): column 4 is full
"""

from __future__ import annotations

from engine import Game, MoveError, NotAMoveError, Rules, new_game, parse_move
from engine.move import digit_runs_allowed


class PositionInputError(Exception):
    """A line that is not a playable position; the message names the line."""


def first_field(line: str) -> str:
    """The position field of a line (``-`` for the start position)."""
    fields = line.split()
    return fields[0] if fields else "-"


def read_position(line: str, rules: Rules, number: int) -> Game:
    """The game after the moves of ``line``'s first field; the game must go on."""
    field = first_field(line)
    game = new_game(rules)
    if field != "-":
        tokens = field.split(",")
        if len(tokens) == 1 and field.isdigit() and digit_runs_allowed(rules):
            tokens = list(field)
        for index, token in enumerate(tokens, start=1):
            try:
                game.play(parse_move(token))
            except MoveError as error:
                reason = error.reason if isinstance(error, NotAMoveError) else str(error)
                raise PositionInputError(
                    f"line {number} ({field}): move {index} ({token}): {reason}"
                ) from None
    if game.is_over():
        raise PositionInputError(
            f"line {number} ({field}): the game is over; give a position with a move to play"
        )
    return game
