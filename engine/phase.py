"""Where a game stands: the phases of :class:`engine.game.Game`.

Kept apart from the game so that what reads a game's public state (the
reasons of :mod:`engine.explain`) needs no import of the game itself.
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a game stands."""

    PLAY = "play"  # Classic, Pop Out and 5-in-a-Row turns
    FILL = "fill"  # Pop 10: filling the grid
    POP = "pop"  # Pop 10: the player to move pops
    RETURN = "return"  # Pop 10: the popped, unscored disc must go back in
    OVER = "over"

    def __str__(self) -> str:
        return self.value
