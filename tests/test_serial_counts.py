"""Cumulative counters to events: exactly once, across losses, wraps and resets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hardware import wire
from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    DiscEntered,
    DiscLeft,
    SensorCleared,
    SensorFault,
    SliderMoved,
)
from hardware.serial_counts import CounterTracker


def beat(boot: int = 1, drops: tuple[int, ...] = (0, 0, 0), pops: tuple[int, ...] = (0, 0, 0),
         slider: bool = False, changes: int = 0, presses: int = 0, holds: int = 0,
         entry_faults: int = 0) -> wire.Heartbeat:  # fmt: skip
    return wire.Heartbeat(boot, 0, wire.NO_DISPLAY, slider, changes, False, presses, holds,
                          entry_faults, 0, list(drops), list(pops))  # fmt: skip


def test_first_contact_is_a_baseline() -> None:
    tracker = CounterTracker(3)
    assert tracker.update(beat(drops=(5, 1, 0)), 1.0) == []
    assert tracker.update(beat(drops=(5, 2, 0), pops=(0, 0, 1)), 2.0) == [
        DiscEntered(2, at=2.0),
        DiscLeft(3, at=2.0),
    ]


@given(st.lists(st.lists(st.integers(0, 3), min_size=3, max_size=3), max_size=30), st.data())
def test_lost_heartbeats_cost_nothing(steps: list[list[int]], data: st.DataObject) -> None:
    tracker = CounterTracker(3)
    start = data.draw(st.integers(0, 0xFFFF))  # counters may wrap during the run
    counts = [start] * 3
    tracker.update(beat(drops=tuple(counts)), 0.0)
    seen = [0, 0, 0]
    for i, step in enumerate(steps):
        counts = [(c + s) & 0xFFFF for c, s in zip(counts, step, strict=True)]
        if data.draw(st.booleans()):  # this heartbeat got through
            for event in tracker.update(beat(drops=tuple(counts)), float(i)):
                assert isinstance(event, DiscEntered)
                seen[event.column - 1] += 1
    for event in tracker.update(beat(drops=tuple(counts)), 99.0):
        assert isinstance(event, DiscEntered)
        seen[event.column - 1] += 1
    assert seen == [sum(step[c] for step in steps) for c in range(3)]


def test_a_new_boot_id_counts_from_zero() -> None:
    tracker = CounterTracker(3)
    tracker.update(beat(boot=1, drops=(9, 9, 9)), 0.0)
    tracker.update(beat(boot=1, drops=(10, 9, 9)), 1.0)
    events = tracker.update(beat(boot=2, drops=(0, 1, 0), pops=(2, 0, 0)), 2.0)
    assert events == [DiscEntered(2, at=2.0), DiscLeft(1, at=2.0), DiscLeft(1, at=2.0)]
    assert tracker.resets == 1


def test_slider_transitions_are_replayed_in_order() -> None:
    tracker = CounterTracker(3)
    tracker.update(beat(), 0.0)
    # opened, emptied column 1 twice, closed: all inside one lost heartbeat
    events = tracker.update(beat(slider=False, changes=2, pops=(2, 0, 0)), 1.0)
    assert events == [
        SliderMoved(open=True, at=1.0),
        DiscLeft(1, at=1.0),
        DiscLeft(1, at=1.0),
        SliderMoved(open=False, at=1.0),
    ]


def test_slider_level_after_a_reset() -> None:
    tracker = CounterTracker(3)
    tracker.update(beat(boot=1, slider=False), 0.0)
    assert tracker.update(beat(boot=2, slider=True), 1.0) == [SliderMoved(open=True, at=1.0)]


def test_button_and_beam_faults() -> None:
    tracker = CounterTracker(3)
    tracker.update(beat(), 0.0)
    events = tracker.update(beat(presses=1, holds=1, entry_faults=0b100), 1.0)
    assert events[:2] == [ButtonPressed(at=1.0), ButtonHeld(at=1.0)]
    fault = events[2]
    assert isinstance(fault, SensorFault)
    assert fault.sensor == "entry 3"
    assert "column 3" in fault.message
    assert tracker.update(beat(presses=1, holds=1), 2.0) == [SensorCleared("entry 3", at=2.0)]
