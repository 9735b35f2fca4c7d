"""Clocks: the daemon reads time only through one of these, so tests inject it."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """A monotonic clock in seconds."""

    def __call__(self) -> float: ...


def monotonic() -> float:
    """The real clock."""
    return time.monotonic()


class FakeClock:
    """A clock that moves only when told to.

    >>> clock = FakeClock()
    >>> clock.advance(0.25)
    >>> clock()
    0.25
    """

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self.now += seconds

    def set(self, now: float) -> None:
        if now < self.now:
            raise ValueError("a clock cannot go backwards")
        self.now = now
