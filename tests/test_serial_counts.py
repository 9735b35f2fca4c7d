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
         entry_faults: int = 0, uptime: int = 0) -> wire.Heartbeat:  # fmt: skip
    return wire.Heartbeat(boot, uptime, wire.NO_DISPLAY, slider, changes, False, presses, holds,
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
    tracker = CounterTracker(3, rows=50)  # room for 90 drops across lost heartbeats
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
    tracker.announce(2)  # the board's hello after it reset
    events = tracker.update(beat(boot=2, drops=(0, 1, 0), pops=(2, 0, 0), uptime=900), 2.0)
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
    tracker.announce(2)
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


# -- marks: what a restarted daemon counts on from -----------------------------------


@given(
    st.integers(0, 0xFFFF),
    st.lists(st.integers(0, 2), min_size=3, max_size=3),
    st.lists(st.integers(0, 2), min_size=3, max_size=3),
    st.integers(0, 3),
    st.booleans(),
    st.integers(0, 2),
    st.data(),
)
def test_resuming_from_any_mark_gives_exactly_the_rest(
    start: int,
    drops: list[int],
    pops: list[int],
    changes: int,
    slider: bool,
    presses: int,
    data: st.DataObject,
) -> None:
    """Whatever event of a heartbeat the daemon journalled last before it
    died, a tracker resumed from that event's mark emits the events after it
    and nothing else."""
    old = beat(drops=(start,) * 3, pops=(start,) * 3, slider=slider, changes=start, presses=start)
    new = beat(
        drops=tuple((start + d) & 0xFFFF for d in drops),
        pops=tuple((start + p) & 0xFFFF for p in pops),
        slider=slider != (changes % 2 == 1),
        changes=(start + changes) & 0xFFFF,
        presses=(start + presses) & 0xFFFF,
    )
    tracker = CounterTracker(3)
    tracker.update(old, 0.0)
    marked = tracker.update_marked(new, 1.0)
    assert all(mark is not None for _, mark in marked)
    cut = data.draw(st.integers(0, len(marked) - 1)) if marked else None
    if cut is None:
        return
    resumed = CounterTracker(3)
    mark = marked[cut][1]
    assert mark is not None
    resumed.resume(mark)
    rest = resumed.update(new, 1.0)
    assert rest == [event for event, _ in marked[cut + 1 :]]


def test_the_last_mark_of_a_heartbeat_is_that_heartbeat() -> None:
    tracker = CounterTracker(3)
    tracker.update(beat(slider=True), 0.0)
    # closed and opened again between two heartbeats, a disc dropped meanwhile
    new = beat(drops=(0, 1, 0), slider=True, changes=2, presses=1)
    marked = tracker.update_marked(new, 1.0)
    assert [event for event, _ in marked] == [
        SliderMoved(open=False, at=1.0),
        SliderMoved(open=True, at=1.0),  # the grid is empty after the last opening
        DiscEntered(2, at=1.0),
        ButtonPressed(at=1.0),
    ]
    assert marked[-1][1] == {
        "boot": 1,
        "drops": [0, 1, 0],
        "pops": [0, 0, 0],
        "slider_changes": 2,
        "slider": True,
        "presses": 1,
        "holds": 0,
    }


def test_a_mark_from_another_boot_counts_the_new_boot_from_zero() -> None:
    tracker = CounterTracker(3)
    tracker.resume({"boot": 1, "drops": [4, 0, 0], "pops": [0, 0, 0], "slider_changes": 0,
                    "slider": False, "presses": 0, "holds": 0})  # fmt: skip
    # the board rebooted while the daemon was down, then counted one drop
    tracker.announce(2)
    assert tracker.update(beat(boot=2, drops=(0, 0, 1)), 5.0) == [DiscEntered(3, at=5.0)]
    assert tracker.resets == 1


def test_a_mark_for_another_grid_is_ignored() -> None:
    tracker = CounterTracker(3)
    tracker.resume({"boot": 1, "drops": [0] * 7, "pops": [0] * 7, "slider_changes": 0,
                    "slider": False, "presses": 0, "holds": 0})  # fmt: skip
    assert tracker.update(beat(drops=(2, 0, 0)), 1.0) == []  # a baseline, as at first contact


def test_sensor_faults_carry_no_mark_and_are_told_again_after_a_restart() -> None:
    tracker = CounterTracker(3)
    tracker.update(beat(), 0.0)
    marked = tracker.update_marked(beat(entry_faults=0b010), 1.0)
    assert [(type(e), m) for e, m in marked] == [(SensorFault, None)]
    resumed = CounterTracker(3)
    resumed.resume({"boot": 1, "drops": [0] * 3, "pops": [0] * 3, "slider_changes": 0,
                    "slider": False, "presses": 0, "holds": 0})  # fmt: skip
    assert [type(e) for e in resumed.update(beat(entry_faults=0b010), 2.0)] == [SensorFault]
