"""Heartbeats that pass the CRC but cannot be right invent nothing (issue 9).

Each rule first on the counter tracker, then over the real path: the
firmware on one end of a pty, pyserial and the serial backend on the other,
with the forged frame written into the board's side with a valid CRC.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.daemon.config import parse_config
from controller.simulator.script import Action
from controller.simulator.simulation import Simulation
from hardware import wire
from hardware.events import (
    DiscEntered,
    DiscLeft,
    Event,
    SensorCleared,
    SensorFault,
    SliderMoved,
)
from hardware.serial_counts import CLEAN, LINK, SILENT, CounterTracker
from hardware.sim.board import BoardTimeline, Firmware, Pair
from hardware.sim.grid import Physics
from hardware.sim.seam import Beam


@dataclasses.dataclass
class State:
    """What a board with three columns has counted."""

    boot: int = 1
    drops: tuple[int, ...] = (0, 0, 0)
    pops: tuple[int, ...] = (0, 0, 0)
    slider: bool = False
    changes: int = 0
    presses: int = 0

    def beat(self) -> wire.Heartbeat:
        return wire.Heartbeat(self.boot, 0, wire.NO_DISPLAY, self.slider, self.changes, False,
                              self.presses, 0, 0, 0, list(self.drops), list(self.pops))  # fmt: skip


def with_drops(state: State, *drops: int) -> State:
    return dataclasses.replace(state, drops=tuple(drops))


def counted(events: list[Event]) -> list[Event]:
    """The events that are not about the link itself."""
    return [e for e in events if not isinstance(e, (SensorFault, SensorCleared))]


def link_faults(events: list[Event]) -> list[SensorFault]:
    return [e for e in events if isinstance(e, SensorFault) and e.sensor == LINK]


def message(faults: list[SensorFault]) -> str:
    assert len(faults) == 1
    return faults[0].message


def cleared_at(events: list[Event]) -> float:
    """When the link fault cleared: the only event of ``events``."""
    assert [type(e) for e in events] == [SensorCleared], events
    return events[0].at


def steady(tracker: CounterTracker, state: State, at: float, seq: int) -> list[Event]:
    """Heartbeats of ``state`` every 0.2 s from ``at`` for a little over
    :data:`CLEAN`: a link fault clears once they have all added up that long."""
    events: list[Event] = []
    for i in range(round(CLEAN / 0.2) + 2):
        events += tracker.update(state.beat(), at + 0.2 * i, seq=(seq + i) & 0xFF)
    return events


@pytest.fixture
def tracker() -> CounterTracker:
    """A tracker that has trusted one heartbeat (frame 10, at t = 1 s)."""
    t = CounterTracker(3, rows=6)
    assert t.update(with_drops(State(), 5, 5, 5).beat(), 1.0, seq=10) == []
    return t


# -- one rule at a time, on the tracker -----------------------------------------------


def test_a_replayed_older_heartbeat_counts_nothing(tracker: CounterTracker) -> None:
    old = with_drops(State(), 5, 5, 5).beat()
    assert counted(tracker.update(with_drops(State(), 6, 5, 5).beat(), 1.5, seq=11)) == [
        DiscEntered(1, at=1.5)
    ]
    events = tracker.update(old, 1.6, seq=10)  # frame 10 again
    assert counted(events) == [] and len(link_faults(events)) == 1
    # the next real heartbeat: its disc counts once, and the fault clears
    # once the reports have added up for a while
    events = tracker.update(with_drops(State(), 6, 6, 5).beat(), 1.8, seq=12)
    assert events == [DiscEntered(2, at=1.8)]
    events = steady(tracker, with_drops(State(), 6, 6, 5), 2.0, 13)
    assert cleared_at(events) == pytest.approx(2.0 + CLEAN)


def test_a_counter_one_lower_counts_nothing(tracker: CounterTracker) -> None:
    events = tracker.update(with_drops(State(), 5, 4, 5).beat(), 1.2, seq=11)
    assert counted(events) == []
    assert "drops in column 2 went back from 5 to 4" in message(link_faults(events))
    assert counted(tracker.update(with_drops(State(), 5, 5, 5).beat(), 1.4, seq=12)) == []


def test_a_boot_id_one_bit_off_is_damage_not_a_reset(tracker: CounterTracker) -> None:
    flipped = dataclasses.replace(with_drops(State(), 5, 5, 6), boot=1 ^ 0x100)
    events = tracker.update(flipped.beat(), 1.2, seq=11)
    assert counted(events) == [] and len(link_faults(events)) == 1
    assert tracker.resets == 0
    events = tracker.update(with_drops(State(), 5, 5, 6).beat(), 1.4, seq=12)
    assert counted(events) == [DiscEntered(3, at=1.4)]  # counted from the old boot, once
    assert tracker.resets == 0 and tracker.boot_id == 1


@pytest.mark.parametrize("n", [0, 2, 4, 7])
def test_a_column_count_other_than_the_grids_counts_nothing_and_loses_nothing(
    tracker: CounterTracker, n: int
) -> None:
    wrong = wire.Heartbeat(1, 0, wire.NO_DISPLAY, False, 0, False, 0, 0, 0, 0, [9] * n, [0] * n)
    assert counted(tracker.update(wrong, 1.2, seq=11)) == []
    # the next real drop does not vanish
    events = tracker.update(with_drops(State(), 6, 5, 5).beat(), 1.4, seq=12)
    assert counted(events) == [DiscEntered(1, at=1.4)]


def test_a_huge_jump_counts_nothing_even_when_it_persists(tracker: CounterTracker) -> None:
    jumped = with_drops(State(), 5, 5 + 40_000, 5)
    assert counted(tracker.update(jumped.beat(), 1.2, seq=11)) == []
    # two heartbeats agree on it: a new baseline, still without the jump's events
    assert counted(tracker.update(jumped.beat(), 1.4, seq=12)) == []
    assert tracker.last is not None and tracker.last.drops == [5, 40_005, 5]
    events = tracker.update(with_drops(jumped, 5, 40_006, 5).beat(), 1.6, seq=13)
    assert events == [DiscEntered(2, at=1.6)]


def test_a_jump_faster_than_discs_fall_counts_nothing(tracker: CounterTracker) -> None:
    # 6 discs fit, one more per 16 ms (the board's fastest count): 0.05 s allows 9
    assert tracker.bound(0.05) == 9
    assert counted(tracker.update(with_drops(State(), 5, 5, 15).beat(), 1.05, seq=11)) == []
    assert len(counted(tracker.update(with_drops(State(), 5, 5, 14).beat(), 1.05, seq=12))) == 9


@pytest.mark.parametrize("seq", [10, 9, 10 - 127 + 256])
def test_a_frame_number_not_newer_counts_nothing(tracker: CounterTracker, seq: int) -> None:
    events = tracker.update(with_drops(State(), 6, 5, 5).beat(), 1.2, seq=seq % 256)
    assert counted(events) == [] and "not newer" in message(link_faults(events))


def test_frame_numbers_wrap() -> None:
    tracker = CounterTracker(3)
    state = State()
    tracker.update(state.beat(), 0.0, seq=254)
    seen: list[Event] = []
    for i, seq in enumerate([255, 0, 1, 2]):
        state = with_drops(state, state.drops[0] + 1, 0, 0)
        seen += tracker.update(state.beat(), 0.2 * (i + 1), seq=seq)
    assert [type(e) for e in seen] == [DiscEntered] * 4
    assert tracker.fault is None


def test_a_slider_level_that_does_not_match_its_count_counts_nothing(
    tracker: CounterTracker,
) -> None:
    flipped = dataclasses.replace(with_drops(State(), 5, 5, 5), slider=True)  # changes still 0
    assert counted(tracker.update(flipped.beat(), 1.2, seq=11)) == []


def test_beam_faults_beyond_the_grid_count_nothing(tracker: CounterTracker) -> None:
    hb = with_drops(State(), 5, 5, 5).beat()
    hb.exit_faults = 0x80
    assert counted(tracker.update(hb, 1.2, seq=11)) == []


def test_the_fault_is_told_once_until_the_reports_agree_again(tracker: CounterTracker) -> None:
    events: list[Event] = []
    for seq in (11, 12, 13):  # three bad ones in a row, none agreeing with another
        events += tracker.update(with_drops(State(), 5, 5, 5 - seq).beat(), seq / 10, seq=seq)
    assert len(link_faults(events)) == 1 and tracker.rejected == 3
    events = steady(tracker, with_drops(State(), 5, 5, 5), 1.4, 14)
    assert cleared_at(events) == pytest.approx(1.4 + CLEAN)


def test_what_was_counted_across_a_fault_counts_once_when_plausible(
    tracker: CounterTracker,
) -> None:
    # the trusted heartbeat itself was one high in column 3 (a damage no check
    # can see): the board's reports agree on 4 from then on, and a disc goes
    # into column 1 meanwhile
    tracker.update(with_drops(State(), 5, 5, 4).beat(), 1.2, seq=11)
    events = tracker.update(with_drops(State(), 6, 5, 4).beat(), 1.4, seq=12)
    assert counted(events) == [DiscEntered(1, at=1.4)]
    # column 3 stays at 5 (going back and forwards again would count a disc
    # twice), so the reports still disagree: the link fault stays shown
    assert tracker.fault is not None and tracker.last is not None
    assert tracker.last.drops == [6, 5, 5]
    tracker.update(with_drops(State(), 9, 5, 4).beat(), 1.6, seq=13 + 128)  # not newer
    assert tracker.update(with_drops(State(), 6, 5, 5).beat(), 1.8, seq=14) == []  # caught up
    events = tracker.update(with_drops(State(), 7, 5, 6).beat(), 2.0, seq=15)
    assert events == [DiscEntered(1, at=2.0), DiscEntered(3, at=2.0)]
    events = steady(tracker, with_drops(State(), 7, 5, 6), 2.2, 16)
    assert cleared_at(events) == pytest.approx(1.8 + CLEAN)


def test_two_agreeing_damaged_heartbeats_lose_no_disc_they_carry(
    tracker: CounterTracker,
) -> None:
    # soak seeds 50 and 61: the same slider damage twice in a row, the second
    # on the heartbeat that carries a real drop
    flipped = dataclasses.replace(with_drops(State(), 5, 5, 5), slider=True)
    tracker.update(flipped.beat(), 1.2, seq=11)
    events = tracker.update(with_drops(flipped, 5, 5, 6).beat(), 1.4, seq=12)
    assert counted(events) == [DiscEntered(3, at=1.4)]  # the drop, and no slider
    assert tracker.last is not None and tracker.last.slider is False
    for seq in (13, 14):  # the real ones follow
        events = tracker.update(with_drops(State(), 5, 5, 6).beat(), seq / 10, seq=seq)
        assert events == []
    assert counted(steady(tracker, with_drops(State(), 5, 5, 6), 1.6, 15)) == []
    assert tracker.fault is None


def test_two_agreeing_heartbeats_one_lower_invent_no_disc_after(
    tracker: CounterTracker,
) -> None:
    # soak seed 62: the same counter one lower twice in a row, then the real one
    for seq in (11, 12):
        assert counted(tracker.update(with_drops(State(), 5, 4, 5).beat(), seq / 10, seq=seq)) == []
    assert tracker.update(with_drops(State(), 5, 5, 5).beat(), 1.4, seq=13) == []
    events = tracker.update(with_drops(State(), 5, 6, 5).beat(), 1.6, seq=14)
    assert events == [DiscEntered(2, at=1.6)]


def test_a_replayed_run_of_older_frames_does_not_count_again(tracker: CounterTracker) -> None:
    first = with_drops(State(), 6, 5, 5)
    tracker.update(first.beat(), 1.2, seq=11)
    tracker.update(with_drops(State(), 7, 5, 5).beat(), 1.4, seq=12)
    # frames 10 and 11 again, in order: they agree with each other
    tracker.update(with_drops(State(), 5, 5, 5).beat(), 1.5, seq=10)
    tracker.update(first.beat(), 1.6, seq=11)
    assert tracker.fault is not None
    events = tracker.update(with_drops(State(), 7, 5, 5).beat(), 1.8, seq=13)
    assert counted(events) == []  # nothing counted twice


def test_an_unannounced_boot_id_asks_the_board_for_its_hello(tracker: CounterTracker) -> None:
    fresh = State(boot=2, drops=(1, 0, 0))
    for seq in (2, 3):  # two in a row are no proof: the same damage may repeat
        assert counted(tracker.update(fresh.beat(), 1.2, seq=seq)) == []
        assert tracker.wants_hello
        tracker.wants_hello = False
    tracker.announce(2)  # the board's answer: it did reset
    events = tracker.update(with_drops(fresh, 1, 1, 0).beat(), 1.6, seq=5)
    assert counted(events) == [DiscEntered(1, at=1.6), DiscEntered(2, at=1.6)]
    assert tracker.resets == 1 and tracker.boot_id == 2


def test_an_announced_reset_is_taken_once_the_boot_before_is_quiet(
    tracker: CounterTracker,
) -> None:
    tracker.announce(2)
    assert tracker.update(State(boot=2, drops=(1, 0, 0)).beat(), 1.2, seq=2) == []
    assert tracker.resets == 0  # boot 1 spoke 0.2 s ago: it may not have reset at all
    events = tracker.update(State(boot=2, drops=(1, 0, 0)).beat(), 1.0 + SILENT, seq=3)
    assert events == [DiscEntered(1, at=1.0 + SILENT)] and tracker.resets == 1


def test_an_earlier_boot_is_taken_up_again_only_where_it_left_off(
    tracker: CounterTracker,
) -> None:
    tracker.announce(2)
    tracker.update(State(boot=2).beat(), 1.6, seq=2)
    assert tracker.boot_id == 2
    tracker.announce(1)  # an old hello, and two newer heartbeats of boot 1
    for i, seq in enumerate((11, 12)):
        events = tracker.update(with_drops(State(), 6, 6, 6).beat(), 1.7 + i / 10, seq=seq)
        assert counted(events) == []  # boot 2 reports: it is the board's
    assert tracker.boot_id == 2 and tracker.resets == 1
    events = tracker.update(with_drops(State(), 6, 6, 6).beat(), 1.6 + SILENT, seq=13)
    # boot 2 fell quiet: boot 1 counts on from its 5, 5, 5
    assert counted(events) == [DiscEntered(1, at=1.6 + SILENT), DiscEntered(2, at=1.6 + SILENT),
                               DiscEntered(3, at=1.6 + SILENT)]  # fmt: skip
    assert tracker.boot_id == 1 and tracker.resets == 1


MARK = {"boot": 1, "drops": [5, 5, 5], "pops": [0, 0, 0], "slider_changes": 0,
        "slider": False, "presses": 0, "holds": 0}  # fmt: skip


@pytest.mark.parametrize(
    "damaged",
    [
        with_drops(State(), 5, 4, 5),  # one lower: 65,535 drops before
        with_drops(State(), 5, 5, 5 + 30_000),
        dataclasses.replace(with_drops(State(), 6, 5, 5), boot=1 ^ 0x8000),
    ],
)
def test_a_damaged_first_heartbeat_after_a_restart_counts_nothing(damaged: State) -> None:
    tracker = CounterTracker(3)
    tracker.resume(MARK)
    assert counted(tracker.update(damaged.beat(), 0.0, seq=40)) == []
    events = tracker.update(with_drops(State(), 6, 5, 5).beat(), 0.2, seq=41)
    assert counted(events) == [DiscEntered(1, at=0.2)]


def test_a_restart_counts_at_most_a_column_twice_over() -> None:
    tracker = CounterTracker(3, rows=6)
    tracker.resume(MARK)
    assert tracker.bound(None) == 12
    assert (
        counted(tracker.update(with_drops(State(), 17, 17, 5).beat(), 0.0, seq=1))
        == [DiscEntered(1, at=0.0)] * 12 + [DiscEntered(2, at=0.0)] * 12
    )


# -- the property: no event from a bad frame, good frames unaffected --------------------

BAD_KINDS = ("replay", "lower", "boot", "columns", "jump", "seq", "slider")


def damage(kind: str, good: list[tuple[wire.Heartbeat, int]], now: State, seq: int,
           pick: int) -> tuple[wire.Heartbeat, int]:  # fmt: skip
    """A heartbeat with a valid CRC that breaks one rule against the last
    good one that got through, and its frame number."""
    last, last_seq = good[-1]
    hb = wire.unpack_heartbeat(wire.pack_heartbeat(last))
    if kind == "replay":
        earlier = [(b, s) for b, s in good[:-1] if b.drops != last.drops or b.pops != last.pops]
        if earlier:
            return earlier[pick % len(earlier)]
        kind = "lower"
    if kind == "lower":
        hb.drops[pick % 3] = (hb.drops[pick % 3] - 1) & 0xFFFF
    elif kind == "boot":
        hb.boot_id ^= 1 << (pick % 32)
    elif kind == "columns":
        n = (0, 1, 2, 4, 16)[pick % 5]
        hb.drops, hb.pops = [7] * n, [0] * n
    elif kind == "jump":
        hb.pops[pick % 3] = (hb.pops[pick % 3] + 1000 + pick) & 0xFFFF
    elif kind == "seq":
        hb = now.beat()
        hb.drops[pick % 3] = (hb.drops[pick % 3] + 1) & 0xFFFF  # looks like a disc
        return hb, (last_seq - pick % 128) & 0xFF  # but its frame is not newer
    elif kind == "slider":
        hb.slider = not hb.slider
    return hb, (seq + 1) & 0xFF


@settings(max_examples=200, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 0xFFFF),
    st.integers(0, 255),
    st.lists(
        st.tuples(
            st.lists(st.integers(0, 2), min_size=6, max_size=6),  # drops, pops per column
            st.integers(0, 2),  # slider changes
            st.booleans(),  # this good heartbeat got through
            st.one_of(st.none(), st.sampled_from(BAD_KINDS)),  # then a bad one
            st.integers(0, 1000),
        ),
        max_size=25,
    ),
)
def test_no_event_from_a_bad_frame_and_good_frames_unaffected(
    start: int, seq0: int, steps: list[tuple[list[int], int, bool, str | None, int]]
) -> None:
    """Bad heartbeats one at a time (two damaged alike in a row would agree
    with each other, which no check can tell from the truth)."""
    state = State(drops=(start,) * 3, pops=(start,) * 3, changes=start, slider=start % 2 == 1)
    # a column tall enough for every change across a run of lost heartbeats
    clean, tested = CounterTracker(3, rows=64), CounterTracker(3, rows=64)
    seq, now = seq0, 0.0
    good = [(state.beat(), seq)]
    for tracker in (clean, tested):
        tracker.update(state.beat(), now, seq=seq)
    after_bad = False
    for counts, flips, delivered, bad, pick in steps:
        now += 0.2
        seq = (seq + 1) & 0xFF
        state = State(
            drops=tuple((d + n) & 0xFFFF for d, n in zip(state.drops, counts[:3], strict=True)),
            pops=tuple((p + n) & 0xFFFF for p, n in zip(state.pops, counts[3:], strict=True)),
            changes=(state.changes + flips) & 0xFFFF,
            slider=state.slider != (flips % 2 == 1),
        )
        if delivered or after_bad:
            good.append((state.beat(), seq))
            want = clean.update(state.beat(), now, seq=seq)
            assert counted(tested.update(state.beat(), now, seq=seq)) == want
        after_bad = bad is not None
        if bad is not None:
            hb, bad_seq = damage(bad, good, state, seq, pick)
            if bad not in ("seq", "replay"):
                seq = bad_seq  # a damaged frame took its number when the board sent it
            assert counted(tested.update(hb, now + 0.05, seq=bad_seq)) == [], bad
    # the last good heartbeats after everything: nothing lost, nothing
    # doubled, and the fault clears once they have added up for a while
    for _ in range(round(CLEAN / 0.2) + 2):
        now += 0.2
        seq = (seq + 1) & 0xFF
        want = clean.update(state.beat(), now, seq=seq)
        assert counted(tested.update(state.beat(), now, seq=seq)) == want
    assert tested.fault is None


# -- over the real path: firmware, pty, pyserial, the serial backend ----------------------


@contextlib.contextmanager
def connected(tmp_path: Path, boot_id: int = 0x1111) -> Iterator[Pair]:
    """A board and the host's backend, once the host follows its counters."""
    with Firmware(tmp_path, boot_id=boot_id) as fw:
        p = Pair(fw)
        assert p.run_until(lambda: p.backend.connected, ms=500)
        yield p
        p.close()


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    with connected(tmp_path) as p:
        yield p


