"""gpiozero mock pins that remember when they changed, on the injected clock.

gpiozero's ``MockPin.states`` dates changes by the real clock, so a test could
not say "this light blinked during the last second" deterministically.
:class:`ClockedMockPin` is gpiozero's own ``MockPWMPin`` (through
``MockFactory``'s ``pin_class`` extension point) that also records each
change against the factory's injected clock. It adds memory, not behaviour:
the devices drive it exactly as they drive any mock pin.

>>> from hardware.clock import FakeClock
>>> clock = FakeClock()
>>> factory = clocked_mock_factory(clock)
>>> pin = factory.pin("GPIO17")
>>> pin.function = "output"
>>> clock.advance(1.5); pin.state = 1
>>> pin.history[-1]
(1.5, 1.0)
>>> for _ in range(2500):  # a blink, for 40 minutes
...     clock.advance(1.0); pin.state = 1 - pin.state
>>> len(pin.history) <= 2 * HISTORY_SECONDS + 1, pin.history[-1][0]
(True, 2501.5)
>>> len(pin.states) <= 2 * STATES_KEPT
True
"""

from __future__ import annotations

import bisect
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.clock import Clock, monotonic
from hardware.pinmap import HEADER_40_REVISION

# How far back a pin's history reaches: readers look back a blink window
# (1.2 s, hardware/sim/gpio.py) or to a moment they noted, never minutes. A
# blinking light changes a few times a second for as long as the simulator
# runs, and both lists grew without end (a 1,600-action script: 21 MB).
HISTORY_SECONDS = 60.0
STATES_KEPT = 1_000  # of gpiozero's own ``states``, by count: it dates them by another clock


class ClockedMockPin(MockPWMPin):  # type: ignore[misc]
    """A ``MockPWMPin`` whose ``history`` lists ``(clock time, state)`` for
    its changes over the last :data:`HISTORY_SECONDS` (and the one before,
    the state the pin had then)."""

    def __init__(self, factory: Any, info: Any) -> None:
        self.history: list[tuple[float, float]] = []
        super().__init__(factory, info)
        self.history = [(self._now(), float(self._state))]

    def _now(self) -> float:
        clock: Clock = getattr(self.factory, "clock", monotonic)
        return clock()

    def _change_state(self, value: Any) -> bool:
        changed: bool = super()._change_state(value)
        if changed:
            now = self._now()
            self.history.append((now, float(value)))
            self._forget(now)
        return changed

    def _forget(self, now: float) -> None:
        """Drop what no reader looks at any more; at most once a horizon, so
        a change costs no more than it did."""
        history = self.history
        if history[0][0] < now - 2 * HISTORY_SECONDS:
            first_kept = bisect.bisect_left(history, now - HISTORY_SECONDS, key=lambda e: e[0])
            del history[: first_kept - 1]
        if len(self.states) > 2 * STATES_KEPT:
            del self.states[:-STATES_KEPT]


def clocked_mock_factory(clock: Clock, revision: int = HEADER_40_REVISION) -> Any:
    """A ``MockFactory`` of :class:`ClockedMockPin` reading ``clock``."""
    factory = MockFactory(revision=f"{revision:x}", pin_class=ClockedMockPin)
    factory.clock = clock
    return factory


class PinsByName:
    """A mock factory's pins by name, as ``factory.pin(name)`` gives them,
    without gpiozero's search of the board's headers on every look (each
    search walks every header's every pin: a tenth of a simulated drop's
    time went there). The pin is still the factory's own: one that
    ``reset()`` dropped is looked up again.

    >>> from hardware.clock import FakeClock
    >>> factory = clocked_mock_factory(FakeClock())
    >>> pins = PinsByName(factory)
    >>> pins["GPIO17"] is factory.pin("GPIO17") is pins["GPIO17"]
    True
    >>> factory.reset(); pins["GPIO17"] is factory.pin("GPIO17")
    True
    """

    def __init__(self, factory: Any) -> None:
        self._factory = factory
        self._info: dict[str, Any] = {}  # by name: the pin's entry in the factory's pins

    def __getitem__(self, name: str) -> Any:
        info = self._info.get(name)
        pin = self._factory.pins.get(info) if info is not None else None
        if pin is None:
            pin = self._factory.pin(name)
            self._info[name] = pin.info
        return pin
