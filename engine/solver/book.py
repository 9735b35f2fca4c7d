"""The opening book: the computer's moves in the Classic positions no search
answers in time, solved ahead.

For each position it holds a move that keeps the game value and a score:
the exact score (the move is then the best by it, fastest win or slowest
loss), or, for a won position solved only for its outcome, 1 (the move
keeps the win). :mod:`engine.solver.bookbuild` says which positions are in.
Positions are stored once per mirror pair, under the smaller of the two keys.

The file: ``POPREFBK``, then width, height, depth (the plies built
completely; one byte each), the format (one byte: :data:`FORMAT`), the
entry count (4 bytes, little-endian); then every key (8 bytes,
little-endian, ascending), every score (signed byte), every column (byte,
1-based, for the position as keyed; plus 128 when the score is only the
outcome); last the SHA-256 digest of everything before it.

A book is checked as it is read: its digest (any damaged byte), and every
entry (a key that is a position of the board, stored once per mirror pair,
a column with room in it, a score a game can have), so every answer it
gives is a legal move; a file
that fails is a :class:`BookError` naming what is wrong. Format 0, the same
without the digest, is read only by ``popref book``, to resume or re-stamp.

>>> from engine.solver.classic import Position
>>> book = Book.from_entries(7, 6, 2, {Position.empty(7, 6).key(): Entry(1, 4)})
>>> book.lookup(Position.empty(7, 6)), len(book)
(BookMove(column=4, score=1, exact=True), 1)
>>> Book.from_bytes(book.to_bytes()).lookup(Position.empty(7, 6))
BookMove(column=4, score=1, exact=True)
>>> try:
...     Book.from_entries(7, 6, 2, {Position.empty(7, 6).key(): Entry(1, 9)})
... except BookError as error:
...     print(error)
entry 1: column 9 is not on the 7x6 board
"""

from __future__ import annotations

import hashlib
import struct
import sys
from array import array
from bisect import bisect_left
from collections.abc import Mapping
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from itertools import pairwise
from typing import NamedTuple

from engine.solver.position import Position, fits

MAGIC = b"POPREFBK"
HEADER = struct.Struct("<8sBBBBI")
FORMAT = 1  # the header's fifth byte: a digest ends the file (0: none, before issue 19)
DIGEST = 32  # bytes of SHA-256
OUTCOME_ONLY = 0x80  # in a column byte: the score is the outcome, not the exact score
REBUILD = "reinstall popref, or rebuild the book with popref book"  # a BookError's remedy


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
        if not fits(width, height) or depth > width * height:
            raise BookError(f"a {width}x{height} book of depth {depth} is not possible")
        self.width = width
        self.height = height
        self.depth = depth
        self._keys = keys
        self._scores = scores
        self._columns = columns
        for number in range(len(keys)):
            self._check(number)
        if any(a >= b for a, b in pairwise(keys)):
            raise BookError("the book's keys are not in ascending order")

    def _check(self, index: int) -> None:
        """An entry that can only give a legal move, or a :class:`BookError`."""
        score, column, _exact = _entry(self._scores[index], self._columns[index])
        where, size = f"entry {index + 1}", f"{self.width}x{self.height}"
        if not 1 <= column <= self.width:
            raise BookError(f"{where}: column {column} is not on the {size} board")
        try:
            position = Position.from_key(self.width, self.height, self._keys[index])
        except ValueError as error:
            raise BookError(f"{where}: {error}") from None
        if not position.can_play(column):
            raise BookError(f"{where}: column {column} is full in its position")
        if canonical(position)[1]:
            raise BookError(f"{where}: the position is stored under its mirror's larger key")
        if abs(score) > (self.width * self.height + 1) // 2:
            raise BookError(f"{where}: no game has the score {score}")

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
    def from_bytes(cls, data: bytes, undigested: bool = False) -> Book:
        """Read a book file's content; ``undigested`` also reads format 0."""
        if len(data) < HEADER.size:
            raise BookError(f"the book file is truncated ({len(data)} bytes)")
        magic, width, height, depth, version, count = HEADER.unpack_from(data)
        if magic != MAGIC:
            raise BookError("not a popref book file")
        if version != FORMAT and not (undigested and version == 0):
            raise BookError(f"the book file is of format {version}; popref reads format {FORMAT}")
        digest = DIGEST if version else 0
        if len(data) != HEADER.size + 10 * count + digest:
            raise BookError(f"the book file should hold {count} entries but its size differs")
        if digest and hashlib.sha256(data[:-digest]).digest() != data[-digest:]:
            raise BookError("the book file is damaged: its digest does not match its content")
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
        header = HEADER.pack(MAGIC, self.width, self.height, self.depth, FORMAT, len(self._keys))
        content = header + keys.tobytes() + bytes(self._scores) + bytes(self._columns)
        return content + hashlib.sha256(content).digest()

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

    def exact_score(self, position: Position) -> int | None:
        """The exact score of ``position`` (as :class:`ClassicSolver` gives
        it), or None where the book holds only its outcome or nothing."""
        known = self.lookup(position)
        return known.score if known is not None and known.exact else None


def _entry(score: int, column: int) -> Entry:
    """An entry from its two stored bytes."""
    return Entry(score - 256 if score > 127 else score, column & ~OUTCOME_ONLY,
                 not column & OUTCOME_ONLY)  # fmt: skip


def book_file(width: int, height: int) -> Traversable:
    """Where popref keeps the book for this board size."""
    return resources.files("engine.solver").joinpath(f"book-{width}x{height}.bin")


def packaged_book(width: int, height: int) -> Book | None:
    """The book shipped with popref for this board size, if there is one.

    A damaged one raises :class:`BookError`, naming the file and the damage
    (read and checked once a process).
    """
    found = _packaged(width, height)
    if isinstance(found, str):
        raise BookError(found)
    return found


@cache
def _packaged(width: int, height: int) -> Book | str | None:
    """The shipped book, or why it cannot be used."""
    file = book_file(width, height)
    try:
        data = file.read_bytes()
    except OSError:  # none shipped for this size
        return None
    try:
        return Book.from_bytes(data)
    except BookError as error:
        return f"{file}: {error}"