def drop(pair: Pair, column: int) -> list[Event]:
    pair.fw.wires.beam(Beam.ENTRY, column, True)
    events = pair.run(30)
    pair.fw.wires.beam(Beam.ENTRY, column, False)
    return events + pair.run(60)


def board_beat(pair: Pair) -> wire.Heartbeat:
    """The heartbeat the board would send now."""
    b = pair.fw.board
    return wire.Heartbeat(b.boot_id, 1000, b.shown, b.slider.active, b.slider_changes,
                          b.button.down, b.button.presses, b.button.holds, 0, 0,
                          list(b.drops), list(b.pops))  # fmt: skip


def send(pair: Pair, frame: bytes) -> list[Event]:
    """``frame`` on the board's line, as if the board sent it (valid CRC)."""
    pair.fw.stream.write(frame)
    return pair.run(5)


def forged(pair: Pair, change: Callable[[wire.Heartbeat], Any], seq: int | None = None) -> bytes:
    hb = board_beat(pair)
    change(hb)
    link = pair.fw.board.link
    if seq is None:
        link.seq = (link.seq + 1) & 0xFF
        seq = link.seq
    return wire.encode(seq, wire.HEARTBEAT, wire.pack_heartbeat(hb))


def moves(events: list[Event]) -> list[str]:
    return [f"p{e.column}" if isinstance(e, DiscLeft) else str(e.column)
            for e in events if isinstance(e, (DiscEntered, DiscLeft))]  # fmt: skip


