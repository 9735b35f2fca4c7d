"""Typed reads of one field of a JSON object, each failing with a short reason.

The journal's readers use them so that a record with a missing key or a value
of the wrong type is damage, named as such, never a traceback later on.
JSON's ``true`` is not an integer here, although Python's ``bool`` is one.

>>> integer({"n": 3}, "n")
3
>>> integer({"n": True}, "n")
Traceback (most recent call last):
...
controller.referee.fields.FieldError: "n" is not an integer
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Any, TypeVar

from engine import Move, parse_move

__all__ = [
    "FieldError",
    "boolean",
    "integer",
    "move",
    "moves",
    "nullable",
    "number",
    "one_of",
    "only",
    "strings",
    "text",
]

T = TypeVar("T")


class FieldError(ValueError):
    """A field is missing or holds the wrong kind of value."""


def _get(data: dict[str, Any], key: str) -> Any:
    if not isinstance(data, dict):
        raise FieldError(f"not an object where {key!r} was expected")
    if key not in data:
        raise FieldError(f'"{key}" is missing')
    return data[key]


def integer(data: dict[str, Any], key: str, low: int = 0, high: int = 2**63 - 1) -> int:
    """A whole number from *low* to *high*."""
    value = _get(data, key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(f'"{key}" is not an integer')
    if not low <= value <= high:
        digits = str(value)
        shown = digits if len(digits) <= 20 else f"{digits[:12]}... ({len(digits)} digits)"
        raise FieldError(f'"{key}" is {shown}, outside {low}..{high}')
    return value


def number(data: dict[str, Any], key: str) -> float:
    """Any number a float holds exactly (the journal's reader has already
    refused non-finite ones; a whole number too large for a float would come
    back as another)."""
    value = _get(data, key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldError(f'"{key}" is not a number')
    try:
        exact = float(value)
    except OverflowError:
        exact = math.inf
    if exact != value:
        raise FieldError(f'"{key}" is a number beyond what a float holds exactly')
    return exact


def boolean(data: dict[str, Any], key: str) -> bool:
    value = _get(data, key)
    if not isinstance(value, bool):
        raise FieldError(f'"{key}" is not true or false')
    return value


def text(data: dict[str, Any], key: str, limit: int = 1000) -> str:
    value = _get(data, key)
    if not isinstance(value, str):
        raise FieldError(f'"{key}" is not a string')
    if len(value) > limit:
        raise FieldError(f'"{key}" is longer than {limit} characters')
    return value


def one_of(data: dict[str, Any], key: str, allowed: Collection[str]) -> str:
    value = text(data, key)
    if value not in allowed:
        raise FieldError(f'"{key}" is {value!r}, not one of {", ".join(sorted(allowed))}')
    return value


def nullable(data: dict[str, Any], key: str, read: Callable[[dict[str, Any], str], T]) -> T | None:
    """``None`` where *key* holds null, else what *read* makes of it; the key
    must be there (an absent one is not a null)."""
    return None if _get(data, key) is None else read(data, key)


def only(data: dict[str, Any], allowed: Collection[str], what: str) -> None:
    """Refuse a key of *data* that is not in *allowed*: *what* (a record, a
    seat) holds nothing the daemon does not write."""
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise FieldError(f"{what} has a key it never holds ({unknown[0][:40]!r})")


def move(data: dict[str, Any], key: str) -> Move:
    """A move in notation exactly as written (``"4"``, ``"p4"``; not
    ``"04"``, ``" 4"`` or ``"P4"``, which the notation's reader forgives).

    >>> move({"m": "P4"}, "m")
    Traceback (most recent call last):
    ...
    controller.referee.fields.FieldError: "m" is 'P4', not a move as popref writes it
    """
    written = text(data, key, 10)
    try:
        found = parse_move(written)
    except ValueError:
        found = None
    if found is None or str(found) != written:
        raise FieldError(f'"{key}" is {written!r}, not a move as popref writes it')
    return found


def moves(data: dict[str, Any], key: str, limit: int) -> list[Move]:
    """A list of at most *limit* moves, each as :func:`move` reads it."""
    return [move({key: token}, key) for token in strings(data, key, limit)]


def strings(data: dict[str, Any], key: str, limit: int = 10_000) -> list[str]:
    """A list of strings, at most *limit* of them."""
    value = _get(data, key)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise FieldError(f'"{key}" is not a list of strings')
    if len(value) > limit:
        raise FieldError(f'"{key}" has more than {limit} items')
    return value
