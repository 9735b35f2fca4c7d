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

from typing import Any

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


Mark = dict[str, Any]
"""The counters consumed up to and including one event: what the daemon
journals with that event, so a restart counts exactly what it missed."""


class _Cursor:
    """Counters consumed so far, advanced one event at a time."""

    def __init__(self, hb: wire.Heartbeat) -> None:
        self.boot = hb.boot_id
        self.drops = list(hb.drops)
        self.pops = list(hb.pops)
        self.slider_changes = hb.slider_changes
        self.slider = hb.slider
        self.presses = hb.presses
        self.holds = hb.holds

    def mark(self) -> Mark:
        return {
            "boot": self.boot,
            "drops": list(self.drops),
            "pops": list(self.pops),
            "slider_changes": self.slider_changes,
            "slider": self.slider,
            "presses": self.presses,
            "holds": self.holds,
        }


def _from_mark(mark: Mark) -> wire.Heartbeat:
    """A heartbeat that says exactly what ``mark`` consumed (no faults: a
    restarted daemon must hear about any that are still there)."""
    return wire.Heartbeat(
        int(mark["boot"]), 0, wire.NO_DISPLAY, bool(mark["slider"]), int(mark["slider_changes"]),
        False, int(mark["presses"]), int(mark["holds"]), 0, 0,
        [int(d) for d in mark["drops"]], [int(p) for p in mark["pops"]],
    )  # fmt: skip


class CounterTracker:
    """The host's memory of the counters it has turned into events."""

    def __init__(self, columns: int) -> None:
        self.columns = columns
        self.boot_id: int | None = None
        self.last: wire.Heartbeat | None = None
        self.resets = 0

    def resume(self, mark: Mark) -> None:
        """Continue from a journalled mark instead of taking the first
        heartbeat as a baseline: what the board counted while the daemon was
        down (or between an event and its journal record) becomes events."""
        hb = _from_mark(mark)
        if len(hb.drops) != self.columns or len(hb.pops) != self.columns:
            return  # a mark from another grid: start from a baseline instead
        self.last = hb
        self.boot_id = hb.boot_id

    def update(self, hb: wire.Heartbeat, now: float) -> list[Event]:
        """The events between the last heartbeat and ``hb``, oldest first as
        far as the counters can tell (slider opening first, closing last)."""
        return [event for event, _ in self.update_marked(hb, now)]

    def update_marked(self, hb: wire.Heartbeat, now: float) -> list[tuple[Event, Mark | None]]:
        """As :meth:`update`, each event with the counters consumed up to it
        (``None`` for sensor faults, which are levels, not counts)."""
        if self.last is None:
            self.last = hb  # first contact: what happened before is not ours to count
            self.boot_id = hb.boot_id
            return []
        old = self.last
        if hb.boot_id != self.boot_id:
            self.resets += 1
            self.boot_id = hb.boot_id
            zero = [0] * len(hb.drops)
            old = wire.Heartbeat(
                hb.boot_id, 0, wire.NO_DISPLAY, old.slider, 0, False, 0, 0,
                old.entry_faults, old.exit_faults, zero, list(zero),
            )  # fmt: skip
        events = self._diff(old, hb, now)
        self.last = hb
        return events

    def _diff(
        self, old: wire.Heartbeat, new: wire.Heartbeat, now: float
    ) -> list[tuple[Event, Mark | None]]:
        cursor = _Cursor(old)
        cursor.boot = new.boot_id
        events: list[tuple[Event, Mark | None]] = []

        def slider(state: bool, counted: bool) -> tuple[Event, Mark]:
            if counted:
                cursor.slider_changes = (cursor.slider_changes + 1) & 0xFFFF
            cursor.slider = state
            return SliderMoved(open=state, at=now), cursor.mark()

        # the slider's changes in the order they happened (a mark must be a
        # true prefix of them); discs go after the last opening, which emptied
        # the grid, and before any closing that follows it
        flips: list[tuple[bool, bool]] = []
        state = old.slider
        for _ in range(_delta(new.slider_changes, old.slider_changes)):
            state = not state
            flips.append((state, True))
        if state != new.slider:  # after a reset the count cannot tell: trust the level
            flips.append((new.slider, False))
        opened = [i for i, (is_open, _) in enumerate(flips) if is_open]
        split = opened[-1] + 1 if opened else 0
        events += [slider(*flip) for flip in flips[:split]]
        columns = min(self.columns, len(new.drops), len(old.drops))
        for c in range(columns):
            for _ in range(_delta(new.drops[c], old.drops[c])):
                cursor.drops[c] = (cursor.drops[c] + 1) & 0xFFFF
                events.append((DiscEntered(c + 1, at=now), cursor.mark()))
        for c in range(columns):
            for _ in range(_delta(new.pops[c], old.pops[c])):
                cursor.pops[c] = (cursor.pops[c] + 1) & 0xFFFF
                events.append((DiscLeft(c + 1, at=now), cursor.mark()))
        events += [slider(*flip) for flip in flips[split:]]
        for _ in range(_delta(new.presses, old.presses)):
            cursor.presses = (cursor.presses + 1) & 0xFFFF
            events.append((ButtonPressed(at=now), cursor.mark()))
        for _ in range(_delta(new.holds, old.holds)):
            cursor.holds = (cursor.holds + 1) & 0xFFFF
            events.append((ButtonHeld(at=now), cursor.mark()))
        faults = self._faults("entry", old.entry_faults, new.entry_faults, now)
        faults += self._faults("exit", old.exit_faults, new.exit_faults, now)
        events += [(fault, None) for fault in faults]
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