def _lower(hb: wire.Heartbeat) -> None:
    hb.drops[3] -= 1


def _boot(hb: wire.Heartbeat) -> None:
    hb.boot_id ^= 1 << 9


def _huge(hb: wire.Heartbeat) -> None:
    hb.pops[6] += 60_000


def _columns(n: int) -> Callable[[wire.Heartbeat], None]:
    def change(hb: wire.Heartbeat) -> None:
        hb.drops, hb.pops = hb.drops[:n] + [0] * (n - 7), hb.pops[:n] + [0] * (n - 7)

    return change


def _a_disc(hb: wire.Heartbeat) -> None:
    hb.drops[0] += 1


@pytest.mark.parametrize(
    ("name", "change", "stale"),
    [
        ("one lower", _lower, False),
        ("boot id one bit off", _boot, False),
        ("a huge jump", _huge, False),
        ("no columns", _columns(0), False),
        ("3 columns", _columns(3), False),
        ("8 columns", _columns(8), False),
        ("a disc in a frame that is not newer", _a_disc, True),
    ],
)
def test_a_forged_heartbeat_over_the_pty_invents_nothing(
    pair: Pair, name: str, change: Callable[[wire.Heartbeat], None], stale: bool
) -> None:
    assert moves(drop(pair, 4)) == ["4"]
    pair.run(250)  # a periodic heartbeat or two
    seq = pair.fw.board.link.seq if stale else None
    events = send(pair, forged(pair, change, seq))
    assert moves(events) == [], name
    assert len(link_faults(events)) == 1
    events = drop(pair, 2)
    assert moves(events) == ["2"]
    pair.run(round(CLEAN * 1000) + 300)
    assert [e for e in pair.events if isinstance(e, SensorCleared) and e.sensor == LINK]
    assert pair.backend.resets_seen == 0 and moves(pair.events) == ["4", "2"]


