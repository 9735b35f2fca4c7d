"""Stand-in for MicroPython's ``machine``: pins the test drives, PWM and a WDT.

``Pin(n)`` returns the same object for the same ``n``, as re-initialising a
real GPIO keeps the level on its wire; :meth:`Pin.drive` is the outside world
changing that level, and calls the IRQ handler synchronously like a real edge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_pins: dict[Any, Pin] = {}
resets = 0


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __new__(cls, id: Any, *args: Any, **kwargs: Any) -> Pin:
        pin = _pins.get(id)
        if pin is None:
            pin = super().__new__(cls)
            pin.id = id
            pin._level = 0
            pin._handler = None
            pin._driven = False
            pin._trigger = 0
            pin.mode = cls.IN
            _pins[id] = pin
        return pin

    def __init__(self, id: Any, mode: int = -1, pull: int = -1, value: int | None = None):
        self.id: Any
        self._level: int
        self._handler: Callable[[Pin], None] | None
        self._trigger: int
        self._driven: bool
        if mode != -1:
            self.mode = mode
        if pull == self.PULL_UP and not self._driven:
            self._level = 1
        if value is not None:
            self._level = 1 if value else 0

    def value(self, level: int | None = None) -> int:
        if level is not None:
            self._level = 1 if level else 0
        return self._level

    def irq(self, handler: Callable[[Pin], None] | None = None, trigger: int = 12) -> None:
        self._handler = handler
        self._trigger = trigger

    def drive(self, level: int) -> None:
        """The outside world sets the wire to ``level``."""
        level = 1 if level else 0
        self._driven = True
        if level == self._level:
            return
        self._level = level
        edge = self.IRQ_RISING if level else self.IRQ_FALLING
        if self._handler is not None and self._trigger & edge:
            self._handler(self)


def pin(id: Any) -> Pin:
    """The pin with this id (for tests)."""
    return _pins[id]


class PWM:
    def __init__(self, pin: Pin, freq: int = 0, duty_u16: int = 0) -> None:
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        self.history: list[int] = []

    def freq(self, value: int | None = None) -> int:
        if value is not None:
            self._freq = value
        return self._freq

    def duty_u16(self, value: int | None = None) -> int:
        if value is not None:
            self._duty = value
            self.history.append(value)
        return self._duty

    def deinit(self) -> None:
        self._duty = 0


class WDT:
    """The RP2040 watchdog accepts at most 8388 ms."""

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        if timeout > 8388:
            raise ValueError("timeout too large")
        self.timeout = timeout
        self.feeds = 0

    def feed(self) -> None:
        self.feeds += 1


def reset() -> None:
    global resets
    resets += 1


def unique_id() -> bytes:
    return b"\xe6\x61\x38\x52\x83\x45\x2a\x2b"
