"""Turn the board's cumulative counters into events, exactly once each.

A heartbeat carries counters that only grow (mod 65536) since the board
booted. The difference from the last heartbeat seen is what happened in
between, however many heartbeats were lost. A new boot id means the board
reset and its counters restarted at zero, so the new counters are all new.

What is not recoverable: inputs the board counted after its last heartbeat
that reached the host and before it reset (at most one heartbeat interval,
and the board sends a heartbeat at once on every change, so in practice only
a change in the same millisecond as a crash or power cut). The firmware does
not persist counters: flash wear and write time during a reset are worse than
a lost disc, which the referee notices anyway and guides the players through.

>>> counts = CounterTracker(columns=2)
>>> hb = wire.Heartbeat(7, 0, 0, False, 0, False, 0, 0, 0, 0, [3, 0], [0, 0])
>>> counts.update(hb, 1.0)      # first contact: a baseline, nothing new
[]
>>> hb = wire.Heartbeat(7, 200, 0, False, 0, False, 0, 0, 0, 0, [4, 0], [0, 0])
>>> counts.update(hb, 2.0)
[DiscEntered(column=1, at=2.0, colour=None)]
"""

from __future__ import annotations

from hardware import wire
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


def _delta(new: int, old: int) -> int:
    return (new - old) & 0xFFFF


class CounterTracker:
    """The host's memory of the last heartbeat it turned into events."""

    def __init__(self, columns: int) -> None:
        self.columns = columns
        self.boot_id: int | None = None
        self.last: wire.Heartbeat | None = None
        self.resets = 0

    def update(self, hb: wire.Heartbeat, now: float) -> list[Event]:
        """The events between the last heartbeat and ``hb``, oldest first as
        far as the counters can tell (slider opening first, closing last)."""
        if self.last is None:
            self.last = hb  # first contact: what happened before is not ours to count
            self.boot_id = hb.boot_id
            return []
        if hb.boot_id != self.boot_id:
            self.resets += 1
            self.boot_id = hb.boot_id
            zero = [0] * len(hb.drops)
            base = wire.Heartbeat(
                hb.boot_id, 0, wire.NO_DISPLAY, self.last.slider, 0, False, 0, 0,
                self.last.entry_faults, self.last.exit_faults, zero, list(zero),
            )  # fmt: skip
            events = self._diff(base, hb, now)
            self.last = hb
            return events
        events = self._diff(self.last, hb, now)
        self.last = hb
        return events

    def _diff(self, old: wire.Heartbeat, new: wire.Heartbeat, now: float) -> list[Event]:
        opening: list[Event] = []
        closing: list[Event] = []
        state = old.slider
        for _ in range(_delta(new.slider_changes, old.slider_changes)):
            state = not state
            (opening if state else closing).append(SliderMoved(open=state, at=now))
        if state != new.slider:  # after a reset the count cannot tell: trust the level
            state = new.slider
            (opening if state else closing).append(SliderMoved(open=state, at=now))
        events: list[Event] = list(opening)
        columns = min(self.columns, len(new.drops), len(old.drops))
        for c in range(columns):
            events += [DiscEntered(c + 1, at=now)] * _delta(new.drops[c], old.drops[c])
        for c in range(columns):
            events += [DiscLeft(c + 1, at=now)] * _delta(new.pops[c], old.pops[c])
        events += closing
        events += [ButtonPressed(at=now)] * _delta(new.presses, old.presses)
        events += [ButtonHeld(at=now)] * _delta(new.holds, old.holds)
        events += self._faults("entry", old.entry_faults, new.entry_faults, now)
        events += self._faults("exit", old.exit_faults, new.exit_faults, now)
        return events

    def _faults(self, beam: str, old: int, new: int, now: float) -> list[Event]:
        events: list[Event] = []
        where = "top" if beam == "entry" else "bottom"
        for c in range(self.columns):
            bit = 1 << c
            name = f"{beam} {c + 1}"
            if new & bit and not old & bit:
                events.append(SensorFault(
                    name,
                    f"The {beam} beam of column {c + 1} has been blocked for seconds; "
                    f"clear the {where} of the column or check that sensor's wiring.",
                    at=now,
                ))  # fmt: skip
            elif old & bit and not new & bit:
                events.append(SensorCleared(name, at=now))
        return events
