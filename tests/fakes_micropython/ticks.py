"""MicroPython's ``time.ticks_*`` over a clock the test moves by hand.

Ticks wrap at 2**30 milliseconds as on the RP2040 port, so the firmware's
``ticks_diff`` arithmetic is exercised across the wrap.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

PERIOD = 1 << 30
_HALF = PERIOD // 2


class FakeTicks:
    """A millisecond tick counter.

    >>> t = FakeTicks(start=PERIOD - 1)
    >>> t.advance(2)
    >>> t.ticks_ms(), t.ticks_diff(t.ticks_ms(), PERIOD - 1)
    (1, 2)
    """

    def __init__(self, start: int = 0) -> None:
        self.now = start % PERIOD

    def advance(self, ms: int) -> None:
        self.now = (self.now + ms) % PERIOD

    def ticks_ms(self) -> int:
        return self.now

    @staticmethod
    def ticks_add(ticks: int, delta: int) -> int:
        return (ticks + delta) % PERIOD

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return ((a - b + _HALF) % PERIOD) - _HALF

    def sleep_ms(self, ms: int) -> None:
        self.advance(ms)

    def install(self) -> Callable[[], None]:
        """Put ``ticks_ms`` and friends on the ``time`` module, as MicroPython
        has them; returns the function that takes them off again."""
        names: dict[str, Any] = {
            "ticks_ms": self.ticks_ms,
            "ticks_add": self.ticks_add,
            "ticks_diff": self.ticks_diff,
            "sleep_ms": self.sleep_ms,
        }
        for name, value in names.items():
            setattr(time, name, value)

        def uninstall() -> None:
            for name in names:
                if getattr(time, name, None) is names[name]:
                    delattr(time, name)

        return uninstall
