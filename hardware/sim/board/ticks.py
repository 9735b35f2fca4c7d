"""MicroPython's ``time.ticks_*`` for a simulated board: by hand, or from a clock.

Ticks wrap at 2**30 milliseconds as on the RP2040 port, so the firmware's
``ticks_diff`` arithmetic is exercised across the wrap. Each board gets its own
tick source (:meth:`Ticks.module`), bound into its own modules in place of
``time``; the process's ``time`` module is never touched.

>>> t = FakeTicks(start=PERIOD - 1)
>>> t.advance(2)
>>> t.ticks_ms(), t.ticks_diff(t.ticks_ms(), PERIOD - 1)
(1, 2)
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from hardware.clock import Clock

PERIOD = 1 << 30
_HALF = PERIOD // 2


class Ticks:
    """A millisecond tick counter; subclasses say where the count comes from."""

    def ticks_ms(self) -> int:
        raise NotImplementedError

    @property
    def now(self) -> int:
        return self.ticks_ms()

    @staticmethod
    def ticks_add(ticks: int, delta: int) -> int:
        return (ticks + delta) % PERIOD

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return ((a - b + _HALF) % PERIOD) - _HALF

    def sleep_ms(self, ms: int) -> None:
        raise RuntimeError("a simulated board is stepped, it does not sleep")

    def module(self) -> SimpleNamespace:
        """What the board's modules see as ``time``."""
        return SimpleNamespace(
            ticks_ms=self.ticks_ms,
            ticks_add=self.ticks_add,
            ticks_diff=self.ticks_diff,
            sleep_ms=self.sleep_ms,
        )


class FakeTicks(Ticks):
    """Ticks that move only when told to (firmware-only tests)."""

    def __init__(self, start: int = 0) -> None:
        self._now = start % PERIOD

    def advance(self, ms: int) -> None:
        self._now = (self._now + ms) % PERIOD

    def ticks_ms(self) -> int:
        return self._now

    def sleep_ms(self, ms: int) -> None:
        self.advance(ms)


class ClockTicks(Ticks):
    """Ticks read from ``clock`` (the daemon's, fake or real): whole
    milliseconds since the board was made, plus ``start``.

    >>> from hardware.clock import FakeClock
    >>> clock = FakeClock(10.0)
    >>> ticks = ClockTicks(clock)
    >>> clock.advance(0.0257)
    >>> ticks.ticks_ms(), ticks.time_of(ticks.elapsed() + 1)
    (25, 10.026)
    """

    def __init__(self, clock: Clock, start: int = 0) -> None:
        self._clock = clock
        self._origin = clock()
        self._start = start

    def elapsed(self, at: float | None = None) -> int:
        """Whole milliseconds from the board's making to ``at`` (default now)."""
        t = self._clock() if at is None else at
        # the epsilon keeps time_of(n) at tick n despite binary fractions
        return math.floor((t - self._origin) * 1000 + 1e-6)

    def time_of(self, elapsed: int) -> float:
        """The clock time at which ``elapsed`` milliseconds have passed."""
        return self._origin + elapsed / 1000

    def ticks_at(self, elapsed: int) -> int:
        """The tick count once ``elapsed`` milliseconds have passed."""
        return (self._start + elapsed) % PERIOD

    def ticks_ms(self) -> int:
        return self.ticks_at(self.elapsed())
