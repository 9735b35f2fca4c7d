"""The events between two of the board's heartbeats, each with its *mark*:
the counters consumed up to and including it, which the daemon journals
with the event so that a restart counts exactly what it missed.

Whether a heartbeat can be believed is :mod:`hardware.serial_counts`'
judgement; this module only counts.

>>> old = wire.Heartbeat(7, 0, 0, False, 0, False, 0, 0, 0, 0, [3, 0], [0, 0])
>>> new = wire.Heartbeat(7, 200, 0, False, 0, False, 1, 0, 0, 0, [4, 0], [0, 0])
>>> [(type(event).__name__, mark["drops"]) for event, mark in events_between(old, new, 2.0)]
[('DiscEntered', [4, 0]), ('ButtonPressed', [4, 0])]
"""

from __future__ import annotations

from hardware import wire
from hardware.backend import Mark
from hardware.events import ButtonHeld, ButtonPressed, DiscEntered, DiscLeft, Event, SliderMoved


def delta(new: int, old: int) -> int:
    """How far a 16-bit counter moved forwards from ``old`` to ``new``.

    >>> delta(2, 65535)
    3
    """
    return (new - old) & 0xFFFF


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


def from_mark(mark: Mark) -> wire.Heartbeat:
    """A heartbeat that says exactly what ``mark`` consumed (no faults: a
    restarted daemon must hear about any that are still there)."""
    return wire.Heartbeat(
        int(mark["boot"]), 0, wire.NO_DISPLAY, bool(mark["slider"]), int(mark["slider_changes"]),
        False, int(mark["presses"]), int(mark["holds"]), 0, 0,
        [int(d) for d in mark["drops"]], [int(p) for p in mark["pops"]],
    )  # fmt: skip


def events_between(
    old: wire.Heartbeat, new: wire.Heartbeat, now: float
) -> list[tuple[Event, Mark | None]]:
    """The counted events from ``old`` to ``new`` (of ``new``'s boot), oldest
    first as far as the counters can tell, each with its mark: the slider's
    changes in the order they happened (a mark must be a true prefix of
    them), discs after the last opening, which emptied the grid, and before
    any closing that follows it, then the button."""
    cursor = _Cursor(old)
    cursor.boot = new.boot_id
    events: list[tuple[Event, Mark | None]] = []

    def slider(state: bool, counted: bool) -> tuple[Event, Mark]:
        if counted:
            cursor.slider_changes = (cursor.slider_changes + 1) & 0xFFFF
        cursor.slider = state
        return SliderMoved(open=state, at=now), cursor.mark()

    flips: list[tuple[bool, bool]] = []
    state = old.slider
    for _ in range(delta(new.slider_changes, old.slider_changes)):
        state = not state
        flips.append((state, True))
    if state != new.slider:  # after a reset the count cannot tell: trust the level
        flips.append((new.slider, False))
    opened = [i for i, (is_open, _) in enumerate(flips) if is_open]
    split = opened[-1] + 1 if opened else 0
    events += [slider(*flip) for flip in flips[:split]]
    columns = min(len(new.drops), len(old.drops))
    for c in range(columns):
        for _ in range(delta(new.drops[c], old.drops[c])):
            cursor.drops[c] = (cursor.drops[c] + 1) & 0xFFFF
            events.append((DiscEntered(c + 1, at=now), cursor.mark()))
    for c in range(columns):
        for _ in range(delta(new.pops[c], old.pops[c])):
            cursor.pops[c] = (cursor.pops[c] + 1) & 0xFFFF
            events.append((DiscLeft(c + 1, at=now), cursor.mark()))
    events += [slider(*flip) for flip in flips[split:]]
    for _ in range(delta(new.presses, old.presses)):
        cursor.presses = (cursor.presses + 1) & 0xFFFF
        events.append((ButtonPressed(at=now), cursor.mark()))
    for _ in range(delta(new.holds, old.holds)):
        cursor.holds = (cursor.holds + 1) & 0xFFFF
        events.append((ButtonHeld(at=now), cursor.mark()))
    return events
