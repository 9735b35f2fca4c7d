"""A board reset is taken only from a board that has gone quiet, and only
for what it could have counted since (issue 19, items 1 and 10).

On the counter tracker first, then over the real path (the firmware on one
end of a pty, pyserial and the serial backend on the other), then through
the whole daemon.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.simulator.script import Action
from hardware import wire
from hardware.events import DiscEntered, Event
from hardware.serial_counts import CLEAN, DISC_GAP, LINK, SILENT, CounterTracker
from hardware.sim.board import Pair
from tests.test_serial_trust import connected, drop, two_moves_over_serial

REAL = 0x1111
FORGED = 0x0BAD


@dataclasses.dataclass
class Board:
    """A board with three columns, as the host hears it: its boot, what it
    counted, the number of its last frame and when it booted (host time)."""

    boot: int = REAL
    drops: list[int] = dataclasses.field(default_factory=lambda: [0, 0, 0])
    seq: int = 0
    booted: float = 0.0

    def beat(self, now: float) -> tuple[wire.Heartbeat, int]:
        self.seq = (self.seq + 1) & 0xFF
        uptime = round((now - self.booted) * 1000)
        hb = wire.Heartbeat(self.boot, uptime, wire.NO_DISPLAY, False, 0, False, 0, 0, 0, 0,
                            list(self.drops), [0, 0, 0])  # fmt: skip
        return hb, self.seq


def forged(boot: int, drops: list[int], uptime_ms: int) -> wire.Heartbeat:
    return wire.Heartbeat(boot, uptime_ms, wire.NO_DISPLAY, False, 0, False, 0, 0, 0, 0,
                          drops, [0] * len(drops))  # fmt: skip


def discs(events: list[Event]) -> list[int]:
    return [e.column for e in events if isinstance(e, DiscEntered)]


def link(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events if getattr(e, "sensor", None) == LINK]


class Host:
    """A tracker fed by the real board and by whoever else writes to the
    line; when the tracker asks for a hello, the real board answers it (its
    hello, then a heartbeat), as the firmware does."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.tracker = CounterTracker(3, rows=6)
        self.events: list[Event] = []
        self.now = 0.0
        self.spoke = 0.0  # when the real board last sent a heartbeat
        self.tracker.update(*self._real())

    def _real(self) -> tuple[wire.Heartbeat, float, int]:
        hb, seq = self.board.beat(self.now)
        self.spoke = self.now
        return hb, self.now, seq

    def hear(self, hb: wire.Heartbeat, seq: int) -> None:
        self.events += self.tracker.update(hb, self.now, seq=seq)
        if self.tracker.wants_hello:
            self.tracker.wants_hello = False
            self.board.seq = (self.board.seq + 1) & 0xFF
            self.tracker.announce(self.board.boot)
            self.events += self.tracker.update(*self._real())

    def real(self, after: float, drop: int | None = None) -> None:
        self.now += after
        if drop is not None:
            self.board.drops[drop] += 1
        hb, _, seq = self._real()
        self.hear(hb, seq)

    def counted(self) -> list[int]:
        columns = discs(self.events)
        return [columns.count(c) for c in (1, 2, 3)]


# -- the attack, on the tracker ------------------------------------------------


@pytest.mark.parametrize("uptime_ms", [0, 150, 10_000])
def test_a_forged_reset_while_the_board_reports_invents_nothing(uptime_ms: int) -> None:
    """One hello with a new boot id and one heartbeat with every column at
    12 were 84 discs; the real board was then locked out for good."""
    host = Host(Board())
    host.real(0.2, drop=0)
    host.now += 0.15  # 12 discs fit in 0.15 s between two heartbeats
    host.tracker.announce(FORGED)
    host.hear(forged(FORGED, [12, 12, 12], uptime_ms), 1)
    assert host.counted() == [1, 0, 0]
    for column in (1, 2, 2):
        host.real(0.2, drop=column)
    assert host.counted() == [1, 1, 2]
    assert host.tracker.boot_id == REAL and host.tracker.resets == 0


def test_a_new_boot_counts_no_more_than_its_uptime_allows() -> None:
    host = Host(Board())
    host.real(0.2)
    host.now += SILENT + 0.2  # the board has gone quiet: it may have reset
    host.tracker.announce(FORGED)
    # 100 ms since its boot: at most 1 + 100 // 16 = 7 discs through one beam
    assert 1 + int(0.1 / DISC_GAP) == 7
    host.hear(forged(FORGED, [8, 0, 0], 100), 1)
    assert host.counted() == [0, 0, 0] and host.tracker.boot_id == REAL
    host.now += 0.01
    host.hear(forged(FORGED, [7, 0, 0], 110), 2)
    assert host.counted() == [7, 0, 0] and host.tracker.boot_id == FORGED


def test_a_new_boot_cannot_have_booted_before_the_board_last_reported() -> None:
    host = Host(Board())
    host.real(0.2)
    host.now += SILENT + 0.2
    host.tracker.announce(FORGED)
    host.hear(forged(FORGED, [1, 0, 0], 5_000), 1)  # booted 5 s ago: it spoke 0.7 s ago
    assert host.counted() == [0, 0, 0] and host.tracker.boot_id == REAL


