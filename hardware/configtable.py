"""The one set of typed checks for a table of the configuration file.

Every table (``[game]``, ``[board]``, ``[gpio]``, ``[serial]``, ...) is read
through a :class:`ConfigTable`, so every mistake reads the same way: one line
that starts with the table and key and says what to write instead.

>>> board = ConfigTable("board", {"columns": 9})
>>> board.integer("columns", 7, low=4, high=16), board.integer("rows", 6, low=4, high=16)
(9, 6)
>>> board.choice("backend", "sim", ("sim", "gpio"))
'sim'
>>> try:
...     ConfigTable("board", {"backend": "usb"}).choice("backend", "sim", ("sim", "gpio"))
... except ConfigError as error:
...     print(error)
[board] backend: 'usb' is not a choice; write "sim" or "gpio"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hardware.errors import ConfigError


class ConfigTable:
    """One table of the configuration, named ``name``, as tomllib parsed it."""

    def __init__(self, name: str, table: object) -> None:
        if not isinstance(table, Mapping):
            raise ConfigError(f"[{name}]: must be a table, written [{name}] on a line of its own")
        self.name = name
        self.table: Mapping[str, Any] = table

    def __contains__(self, key: str) -> bool:
        return key in self.table

    def error(self, key: str, message: str) -> ConfigError:
        """A :class:`ConfigError` for ``key`` of this table."""
        return ConfigError(f"[{self.name}] {key}: {message}")

    def only(self, known: Sequence[str]) -> None:
        """Refuse any key not in ``known`` (a typo would otherwise be ignored)."""
        for key in self.table:
            if key not in known:
                raise self.error(key, f"unknown key; known keys are {', '.join(known)}")

    def get(self, key: str, default: object = None) -> object:
        """The raw value, for keys whose checks are their own (pins)."""
        return self.table.get(key, default)

    def string(self, key: str, default: str) -> str:
        value = self.table.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string in quotes, not {value!r}")
        if "\0" in value:
            raise self.error(key, "contains a NUL character; remove it")
        return value

    def choice(
        self, key: str, default: str, choices: Sequence[str], what: str = "a choice", why: str = ""
    ) -> str:
        """One of ``choices``; the error says the value is not ``what`` and
        lists the choices, with ``why`` in brackets."""
        value = self.table.get(key, default)
        if value not in choices:
            quoted = [f'"{c}"' for c in choices]
            names = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
            because = f" ({why})" if why else ""
            raise self.error(key, f"{value!r} is not {what}; write {names}{because}")
        assert isinstance(value, str)
        return value

    def integer(self, key: str, default: int, *, low: int, high: int) -> int:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be a whole number, not {value!r}")
        if not low <= value <= high:
            raise self.error(key, f"{value} is out of range; use {low} to {high}")
        return value

    def number(self, key: str, default: float, *, low: float, high: float) -> float:
        """A whole or decimal number from ``low`` to ``high``."""
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"must be a number, not {value!r}")
        if not low <= value <= high:  # NaN fails this too
            raise self.error(key, f"{value!r} is out of range; use {low:g} to {high:g}")
        return float(value)

    def seconds(self, key: str, default: float, *, high: float) -> float:
        """A positive time in seconds, at most ``high``."""
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise self.error(key, f"expected a positive number of seconds, got {value!r}")
        if value > high:
            raise self.error(key, f"{value} seconds is too long; use at most {high:g}")
        return float(value)

    def boolean(self, key: str, default: bool) -> bool:
        value = self.table.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, not {value!r}")
        return value
