"""Stand-in for MicroPython's built-in ``neopixel``: a buffer that remembers
each ``write()`` with the tick it happened at.

``time`` here is rebound to the board's own tick source when a
:class:`~hardware.simboard.firmware.Firmware` loads this module.
``on_write``, when set, is called after each write (benchmarks time it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

RGB = tuple[int, int, int]


class NeoPixel:
    def __init__(self, pin: Any, n: int, bpp: int = 3, timing: int = 1) -> None:
        self.pin = pin
        self.n = n
        self._buf: list[RGB] = [(0, 0, 0)] * n
        self.writes: list[tuple[int, tuple[RGB, ...]]] = []
        self.on_write: Callable[[], None] | None = None

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, index: int, value: RGB) -> None:
        self._buf[index] = (int(value[0]), int(value[1]), int(value[2]))

    def __getitem__(self, index: int) -> RGB:
        return self._buf[index]

    def fill(self, value: RGB) -> None:
        for i in range(self.n):
            self[i] = value

    def write(self) -> None:
        now: int = time.ticks_ms()  # type: ignore[attr-defined]
        self.writes.append((now, tuple(self._buf)))
        del self.writes[:-64]
        if self.on_write is not None:
            self.on_write()
