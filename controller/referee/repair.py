"""The shortest way back from the grid the players have to the one the game
needs, using only what a gravity grid allows.

A disc can leave a column only from the bottom (a pop), a disc can join it only
at the top (a drop), and the slider empties everything at once. So a column
``have`` becomes ``want`` by popping the fewest bottom discs that leave a
prefix of ``want``, then dropping the rest of ``want`` in order. The slider is
chosen instead when emptying everything and rebuilding is shorter.

A disc of unknown colour (``None``) matches nothing, so it is always popped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.colour import Colour

Column = Sequence[Colour | None]


@dataclass(frozen=True, slots=True)
class PopStep:
    """Pop the bottom disc of ``column`` (physical, 1-based)."""

    column: int


@dataclass(frozen=True, slots=True)
class DropStep:
    """Drop a disc of ``colour`` into ``column`` (physical, 1-based)."""

    column: int
    colour: Colour


@dataclass(frozen=True, slots=True)
class SliderStep:
    """Open the slider (emptying the grid), then close it again."""


Step = PopStep | DropStep | SliderStep


def pops_needed(have: Column, want: Column) -> int:
    """The fewest bottom discs to pop from ``have`` so the rest starts ``want``.

    >>> R, Y = Colour.RED, Colour.YELLOW
    >>> pops_needed([R, Y, R], [R, Y])
    2
    >>> pops_needed([Y, R], [R, Y])
    1
    """
    for popped in range(len(have) + 1):
        rest = have[popped:]
        if len(rest) <= len(want) and all(
            a is not None and a == b for a, b in zip(rest, want, strict=False)
        ):
            return popped
    return len(have)  # unreachable: popping everything always works


def column_steps(column: int, have: Column, want: Column) -> list[Step]:
    """The steps that turn one physical column into ``want``, in order."""
    popped = pops_needed(have, want)
    kept = len(have) - popped
    steps: list[Step] = [PopStep(column) for _ in range(popped)]
    steps.extend(DropStep(column, colour) for colour in want[kept:] if colour is not None)
    return steps


def plan(have: Sequence[Column], want: Sequence[Column]) -> list[Step]:
    """Every step, column by column from the left, or the slider and a rebuild
    when that is shorter. An empty list means the grids agree.

    >>> R, Y = Colour.RED, Colour.YELLOW
    >>> plan([[R, R], []], [[R], [Y]])
    [PopStep(column=1), DropStep(column=2, colour=<Colour.YELLOW: 'yellow'>)]
    """
    by_column: list[Step] = []
    for index, (h, w) in enumerate(zip(have, want, strict=True)):
        by_column.extend(column_steps(index + 1, h, w))
    if not by_column:
        return []
    rebuild: list[Step] = [SliderStep()]
    for index, w in enumerate(want):
        rebuild.extend(DropStep(index + 1, colour) for colour in w if colour is not None)
    return rebuild if len(rebuild) < len(by_column) else by_column
