"""A Classic position on a bitboard, as the exact solver and the book keep it.

A board of ``width`` columns of ``height + 1`` bits each (the spare top bit
keeps columns apart): the mover's discs, all discs and the number of moves.
Its :meth:`Position.key` is unique on its board size.

>>> position = Position.from_columns(7, 6, [4, 4, 3])
>>> position.moves, position.can_play(4), position.wins_with(2)
(3, True, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.solver import _pycore


def fits(width: int, height: int) -> bool:
    """Whether a board of this size fits the solver's 64-bit bitboards."""
    return width * (height + 1) <= 64 and width * height <= 100


@dataclass(frozen=True)
class Position:
    """A Classic position: the mover's discs, all discs, the number of moves.

    Columns are 1-based in :meth:`play` and in every answer, as in the notation.
    """

    width: int
    height: int
    current: int
    mask: int
    moves: int

    @classmethod
    def empty(cls, width: int, height: int) -> Position:
        """The empty board."""
        return cls(width, height, 0, 0, 0)

    @classmethod
    def from_key(cls, width: int, height: int, key: int) -> Position:
        """The position whose :meth:`key` is ``key``; ValueError where there is none.

        >>> position = Position.from_columns(7, 6, [4, 4, 3])
        >>> Position.from_key(7, 6, position.key()) == position
        True
        >>> Position.from_key(7, 6, 0b1111111)  # every bit of column 1: seven discs
        Traceback (most recent call last):
        ...
        ValueError: key 127 is no 7x6 position: column 1 holds more than 6 discs
        """
        stride = height + 1
        if key < 0 or key >> (width * stride):
            raise ValueError(f"key {key} is no {width}x{height} position: it is off the board")
        current = mask = 0
        for c in range(width):
            # the column's part of the key is its mask (k discs: k low bits)
            # plus the mover's discs among them: 2**k - 1 to 2**(k + 1) - 2
            part = key >> (c * stride) & ((1 << stride) - 1)
            discs = (part + 1).bit_length() - 1
            if discs > height:
                raise ValueError(
                    f"key {key} is no {width}x{height} position: "
                    f"column {c + 1} holds more than {height} discs"
                )
            filled = (1 << discs) - 1
            mask |= filled << (c * stride)
            current |= (part - filled) << (c * stride)
        moves = mask.bit_count()
        if (
            current.bit_count() != moves // 2
        ):  # the mover has dropped as often as the other, or once less
            raise ValueError(f"key {key} is no {width}x{height} position: turns do not alternate")
        return cls(width, height, current, mask, moves)

    @classmethod
    def from_columns(cls, width: int, height: int, columns: Iterable[int]) -> Position:
        """The position after dropping into ``columns`` (1-based) in turn."""
        position = cls.empty(width, height)
        for column in columns:
            position = position.play(column)
        return position

    def column_cells(self, column: int) -> int:
        """The bits of ``column``'s cells."""
        return ((1 << self.height) - 1) << ((column - 1) * (self.height + 1))

    def can_play(self, column: int) -> bool:
        """Whether ``column`` has room."""
        top = 1 << (self.height - 1 + (column - 1) * (self.height + 1))
        return 1 <= column <= self.width and not self.mask & top

    def play(self, column: int) -> Position:
        """The position after the mover drops into ``column``."""
        if not self.can_play(column):
            raise ValueError(f"column {column} is full or off the board")
        bottom = 1 << ((column - 1) * (self.height + 1))
        move = (self.mask + bottom) & self.column_cells(column)
        return Position(
            self.width, self.height, self.current ^ self.mask, self.mask | move, self.moves + 1
        )

    def wins_with(self, column: int) -> bool:
        """Whether dropping into ``column`` completes a line for the mover."""
        board = _pycore.board_of(self.width, self.height)
        cell = (self.mask + (1 << ((column - 1) * (self.height + 1)))) & self.column_cells(column)
        return bool(board.winning_cells(self.current, self.mask) & cell)

    def key(self) -> int:
        """A number unique to this position on its board size."""
        return self.current + self.mask

    def mirrored(self) -> Position:
        """The position reflected left to right."""
        stride = self.height + 1
        column = (1 << stride) - 1
        current = mask = 0
        for c in range(self.width):
            shift = (self.width - 1 - 2 * c) * stride
            mine = self.current & (column << (c * stride))
            discs = self.mask & (column << (c * stride))
            if shift >= 0:
                current, mask = current | mine << shift, mask | discs << shift
            else:
                current, mask = current | mine >> -shift, mask | discs >> -shift
        return Position(self.width, self.height, current, mask, self.moves)

    @property
    def centre_first(self) -> tuple[int, ...]:
        """The columns, centre first then outwards, left before right."""
        w = self.width
        return tuple(w // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2) + 1 for i in range(w))


__all__ = ["Position", "fits"]
