"""The two players' colours."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum


class Colour(StrEnum):
    """A disc's colour, which is also the player who owns it.

    >>> Colour.RED.other
    <Colour.YELLOW: 'yellow'>
    >>> Colour.YELLOW.letter
    'Y'
    """

    RED = "red"
    YELLOW = "yellow"

    @property
    def other(self) -> Colour:
        return Colour.YELLOW if self is Colour.RED else Colour.RED

    @property
    def letter(self) -> str:
        return "R" if self is Colour.RED else "Y"

    @property
    def title(self) -> str:  # type: ignore[override]
        return "Red" if self is Colour.RED else "Yellow"

    @classmethod
    def from_letter(cls, letter: str) -> Colour:
        if letter == "R":
            return cls.RED
        if letter == "Y":
            return cls.YELLOW
        raise ValueError(f"{letter!r} is not a disc colour; use R or Y")

    def __str__(self) -> str:
        return self.value


def picture(columns: Sequence[Sequence[Colour]], height: int) -> list[str]:
    """Columns of discs (bottom up) as a board picture: rows top first, one
    character a cell, ``.`` empty.

    >>> picture([[Colour.RED, Colour.YELLOW], [], [Colour.YELLOW]], 2)
    ['Y..', 'R.Y']
    """
    return [
        "".join(c[r].letter if r < len(c) else "." for c in columns)
        for r in reversed(range(height))
    ]
