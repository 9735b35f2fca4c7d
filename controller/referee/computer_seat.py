"""The computer opponent's place at the referee's table: whom it plays in the
next game, its seat in this one, the move it chose that a person is to make
for it (a :class:`~controller.referee.proxy.ProxySeat`). :class:`controller.referee.core.Referee`
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

from controller.i18n.text import Text, _t
from controller.i18n.words import player
from controller.referee import commentary
from controller.referee.proxy import ProxySeat
from controller.referee.seat import Seat
from engine import Game, Move
from engine.colour import Colour


class ComputerSeat(ProxySeat):
    """The computer's side of one table, game after game."""

    EARLY = "computer-thinking"
    OTHER = "not-computer-move"

    def __init__(self, level: int, base_seed: int, colour: Colour | None = None) -> None:
        super().__init__()
        self.base_seed = base_seed
        # its colour and level for the next game, and its seat in this one
        self.next_colour = colour
        self.next_level = level
        self.seat: Seat | None = None

    def colour(self) -> Colour | None:
        return self.seat.colour if self.seat is not None else None

    def seat_for(self, colour: Colour | None, game_number: int) -> Seat | None:
        """The computer's seat in game ``game_number``, playing ``colour``."""
        if colour is None:
            return None
        return Seat.for_game(colour, self.next_level, self.base_seed, game_number)

    def sit(self, game_number: int) -> None:
        """A new game: the computer takes the seat chosen for it, with no move yet."""
        self.seat = self.seat_for(self.next_colour, game_number)
        self.move = None

    def leave(self, colour: Colour) -> bool:
        """A remote player takes ``colour``: the computer gives it up, in this
        game and the next; whether it played it."""
        played = self.colour() is colour
        if played:
            self.seat = None
            self.move = None
        if self.next_colour is colour:
            self.next_colour = None
            played = True
        return played

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

    def early(self, move: Text) -> Text:
        return _t(
            "The {move} came while the computer was still thinking; wait for its move to light up.",
            move=move,
        )

    def other(self, chosen: Move, chosen_column: int, move: Move, column: int) -> Text:
        return commentary.instead(chosen, chosen_column, move, column)

    def choosing(self, colour: Colour) -> Text:
        return _t("The computer ({colour}) is thinking.", colour=player(colour))

    def showing(self, move: Text) -> Text:
        return _t("The computer's move: {move}.", move=move)

    def no_hint(self) -> Text:
        return _t("No hint: it is the computer's move.")
