"""The physical set-up the referee works with, and its belief of the grid's discs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.colour import Colour


@dataclass(frozen=True, slots=True)
class Table:
    """The physical set-up the referee works with.

    ``simultaneous`` is the shortest time in seconds between two players'
    drops: a second disc sooner than that after the first is two discs at once.
    """

    columns: int = 7
    rows: int = 6
    colour_sensing: bool = False
    simultaneous: float = 0.5
    repetition: int | None = None
    both_lines: Literal["popper", "opponent"] = "popper"
    computer_level: int = 5
    computer_seed: int = 0
    # this grid joined another's game ([remote] join): a linked game in
    # progress ends on the grid that invited, never by a new game here
    joined: bool = False


Grid = list[list[Colour | None]]
