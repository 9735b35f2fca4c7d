"""The input side of the GPIO backend: gpiozero input devices → events.

gpiozero's callbacks (on its threads, or synchronously on mock pins) only
append ``(source, active, clock())`` to a deque and call ``wake``. Everything
else happens in :meth:`GpioInputs.poll` on the daemon's thread.

>>> from hardware.factory import make_pin_factory
>>> from hardware.clock import FakeClock
>>> from hardware.pinmap import PinMap
>>> factory, clock = make_pin_factory("mock"), FakeClock()
>>> inputs = GpioInputs(PinMap.default(), factory, clock)
>>> inputs.open(lambda: None)
>>> factory.pin("GPIO2").drive_low()   # the slider opens (active low)
>>> inputs.poll(0.02)
[SliderMoved(open=True, at=0.0)]
>>> inputs.close()
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.colour import Colour
from engine.sentence import Sentence
from hardware.clock import Clock
from hardware.debounce import (
    BeamDebouncer,
    ButtonDebouncer,
    Hold,
    Passage,
    Press,
    Stuck,
    SwitchDebouncer,
)
from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    DiscEntered,
    DiscLeft,
    Event,
    SensorCleared,
    SensorFault,
    SliderMoved,
)
from hardware.pinmap import PinMap

REREAD = 0.5  # seconds between level re-reads that repair missed edges


@dataclass(frozen=True, slots=True)
class _Source:
    kind: str  # "entry", "exit", "colour", "slider", "button"
    column: int = 0

    def __str__(self) -> str:
        return f"{self.kind} {self.column}" if self.column else self.kind


def _stuck_message(source: _Source) -> Sentence:
    if source.kind == "entry":
        return Sentence(
            "The entry beam at the top of column {column} has been blocked for seconds; "
            "remove what is stuck in it or check its wiring",
            column=source.column,
        )
    return Sentence(
        "The exit beam under column {column} has been blocked for seconds; "
        "remove what is stuck in it or check its wiring",
        column=source.column,
    )


class GpioInputs:
    """Every sensor of a :class:`PinMap` as gpiozero ``InputDevice``s,
    debounced into :mod:`hardware.events`."""

    def __init__(self, pins: PinMap, factory: Any, clock: Clock, *, reread: float = REREAD) -> None:
        self.pins = pins
        self._factory = factory
        self._clock = clock
        self._reread = reread
        self._raw: deque[tuple[_Source, bool, float]] = deque()
        self._devices: dict[_Source, Any] = {}
        self._recorders: list[Callable[[int, int], None]] = []
        self._beams: dict[_Source, BeamDebouncer] = {}
        self._colour: dict[int, bool] = {}  # colour bit level per column, as last seen
        self._colour_at_start: dict[int, Colour] = {}  # per passage in progress
        self._slider: SwitchDebouncer | None = None
        self._button: ButtonDebouncer | None = None
        self._next_reread: float | None = None
        self._pending: list[Event] = []

    def open(self, wake: Callable[[], None]) -> None:
        """Claim the pins and start recording edges."""
        from gpiozero import InputDevice

        p = self.pins
        plan: list[tuple[_Source, str, str]] = []
        plan += [(_Source("entry", c), pin, p.entry_active) for c, pin in enumerate(p.entry, 1)]
        plan += [(_Source("exit", c), pin, p.exit_active) for c, pin in enumerate(p.exit, 1)]
        plan += [(_Source("colour", c), pin, "high") for c, pin in enumerate(p.colour, 1)]
        plan += [
            (_Source("slider"), p.slider, p.slider_active),
            (_Source("button"), p.button, p.button_active),
        ]
        try:
            for source, pin, level in plan:
                # Pull the line to its inactive level: open-collector IR
                # receivers and switches to ground need the pull-up.
                device = InputDevice(pin, pull_up=level == "low", pin_factory=self._factory)
                # The pin's own callback, not the device's when_activated:
                # gpiozero's event devices drop an edge whose level they
                # already believe, so after one missed edge the next disc's
                # edge would vanish too. Every edge here carries its level.
                device.pin.edges = "both"
                recorder = self._recorder(source, level == "high", wake)
                # gpiozero holds pin callbacks by weak reference: keep ours alive
                self._recorders.append(recorder)
                device.pin.when_changed = recorder
                self._devices[source] = device
        except Exception:
            self.close()
            raise
        now = self._clock()
        for source, device in self._devices.items():
            active = bool(device.value)
            if source.kind in ("entry", "exit"):
                self._beams[source] = BeamDebouncer(p.beam, blocked=active, now=now)
            elif source.kind == "colour":
                self._colour[source.column] = active
            elif source.kind == "slider":
                self._slider = SwitchDebouncer(p.switch, active=active, now=now)
                if active:
                    # an open slider at start is news: the grid cannot hold discs
                    self._pending.append(SliderMoved(open=True, at=now))
            else:
                self._button = ButtonDebouncer(p.switch, pressed=active, now=now)
        self._next_reread = now + self._reread

    def _recorder(
        self, source: _Source, active_high: bool, wake: Callable[[], None]
    ) -> Callable[[int, int], None]:
        raw, clock = self._raw, self._clock

        def record(ticks: int, state: int) -> None:
            raw.append((source, bool(state) == active_high, clock()))
            wake()

        return record

    def poll(self, now: float) -> list[Event]:
        """Debounce the edges recorded so far, run the timers to ``now``, and
        return the events that became certain, oldest first."""
        events, self._pending = self._pending, []
        while self._raw:
            source, active, at = self._raw.popleft()
            events += self._feed(source, active, at)
        if self._next_reread is not None and now >= self._next_reread:
            events += self._repair(now)
            self._next_reread = now + self._reread
        events += self._advance(now)
        events.sort(key=lambda e: e.at)
        return events

    def _repair(self, now: float) -> list[Event]:
        """Feed any level that differs from what the edges told us: a missed
        edge must not leave a beam believed blocked."""
        events: list[Event] = []
        for source, device in self._devices.items():
            active = bool(device.value)
            if active != self._believed(source):
                events += self._feed(source, active, now)
        return events

    def _believed(self, source: _Source) -> bool:
        if source.kind in ("entry", "exit"):
            return self._beams[source].blocked
        if source.kind == "colour":
            return self._colour[source.column]
        if source.kind == "slider":
            assert self._slider is not None
            return self._slider.raw
        assert self._button is not None
        return self._button.raw

    def _feed(self, source: _Source, active: bool, at: float) -> list[Event]:
        if source.kind in ("entry", "exit"):
            beam = self._beams[source]
            before = beam.passage_start
            out = self._beam_events(source, beam.edge(active, at))
            if (
                beam.passage_start is not None
                and beam.passage_start != before
                and source.kind == "entry"
                and source.column in self._colour
            ):
                # The colour bit is read as it stands when the beam is first
                # blocked: the colour sensor sits at the beam and sees the disc
                # then, and only then.
                self._colour_at_start[source.column] = self._colour_of(source.column)
            return out
        if source.kind == "colour":
            self._colour[source.column] = active
            return []
        if source.kind == "slider":
            assert self._slider is not None
            return [SliderMoved(open=o, at=t) for o, t in self._slider.edge(active, at)]
        assert self._button is not None
        return self._button_events(self._button.edge(active, at))

    def _advance(self, now: float) -> list[Event]:
        events: list[Event] = []
        for source, beam in self._beams.items():
            events += self._beam_events(source, beam.advance(now))
        if self._slider is not None:
            events += [SliderMoved(open=o, at=t) for o, t in self._slider.advance(now)]
        if self._button is not None:
            events += self._button_events(self._button.advance(now))
        return events

    def _colour_of(self, column: int) -> Colour:
        high = self._colour[column]
        return self.pins.colour_high if high else self.pins.colour_high.other

    def _beam_events(self, source: _Source, outcomes: list[Any]) -> list[Event]:
        events: list[Event] = []
        for outcome in outcomes:
            if isinstance(outcome, Passage):
                if source.kind == "entry":
                    colour = self._colour_at_start.pop(source.column, None)
                    events.append(DiscEntered(source.column, outcome.at, colour))
                else:
                    events.append(DiscLeft(source.column, outcome.at))
            elif isinstance(outcome, Stuck):
                events.append(SensorFault(str(source), _stuck_message(source), outcome.at))
            else:
                events.append(SensorCleared(str(source), outcome.at))
        return events

    @staticmethod
    def _button_events(outcomes: list[Press | Hold]) -> list[Event]:
        return [ButtonPressed(o.at) if isinstance(o, Press) else ButtonHeld(o.at) for o in outcomes]

    def next_deadline(self) -> float | None:
        """The earliest debounce, hold or stuck timer, or the next re-read."""
        times = [b.deadline() for b in self._beams.values()]
        if self._slider is not None:
            times.append(self._slider.deadline())
        if self._button is not None:
            times.append(self._button.deadline())
        times.append(self._next_reread)
        present = [t for t in times if t is not None]
        return min(present) if present else None

    def levels(self) -> dict[str, bool]:
        """Each input's raw active level now, by name (``"entry 3"``)."""
        return {str(s): bool(d.value) for s, d in self._devices.items()}

    def close(self) -> None:
        """Release every input pin."""
        for device in self._devices.values():
            device.close()
        self._devices.clear()
        self._recorders.clear()
        self._next_reread = None
