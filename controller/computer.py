"""The computer opponent as the referee sees it: who it plays, at which level,
with which seed. Plain data, no search (that runs in the daemon's
:mod:`controller.thinker`).

A game's seed is derived from the configured seed and the game's number, and
kept in the journal's snapshot with the game, so a resumed game (even one
resumed in the middle of the computer's thought) chooses the same moves.

>>> seat = Seat.for_game(Colour.YELLOW, level=3, base_seed=7, game_number=2)
>>> seat == Seat.from_data(seat.data())
True
>>> seat.seed == Seat.for_game(Colour.YELLOW, 3, 7, 2).seed
True
>>> seat.seed == Seat.for_game(Colour.YELLOW, 3, 7, 3).seed
False
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from controller.i18n import Text, _t
from controller.words import player
from engine.colour import Colour
from engine.solver.opponent import MAX_LEVEL as MAX_LEVEL  # the engine states the range
from engine.solver.opponent import MIN_LEVEL as MIN_LEVEL

# A press of the mode button this soon after the last one makes a double press.
DOUBLE_PRESS = 0.6
# What a double press between games cycles through: nobody, then the computer as
# Yellow (it moves second), then as Red.
SEATS: tuple[Colour | None, ...] = (None, Colour.YELLOW, Colour.RED)


@dataclass(frozen=True, slots=True)
class Seat:
    """The computer's place in one game."""

    colour: Colour
    level: int
    seed: int

    @classmethod
    def for_game(cls, colour: Colour, level: int, base_seed: int, game_number: int) -> Seat:
        digest = hashlib.sha256(f"popref/{base_seed}/{game_number}".encode()).digest()
        return cls(colour, level, int.from_bytes(digest[:4], "big"))

    def data(self) -> dict[str, Any]:
        return {"colour": self.colour.value, "level": self.level, "seed": self.seed}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Seat:
        level = int(data["level"])
        if not MIN_LEVEL <= level <= MAX_LEVEL:
            raise ValueError(f"computer level {level} is not {MIN_LEVEL} to {MAX_LEVEL}")
        return cls(Colour(data["colour"]), level, int(data["seed"]))


def next_seat(colour: Colour | None) -> Colour | None:
    """The computer's colour after a double press between games."""
    return SEATS[(SEATS.index(colour) + 1) % len(SEATS)]


def describe(colour: Colour | None) -> Text:
    """``"two players"`` or ``"the computer plays Yellow"``."""
    if colour is None:
        return _t("two players")
    return _t("the computer plays {colour}", colour=player(colour))
