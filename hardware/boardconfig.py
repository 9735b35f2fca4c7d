"""Just the ``[board]`` and ``[gpio]`` tables of the configuration file.

The daemon's full configuration loader reuses :meth:`PinMap.parse`; this small
loader serves commands that need only the board, such as ``check-wiring``.

>>> BoardConfig.from_tables({"board": {"columns": 7, "rows": 6}}).pins.slider
'GPIO2'
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hardware.errors import ConfigError
from hardware.pinmap import PinMap

MAX_SIZE = 16


@dataclass(frozen=True, slots=True)
class BoardConfig:
    """The physical board: its size and its pin map."""

    columns: int
    rows: int
    pins: PinMap

    @classmethod
    def load(cls, path: str | Path | None) -> BoardConfig:
        """Read a TOML file (or take every default for ``None``). Errors are
        one-line :class:`ConfigError`s; the caller adds the file name."""
        if path is None:
            return cls.from_tables({})
        try:
            with open(path, "rb") as f:
                tables = tomllib.load(f)
        except OSError as error:
            raise ConfigError(
                f"cannot read the file ({error.strerror}); give the path of "
                "a TOML configuration file"
            ) from None
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"not valid TOML: {error}") from None
        return cls.from_tables(tables)

    @classmethod
    def from_tables(cls, tables: Mapping[str, object]) -> BoardConfig:
        board = _table(tables, "board")
        gpio = _table(tables, "gpio")
        columns = _size(board, "columns", 7)
        rows = _size(board, "rows", 6)
        return cls(columns, rows, PinMap.parse(gpio, columns))


def _table(tables: Mapping[str, object], name: str) -> Mapping[str, object]:
    value = tables.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}]: expected a table, got {value!r}")
    return value


def _size(board: Mapping[str, object], key: str, default: int) -> int:
    value = board.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 4 <= value <= MAX_SIZE:
        raise ConfigError(
            f"[board] {key}: {value!r} is not a board size; give a whole "
            f"number from 4 to {MAX_SIZE}"
        )
    return value