def test_a_real_reset_is_taken_once_the_old_boot_has_gone_quiet() -> None:
    host = Host(Board())
    host.real(0.2, drop=2)
    host.now += 0.01
    host.board = Board(boot=0x2222, booted=host.now)  # it resets: counters at zero
    host.tracker.announce(0x2222)
    host.real(0.05, drop=0)  # a disc at once: held until the old boot is quiet
    assert host.counted() == [0, 0, 1] and host.tracker.resets == 0
    while host.tracker.resets == 0:
        host.real(0.2)
    assert host.counted() == [1, 0, 1] and host.now < 0.26 + SILENT + 0.2
    assert link(host.events) == []  # a reset is no link fault


def test_the_real_board_comes_back_after_a_forged_reset_was_taken() -> None:
    """The board was quiet (a stalled USB line) and a forged reset was
    taken meanwhile: when the board speaks again under its own boot id, it
    counts on from where it left off."""
    host = Host(Board())
    host.real(0.2, drop=0)
    host.now += 1.0
    host.tracker.announce(FORGED)
    host.hear(forged(FORGED, [2, 2, 2], 300), 1)
    assert host.tracker.boot_id == FORGED
    host.board.drops[1] += 1  # counted by the real board meanwhile
    for _ in range(10):
        host.real(0.2)
    assert host.tracker.boot_id == REAL
    host.real(0.2, drop=1)
    assert host.counted() == [1 + 2, 2 + 2, 2]  # the forged 2 each, and every real disc


# -- item 10: a fault holds until the link is clean ------------------------------------


def test_five_hundred_replays_raise_the_link_fault_once(caplog: pytest.LogCaptureFixture) -> None:
    host = Host(Board())
    host.real(0.2)
    old = host.board.beat(host.now)
    caplog.set_level(logging.INFO, logger="popref.serial")
    for i in range(500):
        host.real(0.1, drop=i % 3 if i % 50 == 0 else None)
        host.now += 0.01
        host.hear(*old)  # replayed: its frame number is not newer
    assert link(host.events) == ["SensorFault"]
    stop = host.now
    while host.now < stop + CLEAN + 0.2:
        host.real(0.2)
    assert link(host.events) == ["SensorFault", "SensorCleared"]
    assert host.counted() == [4, 3, 3]
    assert len(caplog.records) <= 2, [r.getMessage() for r in caplog.records]


def test_a_fault_clears_only_after_the_link_has_been_clean_for_a_while() -> None:
    host = Host(Board())
    host.real(0.25)  # quarters add up exactly in floating point
    old = host.board.beat(host.now)
    host.real(0.25)
    host.hear(*old)
    start = host.now
    while "SensorCleared" not in link(host.events):
        host.real(0.25)
    assert CLEAN < host.now - start <= CLEAN + 0.25


# -- the property: forged hellos and resets never count and never lock out ------------

FORGERIES = st.lists(
    st.tuples(
        st.sampled_from(["real", "hello", "beat", "quiet"]),
        st.integers(0, 3),  # a column for a real disc (3: none); a boot id pick
        # forged counters and uptime (ms): small ones are the dangerous ones
        st.lists(st.integers(0, 20) | st.integers(0, 0xFFFF), min_size=3, max_size=3),
        st.integers(0, 2000) | st.integers(0, 0xFFFFFFFF),  # forged uptime, ms
        st.floats(0.001, 0.2),  # host seconds before the frame
        st.integers(0, 255),  # a forged frame number
    ),
    max_size=60,
)


def forged_boot(pick: int, used: list[int]) -> int:
    """A forged boot id: a recent one, or one of six others (never the real one)."""
    return used[-1 - pick % len(used)] if pick < 3 and used else 0xF000_0000 + len(used) % 6


