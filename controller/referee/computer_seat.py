"""The computer opponent's place at the referee's table: whom it plays in the
next game, its seat in this one, the move it chose that a person is to make
for it, and whether a hint may be given. :class:`controller.referee.core.Referee`
holds one and delegates to it; the search itself runs in the daemon
(:mod:`controller.computer.thinking`).

>>> from engine import new_game
>>> chair = ComputerSeat(level=5, base_seed=0, colour=Colour.YELLOW)
>>> chair.sit(game_number=1)
>>> game = new_game("classic")
>>> chair.to_move(game)
False
>>> game.play("4")
>>> chair.to_move(game), chair.needs(game, blocked=False) is chair.seat
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable

from controller.i18n.text import Text, _t
from controller.referee import commentary
from controller.referee.seat import Seat
from engine import Game, Move
from engine.colour import Colour


class ComputerSeat:
    """The computer's side of one table, game after game."""

    def __init__(self, level: int, base_seed: int, colour: Colour | None = None) -> None:
        self.base_seed = base_seed
        # its colour and level for the next game, its seat in this one, and
        # the move it chose that a person is to make for it
        self.next_colour = colour
        self.next_level = level
        self.seat: Seat | None = None
        self.move: Move | None = None

    def seat_for(self, colour: Colour | None, game_number: int) -> Seat | None:
        """The computer's seat in game ``game_number``, playing ``colour``."""
        if colour is None:
            return None
        return Seat.for_game(colour, self.next_level, self.base_seed, game_number)

    def sit(self, game_number: int) -> None:
        """A new game: the computer takes the seat chosen for it, with no move yet."""
        self.seat = self.seat_for(self.next_colour, game_number)
        self.move = None

    def to_move(self, game: Game) -> bool:
        seat = self.seat
        return seat is not None and not game.is_over() and game.to_move is seat.colour

    def needs(self, game: Game, blocked: bool) -> Seat | None:
        """The computer's seat when it must choose a move now: its turn, no move
        chosen yet, and not ``blocked`` (the grid emptied by the slider)."""
        if not self.to_move(game) or self.move is not None:
            return None
        if blocked:
            return None
        return self.seat

    def chose(self, game: Game, move: Move, blocked: bool) -> Seat:
        """Take the computer's choice; its seat. Raises ``ValueError`` when
        the computer is not to move or the move is illegal (a journal that
        does not fit)."""
        seat = self.needs(game, blocked)
        if seat is None:
            raise ValueError(f"the computer chose {move}, but it is not choosing a move now")
        reason = game.why_illegal(move)
        if reason is not None:
            raise ValueError(f"the computer's move {move} is not allowed: {reason}")
        self.move = move
        return seat

    def refusal(self, move: Move, column: Callable[[Move], int]) -> tuple[str, Text]:
        """The mistake's kind and sentence when a person made ``move`` on the
        computer's turn and it is not the computer's (``column`` gives a
        move's physical column)."""
        chosen = self.move
        if chosen is None:
            sentence = _t(
                "The {move} came while the computer was still thinking; "
                "wait for its move to light up.",
                move=commentary.physical(move, column(move)),
            )
            return "computer-thinking", sentence
        return "not-computer-move", commentary.instead(chosen, column(chosen), move, column(move))

    def no_hint(self, game: Game, in_step: bool) -> Text | None:
        """Why the player to move gets no hint now, or ``None`` if they may."""
        if game.is_over():
            return _t("No hint: the game is over.")
        if self.to_move(game):
            return _t("No hint: it is the computer's move.")
        if not in_step:
            return _t("No hint while the grid does not match the game.")
        return None
