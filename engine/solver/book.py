"""The opening book: best moves of the early Classic positions, solved ahead.

No search answers the first moves of Classic 7x6 in time, so the book holds,
for every position the computer can meet before ``depth`` moves (whichever
colour it plays and whatever the person answers, the computer playing the
book's own moves), the best move and the exact score. Positions are stored
once per mirror pair, under the smaller of the two keys.

The file: ``POPREFBK``, then width, height, depth (one byte each), a byte of
zero, the entry count (4 bytes, little-endian); then every key (8 bytes,
little-endian, ascending), every score (signed byte), every column (byte,
1-based, for the position as keyed).

>>> from engine.solver.classic import Position
>>> book = Book.from_entries(7, 6, 2, {Position.empty(7, 6).key(): (1, 4)})
>>> book.lookup(Position.empty(7, 6)), len(book)
((4, 1), 1)
>>> Book.from_bytes(book.to_bytes()).lookup(Position.empty(7, 6))
(4, 1)
"""

from __future__ import annotations

import struct
import sys
from array import array
from bisect import bisect_left
from collections.abc import Mapping
from functools import cache
from importlib import resources

from engine.solver.classic import Position

MAGIC = b"POPREFBK"
HEADER = struct.Struct("<8sBBBBI")


class BookError(Exception):
    """A book file that cannot be read."""


def canonical(position: Position) -> tuple[int, bool]:
    """The key stored for ``position`` and whether it is the mirror's."""
    key, mirror = position.key(), position.mirrored().key()
    return (mirror, True) if mirror < key else (key, False)


class Book:
    """A read-only table from positions to ``(best column, exact score)``."""

    def __init__(
        self, width: int, height: int, depth: int, keys: array[int], scores: bytes, columns: bytes
    ) -> None:
        self.width = width
        self.height = height
        self.depth = depth
        self._keys = keys
        self._scores = scores
        self._columns = columns

    @classmethod
    def from_entries(
        cls, width: int, height: int, depth: int, entries: Mapping[int, tuple[int, int]]
    ) -> Book:
        """A book from ``{canonical key: (score, column)}``."""
        keys = array("Q", sorted(entries))
        scores = bytes((entries[k][0] & 0xFF) for k in keys)
        columns = bytes(entries[k][1] for k in keys)
        return cls(width, height, depth, keys, scores, columns)

    @classmethod
    def from_bytes(cls, data: bytes) -> Book:
        """Read a book file's content."""
        if len(data) < HEADER.size:
            raise BookError("the book file is truncated")
        magic, width, height, depth, _zero, count = HEADER.unpack_from(data)
        if magic != MAGIC:
            raise BookError("not a popref book file")
        if len(data) != HEADER.size + 10 * count:
            raise BookError(f"the book file should hold {count} entries but its size differs")
        start = HEADER.size
        keys = array("Q")
        keys.frombytes(data[start : start + 8 * count])
        if sys.byteorder != "little":
            keys.byteswap()
        scores = data[start + 8 * count : start + 9 * count]
        columns = data[start + 9 * count : start + 10 * count]
        return cls(width, height, depth, keys, scores, columns)

    def to_bytes(self) -> bytes:
        """The book file's content."""
        keys = array("Q", self._keys)
        if sys.byteorder != "little":
            keys.byteswap()
        header = HEADER.pack(MAGIC, self.width, self.height, self.depth, 0, len(self._keys))
        return header + keys.tobytes() + bytes(self._scores) + bytes(self._columns)

    def entries(self) -> dict[int, tuple[int, int]]:
        """``{canonical key: (score, column)}``, as :meth:`from_entries` takes."""
        return {
            key: (score - 256 if score > 127 else score, column)
            for key, score, column in zip(self._keys, self._scores, self._columns, strict=True)
        }

    def __len__(self) -> int:
        return len(self._keys)

    def lookup(self, position: Position) -> tuple[int, int] | None:
        """``(best column, exact score)`` for ``position``, or None if not in the book."""
        if (position.width, position.height) != (self.width, self.height):
            return None
        key, mirrored = canonical(position)
        index = bisect_left(self._keys, key)
        if index == len(self._keys) or self._keys[index] != key:
            return None
        column = self._columns[index]
        score = self._scores[index]
        score = score - 256 if score > 127 else score
        return (self.width + 1 - column if mirrored else column), score


@cache
def packaged_book(width: int, height: int) -> Book | None:
    """The book shipped with popref for this board size, if there is one."""
    try:
        data = resources.files("engine.solver").joinpath(f"book-{width}x{height}.bin").read_bytes()
    except (FileNotFoundError, OSError):
        return None
    return Book.from_bytes(data)