def _slider(hb: wire.Heartbeat) -> None:
    hb.slider = not hb.slider


@pytest.mark.parametrize(("name", "change"), [("one lower", _lower), ("slider", _slider)])
def test_the_same_damage_twice_over_the_pty_loses_and_invents_nothing(
    pair: Pair, name: str, change: Callable[[wire.Heartbeat], None]
) -> None:
    # soak seeds 50, 61, 62: two forged heartbeats in a row agree with each other
    assert moves(drop(pair, 4)) == ["4"]
    pair.run(250)
    for _ in range(2):
        assert moves(send(pair, forged(pair, change))) == [], name
    assert moves(drop(pair, 6)) == ["6"], name
    pair.run(450)
    assert moves(drop(pair, 4)) == ["4"], name
    pair.run(round(CLEAN * 1000) + 300)
    assert moves(pair.events) == ["4", "6", "4"], name
    assert not [e for e in pair.events if isinstance(e, SliderMoved)], name
    link = [e for e in pair.events if getattr(e, "sensor", None) == LINK]
    assert link and isinstance(link[-1], SensorCleared), name


def test_a_replayed_heartbeat_over_the_pty_invents_nothing(pair: Pair) -> None:
    frames: list[bytes] = []

    def record(data: bytes) -> bytes:
        frames.append(data)
        return data

    pair.fw.stream.outgoing = record
    drop(pair, 1)
    drop(pair, 1)
    pair.fw.stream.outgoing = None
    beats = [f for f in frames if f[3] == wire.HEARTBEAT]
    events = send(pair, beats[0])  # from before the second disc
    assert moves(events) == [] and len(link_faults(events)) == 1
    assert moves(drop(pair, 5)) == ["5"]
    assert moves(pair.events) == ["1", "1", "5"]


