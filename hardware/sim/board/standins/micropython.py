"""Stand-in for MicroPython's ``micropython`` module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

kbd_intr_char = 3  # what the firmware last passed to kbd_intr; 3 (Ctrl-C) at boot


def const(value: int) -> int:
    return value


def kbd_intr(char: int) -> None:
    global kbd_intr_char
    kbd_intr_char = char


def schedule(func: Callable[[Any], object], arg: Any) -> None:
    func(arg)


def alloc_emergency_exception_buf(size: int) -> None:
    pass
