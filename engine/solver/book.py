"""The opening book: the computer's moves in the Classic positions no search
answers in time, solved ahead.

For each position it holds a move that keeps the game value and a score:
the exact score (the move is then the best by it, fastest win or slowest
loss), or, for a won position solved only for its outcome, 1 (the move
keeps the win). :mod:`engine.solver.bookbuild` says which positions are in.
Positions are stored once per mirror pair, under the smaller of the two keys.

The file: ``POPREFBK``, then width, height, depth (the plies built
completely; one byte each), a byte of zero, the entry count (4 bytes,
little-endian); then every key (8 bytes, little-endian, ascending), every
score (signed byte), every column (byte, 1-based, for the position as
keyed; plus 128 when the score is only the outcome).

>>> from engine.solver.classic import Position
>>> book = Book.from_entries(7, 6, 2, {Position.empty(7, 6).key(): Entry(1, 4)})
>>> book.lookup(Position.empty(7, 6)), len(book)
(BookMove(column=4, score=1, exact=True), 1)
>>> Book.from_bytes(book.to_bytes()).lookup(Position.empty(7, 6))
BookMove(column=4, score=1, exact=True)
"""

from __future__ import annotations

import struct
import sys
from array import array
from bisect import bisect_left
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import NamedTuple

from engine.solver.classic import Position

MAGIC = b"POPREFBK"
HEADER = struct.Struct("<8sBBBBI")
OUTCOME_ONLY = 0x80  # in a column byte: the score is the outcome, not the exact score


class BookError(Exception):
    """A book file that cannot be read."""


def canonical(position: Position) -> tuple[int, bool]:
    """The key stored for ``position`` and whether it is the mirror's."""
    key, mirror = position.key(), position.mirrored().key()
    return (mirror, True) if mirror < key else (key, False)


class Entry(NamedTuple):
    """A stored position: its score, its move (for the keyed side), whether exact."""

    score: int
    column: int
    exact: bool = True


class BookMove(NamedTuple):
    """The book's answer for a position as asked (mirror undone)."""

    column: int
    score: int
    exact: bool


class Book:
    """A read-only table from positions to their :class:`BookMove`."""

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
        cls, width: int, height: int, depth: int, entries: Mapping[int, Entry]
    ) -> Book:
        """A book from ``{canonical key: Entry}``."""
        keys = array("Q", sorted(entries))
        scores = bytes((entries[k].score & 0xFF) for k in keys)
        columns = bytes(entries[k].column | (0 if entries[k].exact else OUTCOME_ONLY) for k in keys)
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

    def entries(self) -> dict[int, Entry]:
        """``{canonical key: Entry}``, as :meth:`from_entries` takes."""
        return {
            key: _entry(score, column)
            for key, score, column in zip(self._keys, self._scores, self._columns, strict=True)
        }

    def __len__(self) -> int:
        return len(self._keys)

    def lookup(self, position: Position) -> BookMove | None:
        """The book's move for ``position``, or None if it is not in the book."""
        if (position.width, position.height) != (self.width, self.height):
            return None
        key, mirrored = canonical(position)
        index = bisect_left(self._keys, key)
        if index == len(self._keys) or self._keys[index] != key:
            return None
        score, column, exact = _entry(self._scores[index], self._columns[index])
        return BookMove(self.width + 1 - column if mirrored else column, score, exact)


def _entry(score: int, column: int) -> Entry:
    """An entry from its two stored bytes."""
    return Entry(score - 256 if score > 127 else score, column & ~OUTCOME_ONLY,
                 not column & OUTCOME_ONLY)  # fmt: skip


@cache
def packaged_book(width: int, height: int) -> Book | None:
    """The book shipped with popref for this board size, if there is one."""
    try:
        data = resources.files("engine.solver").joinpath(f"book-{width}x{height}.bin").read_bytes()
    except (FileNotFoundError, OSError):
        return None
    return Book.from_bytes(data)
