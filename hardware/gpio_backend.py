"""The GPIO backend: a board wired straight to the Pi's header.

Implements :class:`hardware.backend.Backend` with gpiozero devices on any pin
factory: lgpio on a Pi, gpiozero's mock pins on a laptop and in tests.

>>> from hardware.clock import FakeClock
>>> from hardware.factory import make_pin_factory
>>> from hardware.pinmap import PinMap
>>> clock = FakeClock()
>>> board = GpioBackend(PinMap.default(), make_pin_factory("mock"), clock, rows=6)
>>> board.open(lambda: None)
>>> board.poll(clock())
[]
>>> board.close()
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gpiozero import GPIOZeroError

from hardware.clock import Clock
from hardware.display import Display
from hardware.errors import HardwareError
from hardware.events import Event
from hardware.inputs import REREAD, GpioInputs
from hardware.outputs import GpioOutputs
from hardware.pinmap import PinMap


class GpioBackend:
    """Sensors and lights of a :class:`PinMap`, on a gpiozero pin factory."""

    def __init__(
        self, pins: PinMap, factory: Any, clock: Clock, *, rows: int = 6, reread: float = REREAD
    ) -> None:
        self.pins = pins
        self.factory = factory
        self._rows = rows
        self.inputs = GpioInputs(pins, factory, clock, reread=reread)
        self.outputs = GpioOutputs(pins, factory, clock)
        self._open = False

    @property
    def columns(self) -> int:
        return self.pins.columns

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def senses_colour(self) -> bool:
        return bool(self.pins.colour)

    def open(self, wake: Callable[[], None]) -> None:
        """Claim every pin; ``wake`` is called (from any thread) on each edge."""
        try:
            self.outputs.open()
            try:
                self.inputs.open(wake)
            except Exception:
                self.outputs.close()
                raise
        except (GPIOZeroError, OSError) as error:
            raise HardwareError(
                f"cannot claim the GPIO pins: {error}; check that no other "
                "program (or second popref) is using them"
            ) from None
        self._open = True

    def poll(self, now: float) -> list[Event]:
        self.outputs.poll(now)
        return self.inputs.poll(now)

    def next_deadline(self) -> float | None:
        times = [
            t for t in (self.inputs.next_deadline(), self.outputs.next_deadline()) if t is not None
        ]
        return min(times) if times else None

    def show(self, display: Display) -> None:
        self.outputs.show(display)

    def close(self) -> None:
        """Every output off, every pin released; closing twice is harmless."""
        self.outputs.close()
        self.inputs.close()
        self._open = False


def gpio_backend(
    pins: PinMap, rows: int, clock: Clock, run_dir: str | os.PathLike[str] | None = None
) -> GpioBackend:
    """The backend for a pin map on its pin factory. Raises
    :class:`HardwareError` (one line) when the factory cannot be used;
    nothing is claimed until :meth:`GpioBackend.open`."""
    from hardware.factory import make_pin_factory

    factory = make_pin_factory(pins.pin_factory, run_dir, revision=pins.board_revision)
    return GpioBackend(pins, factory, clock, rows=rows)