def test_frame_numbers_wrapping_over_the_pty_lose_nothing(tmp_path: Path) -> None:
    with Firmware(tmp_path, boot_id=0x1111) as fw:
        fw.board.link.seq = 250  # its one-byte frame numbers wrap within a few drops
        pair = Pair(fw)
        assert pair.run_until(lambda: pair.backend.connected, ms=500)
        played = [moves(drop(pair, column)) for column in (1, 2, 3, 4, 5, 6, 7, 1)]
        assert played == [["1"], ["2"], ["3"], ["4"], ["5"], ["6"], ["7"], ["1"]]
        assert fw.board.link.seq < 250 and not link_faults(pair.events)
        pair.close()


def test_a_damaged_first_heartbeat_after_a_restart_invents_nothing_over_the_pty(
    tmp_path: Path,
) -> None:
    with Firmware(tmp_path, boot_id=0x1111) as fw:
        fw.board.drops = [2] * 7  # what the board counted before the daemon died
        damaged: list[bytes] = []

        def one_lower(data: bytes) -> bytes:
            if data[3] != wire.HEARTBEAT or damaged:
                return data
            hb = wire.unpack_heartbeat(data[4:-2])
            hb.drops[0] -= 1  # 65,535 drops before
            damaged.append(data)
            return wire.encode(data[2], wire.HEARTBEAT, wire.pack_heartbeat(hb))

        fw.stream.outgoing = one_lower
        pair = Pair(fw)
        pair.backend.resume({**MARK, "boot": 0x1111, "drops": [2] * 7, "pops": [0] * 7})
        assert pair.run_until(lambda: bool(damaged), ms=500)
        pair.run(20)
        assert moves(pair.events) == [] and len(link_faults(pair.events)) == 1
        assert moves(drop(pair, 1)) == ["1"]
        pair.close()


