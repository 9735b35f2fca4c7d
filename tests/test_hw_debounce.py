"""The debouncers, fed edges directly: bounce, close drops, glitches, timers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.debounce import (
    BeamDebouncer,
    BeamTiming,
    ButtonDebouncer,
    Hold,
    Passage,
    Press,
    Stuck,
    SwitchDebouncer,
    Unstuck,
)


def feed(beam: BeamDebouncer, edges: list[tuple[bool, float]], until: float) -> list[object]:
    out: list[object] = []
    for level, at in edges:
        out += beam.edge(level, at)
    out += beam.advance(until)
    return out


def test_a_clean_passage_is_one_disc_dated_by_its_first_edge() -> None:
    assert feed(BeamDebouncer(), [(True, 1.0), (False, 1.04)], 2.0) == [Passage(1.0)]


def test_bounce_of_5ms_at_both_edges_stays_one_disc() -> None:
    edges = [
        (True, 1.000),
        (False, 1.001),
        (True, 1.003),
        (False, 1.004),
        (True, 1.005),
        (False, 1.035),
        (True, 1.037),
        (False, 1.040),
    ]
    assert feed(BeamDebouncer(), edges, 2.0) == [Passage(1.0)]


@pytest.mark.parametrize("blocked_for", [0.020, 0.030, 0.040])
def test_two_discs_dropped_60ms_apart_are_two(blocked_for: float) -> None:
    edges = [(True, 0.0), (False, blocked_for), (True, 0.060), (False, 0.060 + blocked_for)]
    assert feed(BeamDebouncer(), edges, 1.0) == [Passage(0.0), Passage(0.060)]


def test_a_glitch_shorter_than_min_blocked_is_not_a_disc() -> None:
    assert feed(BeamDebouncer(), [(True, 1.0), (False, 1.001)], 2.0) == []


def test_the_passage_is_certain_only_after_the_settle_window() -> None:
    beam = BeamDebouncer(BeamTiming(settle=0.01))
    beam.edge(True, 0.0)
    beam.edge(False, 0.03)
    assert beam.deadline() == pytest.approx(0.04)
    assert beam.advance(0.039) == []
    assert beam.advance(beam.deadline() or 0) == [Passage(0.0)]
    assert beam.deadline() is None


def test_a_beam_blocked_for_seconds_is_a_fault_then_cleared_not_a_disc() -> None:
    beam = BeamDebouncer(BeamTiming(stuck=3.0))
    beam.edge(True, 10.0)
    assert beam.deadline() == 13.0
    assert beam.advance(12.9) == []
    assert beam.advance(13.0) == [Stuck(13.0)]
    assert beam.advance(20.0) == []
    beam.edge(False, 20.0)
    assert beam.advance(21.0) == [Unstuck(20.008)]


def test_a_beam_blocked_at_start_never_becomes_a_disc() -> None:
    beam = BeamDebouncer(blocked=True, now=0.0)
    assert feed(beam, [(False, 0.5)], 1.0) == []
    assert feed(beam, [(True, 2.0), (False, 2.04)], 3.0) == [Passage(2.0)]


def test_a_repeated_level_is_ignored() -> None:
    assert feed(BeamDebouncer(), [(True, 0.0), (True, 0.01), (False, 0.04)], 1.0) == [Passage(0.0)]


@given(
    st.lists(
        st.tuples(
            st.floats(0.020, 0.060),
            st.floats(0.020, 0.5),
            st.lists(st.floats(0.0002, 0.001), max_size=3),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_any_bounce_within_5ms_counts_each_disc_once(
    discs: list[tuple[float, float, list[float]]],
) -> None:
    edges: list[tuple[bool, float]] = []
    starts = []
    t = 1.0
    for blocked, gap, bounces in discs:
        starts.append(t)
        edges.append((True, t))
        b = t
        for width in bounces:  # bounce within the first 5 ms of the passage
            edges += [(False, b + width), (True, b + 2 * width)]
            b += 2 * width
        edges.append((False, t + blocked))
        t += blocked + gap
    assert feed(BeamDebouncer(), edges, t + 1) == [Passage(s) for s in starts]


def test_switch_bounce_is_one_change_dated_by_its_first_edge() -> None:
    switch = SwitchDebouncer()
    for level, at in [(True, 1.0), (False, 1.002), (True, 1.004)]:
        switch.edge(level, at)
    assert switch.advance(1.013) == []
    assert switch.advance(1.015) == [(True, 1.0)]
    assert switch.active


def test_a_switch_that_bounces_back_changes_nothing() -> None:
    switch = SwitchDebouncer()
    switch.edge(True, 1.0)
    switch.edge(False, 1.003)
    assert switch.advance(2.0) == []
    assert not switch.active


def test_a_short_press_is_a_press_on_release() -> None:
    button = ButtonDebouncer()
    out = button.edge(True, 1.0) + button.edge(False, 1.3) + button.advance(1.4)
    assert out == [Press(1.3)]


def test_a_hold_is_reported_once_at_the_hold_time_while_still_held() -> None:
    button = ButtonDebouncer()
    button.edge(True, 1.0)
    assert button.advance(1.5) == []
    assert button.deadline() == 3.0
    assert button.advance(3.0) == [Hold(3.0)]
    assert button.advance(4.0) == []
    assert button.edge(False, 5.0) + button.advance(6.0) == []


def test_a_hold_is_found_even_when_nothing_polled_during_it() -> None:
    button = ButtonDebouncer()
    button.edge(True, 1.0)
    assert button.edge(False, 4.0) + button.advance(5.0) == [Hold(3.0)]
