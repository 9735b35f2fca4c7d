"""The computer opponent as the referee sees it: who it plays, at which level,
with which seed. Plain data, no search (that runs in the daemon's
:mod:`controller.computer.thinker`).

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

from controller.i18n.text import Text, _t
from controller.i18n.words import plays_with
from controller.referee import fields
from engine.colour import Colour
from engine.solver.opponent import MAX_LEVEL as MAX_LEVEL  # the engine states the range
from engine.solver.opponent import MIN_LEVEL as MIN_LEVEL

SEED_BYTES = 4  # a game's seed is this many bytes of a digest
SEED_LIMIT = 2 ** (8 * SEED_BYTES) - 1
COLOURS = frozenset(colour.value for colour in Colour)  # as the journal names them
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
        return cls(colour, level, int.from_bytes(digest[:SEED_BYTES], "big"))

    def data(self) -> dict[str, Any]:
        return {"colour": self.colour.value, "level": self.level, "seed": self.seed}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Seat:
        """The seat :meth:`data` wrote, exactly; ``ValueError`` for anything
        else (a level of ``"5"``, ``true`` or ``1.9`` is not a level)."""
        if not isinstance(data, dict):
            raise fields.FieldError("the computer's seat is not an object")
        fields.only(data, ("colour", "level", "seed"), "the computer's seat")
        colour = fields.one_of(data, "colour", COLOURS)
        level = fields.integer(data, "level", MIN_LEVEL, MAX_LEVEL)
        return cls(Colour(colour), level, fields.integer(data, "seed", 0, SEED_LIMIT))


def next_seat(colour: Colour | None) -> Colour | None:
    """The computer's colour after a double press between games."""
    return SEATS[(SEATS.index(colour) + 1) % len(SEATS)]


def describe(colour: Colour | None) -> Text:
    """``"two players"`` or ``"the computer plays Yellow"``."""
    if colour is None:
        return _t("two players")
    return _t("the computer plays {colour}", colour=plays_with(colour))
