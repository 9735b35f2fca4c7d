"""Bitboards: one int per colour, column-major, one sentinel bit per column.

Cell (column i, row r), both 0-based from the bottom left, is bit
``i * stride + r`` with ``stride = height + 1``. The always-empty sentinel
row stops runs from wrapping into the next column, so every direction is a
plain shift: 1 (vertical), ``stride`` (horizontal), ``stride + 1`` and
``stride - 1`` (the diagonals).

>>> layout = Layout.of(7, 6)
>>> board = sum(layout.bit(column, 0) for column in range(4))
>>> has_line(board, 4, layout.directions)
True
>>> sorted(layout.cells(line_cells(board, 4, layout.directions)))
[(1, 1), (2, 1), (3, 1), (4, 1)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache


@dataclass(frozen=True)
class Layout:
    """The masks of a ``width`` x ``height`` board."""

    width: int
    height: int
    stride: int = field(init=False)
    directions: tuple[int, ...] = field(init=False)
    column_masks: tuple[int, ...] = field(init=False)  # 0-based columns
    bottom: int = field(init=False)  # every bottom-row cell
    full: int = field(init=False)  # every cell

    def __post_init__(self) -> None:
        stride = self.height + 1
        column = (1 << self.height) - 1
        set_ = object.__setattr__  # frozen: derived fields are set once here
        set_(self, "stride", stride)
        set_(self, "directions", (1, stride, stride + 1, stride - 1))
        set_(self, "column_masks", tuple(column << (i * stride) for i in range(self.width)))
        set_(self, "bottom", sum(1 << (i * stride) for i in range(self.width)))
        set_(self, "full", sum(self.column_masks))

    @staticmethod
    @cache
    def of(width: int, height: int) -> Layout:
        """The shared layout for a board size."""
        return Layout(width, height)

    def bit(self, column: int, row: int) -> int:
        """The bit of a cell; ``column`` and ``row`` 0-based."""
        return 1 << (column * self.stride + row)

    def cells(self, board: int) -> Iterator[tuple[int, int]]:
        """The ``(column, row)`` of every set bit, both 1-based."""
        while board:
            low = board & -board
            index = low.bit_length() - 1
            yield (index // self.stride + 1, index % self.stride + 1)
            board ^= low


def line_starts(board: int, k: int, shift: int) -> int:
    """Bits where a run of ``k`` set bits begins, stepping by ``shift``.

    Runs are doubled (2, 4, 8, ...) and the last step overlaps, so any ``k``
    takes about log2(k) + 1 shifts.
    """
    run = 1
    while run * 2 <= k:
        board &= board >> (run * shift)
        run *= 2
    if run < k:
        board &= board >> ((k - run) * shift)
    return board


def has_line(board: int, k: int, directions: tuple[int, ...]) -> bool:
    """Whether ``board`` holds ``k`` or more in a row in any direction."""
    return any(line_starts(board, k, shift) for shift in directions)


def line_cells(board: int, k: int, directions: tuple[int, ...]) -> int:
    """Every bit of ``board`` that is part of a run of ``k`` or more."""
    cells = 0
    for shift in directions:
        starts = line_starts(board, k, shift)
        for step in range(k):
            cells |= starts << (step * shift)
    return cells


def pop_column(board: int, mask: int, bottom: int) -> int:
    """``board`` with the bottom cell of one column removed and the rest fallen.

    ``mask`` is the column's mask and ``bottom`` its bottom bit.
    """
    return (board & ~mask) | ((board & mask & ~bottom) >> 1)