@settings(max_examples=300, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(FORGERIES, st.booleans())
def test_forged_hellos_and_resets_never_count_and_never_lock_the_board_out(
    steps: list[tuple[str, int, list[int], int, float, int]], quiet: bool
) -> None:
    """Any hellos with any boot ids, and any heartbeats with any other boot
    id, counters and uptime, between the real board's reports: while the
    board reports (at least every 0.2 s), nothing forged counts and nothing
    real is lost. Where it falls quiet (``quiet``), a forged reset counts at
    most what a board could have counted since the board last spoke (one
    disc per beam per 16 ms, a column twice over at most), for each forged
    boot's first heartbeat (later ones are the line's own word, which no
    check can tell from the truth). After the forgeries the real board's
    reports are trusted again, every real disc counted, and the link fault
    clears."""
    host = Host(Board())
    used: list[int] = []
    heard: set[int] = set()
    allowance = [0, 0, 0]
    for kind, pick, counters, uptime, after, seq in steps:
        if kind == "real":
            # a column holds six: a board that was away counts them on its return
            room = pick < 3 and host.board.drops[pick] < 6
            host.real(after, drop=pick if room else None)
            continue
        if kind == "quiet":
            if quiet:
                host.now += SILENT + after * 10  # the board says nothing for a while
            continue
        host.now += after if quiet else 0.001
        boot = forged_boot(pick, used)
        if kind == "hello":
            used.append(boot)
            host.tracker.announce(boot)
            continue
        if quiet:
            if boot in heard:
                continue
            heard.add(boot)
        since = host.now - host.spoke
        most = min(12, 1 + int((since + 0.25) / DISC_GAP)) if since >= SILENT else 0
        allowance = [a + most for a in allowance]
        host.hear(forged(boot, counters, uptime), seq)
        for counted, real, extra in zip(host.counted(), host.board.drops, allowance, strict=True):
            assert counted <= real + extra
    end = host.now + SILENT + CLEAN + 1.0
    while host.now < end or host.tracker.fault is not None:
        host.real(0.2)
        assert host.now < end + 100, "locked out"
    assert host.tracker.boot_id == REAL
    for counted, real, extra in zip(host.counted(), host.board.drops, allowance, strict=True):
        assert real <= counted <= real + extra
    if not quiet:
        assert host.counted() == host.board.drops and host.tracker.resets == 0


# -- over the pty ---------------------------------------------------------------------


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    with connected(tmp_path, REAL) as p:
        yield p


def frame(kind: int, payload: bytes, seq: int = 200) -> bytes:
    return wire.encode(seq, kind, payload)


def test_the_forged_reset_over_the_pty_invents_nothing(pair: Pair) -> None:
    assert discs(drop(pair, 4)) == [4]
    pair.run(100)
    hello = frame(wire.HELLO, wire.pack_hello(FORGED, 7))
    beat = frame(wire.HEARTBEAT, wire.pack_heartbeat(forged(FORGED, [12] * 7, 200)))
    pair.fw.stream.write(hello + beat)
    pair.run(2000)
    assert discs(pair.events) == [4]
    assert discs(drop(pair, 2)) == [2]
    assert pair.backend.resets_seen == 0


def test_a_board_whose_heartbeats_cannot_be_taken_is_asked_for_hellos_ever_more_slowly(
    pair: Pair, caplog: pytest.LogCaptureFixture
) -> None:
    """Its heartbeats carry a boot id its hello does not (a bit always
    flipped on the line): the host asks for a hello, the board answers, the
    next heartbeat is no better. That exchanged hellos without end."""
    hellos: list[bytes] = []

    def count_hellos(data: bytes) -> bytes:
        if len(data) > 3 and data[3] == wire.HOST_HELLO:
            hellos.append(data)
        return data

    def flip_the_boot(data: bytes) -> bytes:
        if len(data) < 4 or data[3] != wire.HEARTBEAT:
            return data
        hb = wire.unpack_heartbeat(data[4:-2])
        hb.boot_id ^= 1 << 9
        return wire.encode(data[2], wire.HEARTBEAT, wire.pack_heartbeat(hb))

    pair.fw.stream.incoming = count_hellos
    pair.fw.stream.outgoing = flip_the_boot
    caplog.set_level(logging.INFO, logger="popref.serial")
    pair.run(8000)
    assert 3 <= len(hellos) <= 6, len(hellos)  # one at once, then ever longer waits
    assert len(caplog.records) <= 2, [r.getMessage() for r in caplog.records]
    pair.fw.stream.outgoing = None
    pair.run(3000)
    assert discs(drop(pair, 5)) == [5]


def test_replayed_heartbeats_over_the_pty_raise_the_link_fault_once(pair: Pair) -> None:
    sent: list[bytes] = []

    def keep(data: bytes) -> bytes:
        if len(data) > 3 and data[3] == wire.HEARTBEAT:
            sent.append(data)
        return data

    pair.fw.stream.outgoing = keep
    pair.run(300)
    pair.fw.stream.outgoing = None
    old = sent[0]
    for i in range(100):
        pair.fw.stream.write(old)
        pair.run(20)
        if i == 50:
            drop(pair, 3)
    pair.run(round(CLEAN * 1000) + 500)
    assert link(pair.events) == ["SensorFault", "SensorCleared"]
    assert discs(pair.events) == [3]


# -- through the daemon -------------------------------------------------------------------


def test_a_forged_reset_through_the_daemon_journals_no_moves(tmp_path: Path) -> None:
    """The issue: the journal grew by 84 records, and the referee took them."""
    with two_moves_over_serial(tmp_path) as (sim, board, journal):
        records = len(journal.read_text().splitlines())
        hello = frame(wire.HELLO, wire.pack_hello(FORGED, 7))
        beat = frame(wire.HEARTBEAT, wire.pack_heartbeat(forged(FORGED, [12] * 7, 300)))
        board.firmware.stream.write(hello + beat)
        sim.advance(8.0)
        assert [str(m) for m in sim.daemon.referee.game.moves] == ["4", "3"]
        assert len(journal.read_text().splitlines()) <= records + 2
        sim.act(Action(0, "drop 5", "drop", 5, None))
        assert [str(m) for m in sim.daemon.referee.game.moves] == ["4", "3", "5"]
