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

from collections.abc import Collection
from typing import Any

__all__ = ["FieldError", "boolean", "integer", "number", "one_of", "strings", "text"]


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
        raise FieldError(f'"{key}" is {value}, outside {low}..{high}')
    return value


def number(data: dict[str, Any], key: str) -> float:
    """Any number (the journal's reader has already refused non-finite ones)."""
    value = _get(data, key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldError(f'"{key}" is not a number')
    return float(value)


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


def strings(data: dict[str, Any], key: str, limit: int = 10_000) -> list[str]:
    """A list of strings, at most *limit* of them."""
    value = _get(data, key)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise FieldError(f'"{key}" is not a list of strings')
    if len(value) > limit:
        raise FieldError(f'"{key}" has more than {limit} items')
    return value
