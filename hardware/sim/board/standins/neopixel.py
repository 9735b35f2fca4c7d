"""Stand-in for MicroPython's built-in ``neopixel``: a buffer that remembers
each ``write()`` with the tick it happened at.

``time`` here is rebound to the board's own tick source when a
:class:`~hardware.sim.board.firmware.Firmware` loads this module.
``on_write``, when set, is called after each write (benchmarks time it).
Like the real driver, setting pixels allocates nothing (a ``bytearray``);
``record = False`` stops the record of writes too, so that a measurement of
the firmware's own allocations (``bench/firmware.py``) sees only those.
Runs under CPython and MicroPython alike (see ``machine.py`` here).
"""

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    RGB = tuple[int, int, int]


class NeoPixel:
    def __init__(self, pin: "Any", n: int, bpp: int = 3, timing: int = 1) -> None:
        self.pin = pin
        self.n = n
        self.buf = bytearray(3 * n)
        self.record = True
        self.writes: list[tuple[int, tuple[RGB, ...]]] = []
        self.on_write: Callable[[], None] | None = None

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, index: int, value: "RGB") -> None:
        buf = self.buf
        at = 3 * index
        buf[at] = value[0]
        buf[at + 1] = value[1]
        buf[at + 2] = value[2]

    def __getitem__(self, index: int) -> "RGB":
        at = 3 * index
        return (self.buf[at], self.buf[at + 1], self.buf[at + 2])

    def fill(self, value: "RGB") -> None:
        for i in range(self.n):
            self[i] = value

    def write(self) -> None:
        if not self.record:
            return
        now: int = time.ticks_ms()  # type: ignore[attr-defined]
        self.writes.append((now, tuple(self[i] for i in range(self.n))))
        del self.writes[:-64]
        if self.on_write is not None:
            self.on_write()
