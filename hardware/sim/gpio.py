"""The simulated grid's wires on gpiozero's mock pins.

:class:`MockWires` sets sensor levels the way the sensors' outputs would, with
``MockPin.drive_low()``/``drive_high()``; :class:`PinLightReader` reads what
the outputs show from the mock output pins' own states and change history.
Neither talks to the daemon: it sees only the pins.

>>> from hardware.clock import FakeClock
>>> from hardware.pinmap import PinMap
>>> from hardware.sim.mockpins import clocked_mock_factory
>>> factory = clocked_mock_factory(FakeClock())
>>> wires = MockWires(PinMap.default(), factory)
>>> wires.slider(open=True)
>>> factory.pin("GPIO2").state   # active low: open pulls the line down
False
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.colour import Colour
from hardware import looks
from hardware.clock import Clock
from hardware.outputs import on_off
from hardware.pinmap import SERVO_TRAVEL, PinMap
from hardware.sim.mockpins import PinsByName
from hardware.sim.seam import Beam, ShownLights

BLINK_WINDOW = 1.2  # a light that changed twice within this many seconds blinks
# A fast blink changes every step of the blink clock, a slow one every two:
# two changes closer than a step and a half apart are a fast blink.
FAST_GAP = 1.5 * looks.STEP_MS / 1000


class MockWires:
    """:class:`hardware.sim.seam.SensorWires` on mock pins, plus the faults a
    wire can have: a cut wire never changes, a missed edge changes the level
    without the pin noticing the edge."""

    def __init__(self, pins: PinMap, factory: Any) -> None:
        self.pins = pins
        self._by_name = PinsByName(factory)
        self.cut: set[str] = set()  # input names ("entry 3") whose wire is cut

    def _drive(
        self, name: str, pin: str, active: bool, active_level: str, *, silent: bool = False
    ) -> None:
        if name in self.cut:
            return
        high = active == (active_level == "high")
        mock = self._by_name[pin]
        if silent:
            # a missed edge: the level changes but no edge is reported. This
            # is MockPin's own state change minus its edge callback.
            mock._change_state(high)
        elif high:
            mock.drive_high()
        else:
            mock.drive_low()

    def beam(self, beam: Beam, column: int, blocked: bool, *, silent: bool = False) -> None:
        p = self.pins
        pins, active = (p.entry, p.entry_active) if beam is Beam.ENTRY else (p.exit, p.exit_active)
        self._drive(f"{beam.value} {column}", pins[column - 1], blocked, active, silent=silent)

    def disc_colour(self, column: int, colour: Colour | None) -> None:
        if not self.pins.colour or colour is None:
            return
        self._drive(
            f"colour {column}",
            self.pins.colour[column - 1],
            colour is self.pins.colour_high,
            "high",
        )

    def slider(self, open: bool) -> None:
        self._drive("slider", self.pins.slider, open, self.pins.slider_active)

    def button(self, pressed: bool) -> None:
        self._drive("button", self.pins.button, pressed, self.pins.button_active)


class PinLightReader:
    """:class:`hardware.sim.seam.LightReader` over mock output pins.

    A light blinks when its pins changed at least twice in the last
    ``BLINK_WINDOW`` seconds; a blinking light reports the colour it blinks
    with even while momentarily dark. A servo dial keeps showing where it was
    last driven after it is detached, as a real dial does (a broken lamp:
    :class:`hardware.sim.broken.BrokenLights`).
    """

    def __init__(self, pins: PinMap, factory: Any, clock: Clock) -> None:
        self.pins = pins
        self._by_name = PinsByName(factory)
        self._clock = clock

    def _pin(self, name: str) -> Any:
        return self._by_name[name]

    def _history(self, name: str) -> list[tuple[float, float]]:
        pin = self._pin(name)
        history: list[tuple[float, float]] = getattr(pin, "history", [(0.0, pin.state)])
        return history

    def _recent(self, name: str, now: float) -> tuple[int, bool]:
        """Changes within the blink window, and whether it was lit in it."""
        changes = _newest(self._history(name), now - BLINK_WINDOW)
        lit = bool(self._pin(name).state) or any(s for _, s in changes)
        return len(changes), lit

    def _parts(self, column: int) -> tuple[str, ...]:
        """The output pins of one column's light."""
        if self.pins.column_rgb:
            return self.pins.column_rgb[column - 1]
        return (self.pins.column_lights[column - 1],)

    def _column(self, column: int, now: float) -> tuple[str | None, bool]:
        parts = self._parts(column)
        recent = [self._recent(p, now) for p in parts]
        blinking = any(n >= 2 for n, _ in recent)
        on = [bool(self._pin(p).state) for p in parts]
        if blinking:
            on = [lit for _, lit in recent]
        if not any(on):
            return None, False
        if len(parts) == 1:
            return "on", blinking
        for name in looks.PALETTE:
            if tuple(int(x) for x in on) == on_off(name):
                return name, blinking
        return "mixed", blinking

    def _lit(self, pin: str | None) -> bool:
        return pin is not None and bool(self._pin(pin).state)

    def _servo_score(self, pin: str) -> int | None:
        driven = [s for _, s in self._history(pin) if s > 0]
        if not driven:
            return None
        # gpiozero's defaults: 1-2 ms pulses in a 20 ms frame (50 Hz) over the travel
        pulse = driven[-1] * 0.020
        least, most = SERVO_TRAVEL
        angle = least + (most - least) * (pulse - 0.001) / 0.001
        low, high = self.pins.servo_range
        return round((angle - low) / (high - low) * 10)

    def _scores(self) -> tuple[int, int] | None:
        p = self.pins
        if p.score_red_bar or p.score_yellow_bar:
            return (
                sum(bool(self._pin(x).state) for x in p.score_red_bar),
                sum(bool(self._pin(x).state) for x in p.score_yellow_bar),
            )
        if p.score_red_servo or p.score_yellow_servo:
            red = self._servo_score(p.score_red_servo) if p.score_red_servo else None
            yellow = self._servo_score(p.score_yellow_servo) if p.score_yellow_servo else None
            return (red or 0, yellow or 0)
        return None

    def fast_blinking(self) -> frozenset[int]:
        """The columns (1-based) that blink fast: two changes of a pin within
        the blink window less than :data:`FAST_GAP` apart. On a plain LED
        that tells ``ERROR`` and the computer's pop (fast) from ``CHOSEN``
        and the computer's drop (slow), as a person's eye does; see
        ``FirmwareLights.fast_blinking`` for the strip."""
        if not (self.pins.column_lights or self.pins.column_rgb):
            return frozenset()
        now = self._clock()
        fast = set()
        for column in range(1, self.pins.columns + 1):
            for part in self._parts(column):
                times = [t for t, _ in _newest(self._history(part), now - BLINK_WINDOW)]
                if any(a - b < FAST_GAP for a, b in itertools.pairwise(times)):
                    fast.add(column)
        return frozenset(fast)

    def shown(self) -> ShownLights:
        now = self._clock()
        has_lights = bool(self.pins.column_lights or self.pins.column_rgb)
        columns = [
            self._column(c, now) if has_lights else (None, False)
            for c in range(1, self.pins.columns + 1)
        ]
        return ShownLights(
            columns=tuple(c for c, _ in columns),
            blinking=frozenset(i for i, (_, b) in enumerate(columns, 1) if b),
            turn_red=self._lit(self.pins.turn_red),
            turn_yellow=self._lit(self.pins.turn_yellow),
            scores=self._scores(),
            buzzer=self._lit(self.pins.buzzer),
        )


def _newest(history: list[tuple[float, float]], since: float) -> list[tuple[float, float]]:
    """A pin's changes after ``since``, newest first, read only as far back
    as that: its history is as long as the run (its first entry is no
    change), and reading all of it at every look made each simulated drop
    slower as the run went on (8 ms early, 17 ms a dozen moves later)."""
    changes = itertools.islice(reversed(history), len(history) - 1)
    return list(itertools.takewhile(lambda change: change[0] > since, changes))
