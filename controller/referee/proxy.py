"""A seat whose moves a person at the grid makes for a player who is not
there: the computer (:mod:`controller.referee.computer_seat`) or a remote
player (:mod:`controller.referee.remote_seat`).

Both work alike on the board: while the player chooses, its turn light is on
and no column is lit; then its move is lit in its colour, a person makes it,
and the referee checks it like any other move (a different disc is a mistake,
repaired step by step). What differs is who chooses and the sentences, which
each kind of seat gives.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.i18n.text import Text
from controller.referee import commentary
from engine import Game, Move
from engine.colour import Colour


class ProxySeat:
    """One colour of a game whose moves are chosen away from the grid.

    ``move`` is the move chosen that a person is still to make for it."""

    # the mistake's kind when a person moves before the choice, or moves otherwise
    EARLY = "proxy-early"
    OTHER = "proxy-other"

    def __init__(self) -> None:
        self.move: Move | None = None

    def colour(self) -> Colour | None:
        """The colour this seat plays in the game in progress (``None``: none)."""
        raise NotImplementedError

    def to_move(self, game: Game) -> bool:
        colour = self.colour()
        return colour is not None and not game.is_over() and game.to_move is colour

    def pending(self, game: Game) -> Move | None:
        """The move the board waits for a person to make for this seat."""
        return self.move if self.to_move(game) else None

    def refusal(self, move: Move, column: Callable[[Move], int]) -> tuple[str, Text]:
        """The mistake's kind and sentence when a person made ``move`` on this
        seat's turn and it is not the seat's (``column`` gives a move's
        physical column)."""
        chosen = self.move
        if chosen is None:
            return self.EARLY, self.early(commentary.physical(move, column(move)))
        return self.OTHER, self.other(chosen, column(chosen), move, column(move))

    # -- the sentences of each kind of seat -------------------------------------------

    def early(self, move: Text) -> Text:
        """A person made ``move`` before the seat chose one."""
        raise NotImplementedError

    def other(self, chosen: Move, chosen_column: int, move: Move, column: int) -> Text:
        """A person made ``move`` where the seat chose ``chosen`` (each with
        its physical column)."""
        raise NotImplementedError

    def choosing(self, colour: Colour) -> Text:
        """The board's status while the seat chooses."""
        raise NotImplementedError

    def showing(self, move: Text) -> Text:
        """The board's status with the seat's move lit (``move``: what to do)."""
        raise NotImplementedError

    def no_hint(self) -> Text:
        """Why there is no hint on this seat's turn."""
        raise NotImplementedError