def test_a_reset_whose_hello_is_lost_is_followed_over_the_pty(pair: Pair) -> None:
    drop(pair, 1)
    lost: list[bytes] = []

    def lose_the_hello(data: bytes) -> bytes:
        if data[3] == wire.HELLO and not lost:
            lost.append(data)
            return b""
        return data

    pair.fw.stream.outgoing = lose_the_hello
    pair.fw.reset(boot_id=0x2222)
    pair.run(5)
    assert lost
    drop(pair, 3)
    pair.run(round(SILENT * 1000) + 200)  # until boot 1 has been quiet long enough
    assert moves(pair.events) == ["1", "3"] and pair.backend.resets_seen == 1


def test_a_poll_returns_at_most_a_grids_worth_of_events(tmp_path: Path) -> None:
    """After a restart the board may have counted a lot: a column twice
    over is plausible, so 7 x 12 drops; they come 42 to a poll, each with
    its mark, and the rest are due at once."""
    with Firmware(tmp_path, boot_id=0x1111) as fw:
        pair = Pair(fw)
        fw.board.drops = [12] * 7
        pair.backend.resume({**MARK, "boot": 0x1111, "drops": [0] * 7, "pops": [0] * 7})
        polls: list[list[tuple[Event, Any]]] = []
        for _ in range(300):
            pair.lockstep.run_pass(lambda: fw.step(1))
            pair.clock.advance(0.001)
            marked = pair.backend.poll_marked(pair.clock())
            if marked:
                polls.append(marked)
                if len(polls) == 1:
                    assert pair.backend.next_deadline() == pair.clock()
            if sum(len(p) for p in polls) >= 84:
                break
        assert [len(p) for p in polls] == [42, 42]
        assert all(mark is not None for p in polls for _, mark in p)
        assert polls[-1][-1][1]["drops"] == [12] * 7
        pair.close()


