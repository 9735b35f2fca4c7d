"""Moves and the notation: ``N`` drops into column N, ``pN`` pops from it."""

from __future__ import annotations

import re
from enum import StrEnum
from functools import total_ordering
from typing import TYPE_CHECKING, Any, ClassVar

from engine.errors import InvalidMoveError

if TYPE_CHECKING:
    from engine.rules import Rules

MAX_COLUMN = 99  # far beyond any board; bounds the table of interned moves


class MoveKind(StrEnum):
    """What a move does to its column."""

    DROP = "drop"
    POP = "pop"

    def __str__(self) -> str:
        return self.value


@total_ordering
class Move:
    """One move: a drop into, or a pop from, a column (1-based, whole board).

    Moves are interned: equal moves are the same object, which keeps them
    hashable, comparable by value and cheap to look up in the hot path.

    >>> Move.drop(4)
    Move.drop(4)
    >>> str(Move.pop(3)), Move.pop(3) == Move(MoveKind.POP, 3)
    ('p3', True)
    """

    __slots__ = ("column", "kind")
    kind: MoveKind
    column: int
    _interned: ClassVar[dict[tuple[MoveKind, int], Move]] = {}

    def __new__(cls, kind: MoveKind | str, column: int) -> Move:
        try:
            kind = MoveKind(kind)
        except ValueError:
            raise InvalidMoveError(f"{kind!r} is not a kind of move; use drop or pop") from None
        if type(column) is not int or not 1 <= column <= MAX_COLUMN:
            raise InvalidMoveError(f"{column!r} is not a column: columns are 1 to {MAX_COLUMN}")
        key = (kind, column)
        move = cls._interned.get(key)
        if move is None:
            move = object.__new__(cls)
            object.__setattr__(move, "kind", kind)
            object.__setattr__(move, "column", column)
            cls._interned[key] = move
        return move

    @classmethod
    def drop(cls, column: int) -> Move:
        """A drop into ``column``."""
        return cls(MoveKind.DROP, column)

    @classmethod
    def pop(cls, column: int) -> Move:
        """A pop from the bottom of ``column``."""
        return cls(MoveKind.POP, column)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Move is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Move is frozen: cannot delete {name!r}")

    def __reduce__(self) -> tuple[type[Move], tuple[MoveKind, int]]:
        # copy and pickle must go back through the interning constructor
        return (Move, (self.kind, self.column))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (self.kind is MoveKind.POP, self.column) < (
            other.kind is MoveKind.POP,
            other.column,
        )

    def __str__(self) -> str:
        return f"p{self.column}" if self.kind is MoveKind.POP else str(self.column)

    def __repr__(self) -> str:
        return f"Move.{self.kind.value}({self.column})"


_MOVE_RE = re.compile(r"([pP]?)([0-9]+)")
_HOW = "write N to drop into column N, or pN to pop from the bottom of column N"


def parse_move(text: str) -> Move:
    """Read one move in the notation of ``docs/rules.md``.

    >>> parse_move("p3")
    Move.pop(3)
    >>> parse_move("7")
    Move.drop(7)
    """
    token = text.strip()
    match = _MOVE_RE.fullmatch(token)
    if match is None:
        raise InvalidMoveError(f"{token!r} is not a move: {_HOW}")
    digits = match.group(2)
    # past a few digits no board has the column (and int() refuses 4300 digits)
    column = int(digits) if len(digits) <= 9 else MAX_COLUMN + 1
    if column < 1:
        raise InvalidMoveError(f"{token!r} is not a move: columns are numbered from 1")
    if column > MAX_COLUMN:
        # most often several moves run together outside Classic (4453 in Pop Out)
        raise InvalidMoveError(
            f"{token!r} is not a move: boards have at most {MAX_COLUMN} columns; "
            "write one move a word, with spaces between them (4 4 5 3)"
        )
    return Move(MoveKind.POP if match.group(1) else MoveKind.DROP, column)


def digit_runs_allowed(rules: Rules) -> bool:
    """Whether ``4453`` means four moves: Classic on a board at most 9 wide."""
    return not (rules.pops or rules.pop10 or rules.strips) and rules.width <= 9


def split_moves(text: str, rules: Rules | None = None) -> list[tuple[str, int]]:
    """The move tokens of ``text`` with their 1-based line numbers.

    With Classic ``rules`` on a board at most 9 wide, a run of digits is split
    into one token per digit, the notation of Connect Four solvers.

    >>> split_moves("44\\n53")
    [('44', 1), ('53', 2)]
    """
    runs = rules is not None and digit_runs_allowed(rules)
    tokens: list[tuple[str, int]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for token in line.split():
            if runs and len(token) > 1 and token.isdigit():
                tokens.extend((digit, number) for digit in token)
            else:
                tokens.append((token, number))
    return tokens


def parse_moves(text: str, rules: Rules | None = None) -> list[Move]:
    """Read moves separated by white space; see :func:`split_moves` for runs.

    >>> [str(m) for m in parse_moves("4 p4 3")]
    ['4', 'p4', '3']
    """
    moves = []
    for number, (token, _line) in enumerate(split_moves(text, rules), start=1):
        try:
            moves.append(parse_move(token))
        except InvalidMoveError as error:
            raise InvalidMoveError(f"move {number} ({token}): {error}") from None
    return moves
