"""The exact solver's negamax cores: compiled (``_core``, C) when installed,
else pure Python (``_pycore``); the same answers, the compiled one much faster.

>>> from engine.solver.position import Position
>>> core = make_core("python")
>>> core.negamax(Position.from_columns(4, 4, [2, 3, 2, 3, 2]), 0, 1, None)[0] <= 0
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

from engine.solver import _pycore, tables
from engine.solver.position import Position

try:
    from engine.solver import _core  # type: ignore[attr-defined]
except ImportError:  # built without a compiler: the pure core answers, slower
    _core = None

COMPILED = _core is not None
DEFAULT_SLOTS = 4_194_301  # a prime: 8 bytes a slot, about 34 MB
CoreName = Literal["auto", "compiled", "python"]


class Core(Protocol):
    """A negamax over Classic positions with a transposition table of its own."""

    name: str
    check_every: int  # positions between two calls of should_stop

    def negamax(
        self, position: Position, alpha: int, beta: int, should_stop: Callable[[], bool] | None
    ) -> tuple[int | None, int]: ...

    def clear(self) -> None: ...


class CompiledCore:
    """The C negamax with its table in a bytearray."""

    name = "compiled"
    check_every = 1 << 13  # about 1 ms here, 3 ms on a Pi 4: a stop is prompt

    def __init__(self, slots: int = DEFAULT_SLOTS) -> None:
        if _core is None:
            raise RuntimeError("the compiled solver core is not installed")
        self.table = bytearray(8 * max(slots, 256))  # the core's least

    def negamax(
        self, position: Position, alpha: int, beta: int, should_stop: Callable[[], bool] | None
    ) -> tuple[int | None, int]:
        p = position
        result: tuple[int | None, int] = _core.negamax(
            self.table, p.width, p.height, p.current, p.mask, p.moves, alpha, beta,
            should_stop, self.check_every,
        )  # fmt: skip
        return result

    def clear(self) -> None:
        tables.clear(self.table)  # a zero value marks a slot empty


class PythonCore:
    """The pure-Python negamax with its table in a dict."""

    name = "python"
    check_every = 1 << 10

    def __init__(self) -> None:
        self.table: dict[int, int] = {}

    def negamax(
        self, position: Position, alpha: int, beta: int, should_stop: Callable[[], bool] | None
    ) -> tuple[int | None, int]:
        p = position
        return _pycore.negamax(
            self.table, p.width, p.height, p.current, p.mask, p.moves, alpha, beta,
            should_stop, self.check_every,
        )  # fmt: skip

    def clear(self) -> None:
        self.table.clear()


def make_core(core: CoreName = "auto", slots: int = DEFAULT_SLOTS) -> Core:
    """The compiled core when available (or asked for), else the pure one."""
    if core == "python" or (core == "auto" and not COMPILED):
        return PythonCore()
    return CompiledCore(slots)


__all__ = [
    "COMPILED",
    "DEFAULT_SLOTS",
    "CompiledCore",
    "Core",
    "CoreName",
    "PythonCore",
    "make_core",
]