# -- through the whole daemon ---------------------------------------------------------


@contextlib.contextmanager
def two_moves_over_serial(tmp_path: Path) -> Iterator[tuple[Simulation, BoardTimeline, Path]]:
    """The whole daemon on the simulated sensor board, "4" and "3" played:
    the simulation, its board and its journal."""
    config = parse_config({"board": {"columns": 7, "rows": 6}, "game": {"rules": "popout"},
                           "sim": {"link": "serial"}}, "test")  # fmt: skip
    sim = Simulation(config, tmp_path / "state", physics=Physics())
    try:
        assert isinstance(sim.board, BoardTimeline)
        for column in (4, 3):
            sim.act(Action(0, f"drop {column}", "drop", column, None))
        yield sim, sim.board, tmp_path / "state" / "journal"
    finally:
        sim.close()


def test_a_damaged_heartbeat_through_the_daemon_journals_no_flood(tmp_path: Path) -> None:
    """The bug report: 58,000 journal records in 14 s from one heartbeat."""
    with two_moves_over_serial(tmp_path) as (sim, board, journal):
        records = len(journal.read_text().splitlines())
        damaged: list[bytes] = []

        def jump(data: bytes) -> bytes:
            if data[3] != wire.HEARTBEAT or damaged:
                return data
            hb = wire.unpack_heartbeat(data[4:-2])
            hb.pops[6] += 50_000
            damaged.append(data)
            return wire.encode(data[2], wire.HEARTBEAT, wire.pack_heartbeat(hb))

        board.firmware.stream.outgoing = jump
        sim.advance(1.0)
        assert damaged
        board.firmware.stream.outgoing = None
        sim.advance(1.0)
        assert [str(m) for m in sim.daemon.referee.game.moves] == ["4", "3"]
        assert LINK not in sim.daemon.referee.faults  # shown, then cleared
        # at most the fault and its clearing, no event from the damaged heartbeat
        assert len(journal.read_text().splitlines()) <= records + 2
