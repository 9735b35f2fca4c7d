"""The serial backend against the real firmware over a real pty with pyserial."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.colour import Colour
from hardware.display import ColumnLight, Display, Lamp
from hardware.events import DiscEntered, DiscLeft, Event, SensorCleared, SensorFault, SliderMoved
from hardware.serial_backend import BOARD, GONE
from hardware.sim.board import Firmware, Pair
from hardware.sim.seam import Beam


@pytest.fixture
def fw(tmp_path: Path) -> Iterator[Firmware]:
    with Firmware(tmp_path, boot_id=0x1111) as firmware:
        yield firmware


@pytest.fixture
def pair(fw: Firmware) -> Iterator[Pair]:
    p = Pair(fw)
    assert p.run_until(lambda: p.backend.connected, ms=500)
    yield p
    p.close()


def drop(pair: Pair, column: int) -> None:
    pair.fw.wires.beam(Beam.ENTRY, column, True)
    pair.run(30)
    pair.fw.wires.beam(Beam.ENTRY, column, False)
    pair.run(60)


def pop(pair: Pair, column: int) -> None:
    pair.fw.wires.beam(Beam.EXIT, column, True)
    pair.run(150)
    pair.fw.wires.beam(Beam.EXIT, column, False)
    pair.run(60)


def moves(events: list[Event]) -> list[str]:
    out = []
    for e in events:
        if isinstance(e, DiscEntered):
            out.append(str(e.column))
        elif isinstance(e, DiscLeft):
            out.append(f"p{e.column}")
    return out


def red_to_drop(columns: int = 7) -> Display:
    light = ColumnLight(Lamp.DROP, Colour.RED)
    return Display(columns=(light,) * columns, turn=Colour.RED)


def test_drops_and_pops_become_events_once(pair: Pair) -> None:
    for column in (4, 4, 3):
        drop(pair, column)
    pop(pair, 4)
    pair.run(500)
    assert moves(pair.events) == ["4", "4", "3", "p4"]


def test_show_reaches_the_strip_and_is_acknowledged(pair: Pair) -> None:
    pair.backend.show(red_to_drop())
    pair.run(50)
    shown = pair.fw.lights.shown()
    assert shown.columns == ("red",) * 7 and shown.turn_red
    assert pair.backend._acked
    sent = pair.backend.port_link.bytes_out  # type: ignore[union-attr]
    pair.backend.show(red_to_drop())  # the same state again: nothing to send
    pair.run(5)
    assert pair.backend.port_link.bytes_out == sent  # type: ignore[union-attr]


def corrupt_every(n: int) -> Callable[[bytes], bytes]:
    count = [0]

    def corrupt(data: bytes) -> bytes:
        count[0] += 1
        if count[0] % n:
            return data
        mangled = bytearray(data)
        mangled[len(mangled) // 2] ^= 0x5A
        return b"\x00\xa5\xff" + bytes(mangled)

    return corrupt


def drop_every(n: int) -> Callable[[bytes], bytes]:
    count = [0]

    def lose(data: bytes) -> bytes:
        count[0] += 1
        return b"" if count[0] % n == 0 else data

    return lose


def test_corrupted_and_dropped_bytes_lose_and_double_nothing(pair: Pair) -> None:
    pair.fw.stream.outgoing = corrupt_every(2)
    pair.fw.stream.incoming = drop_every(2)
    pair.backend.show(red_to_drop())
    played = [1, 2, 3, 3, 5, 7, 7, 1]
    for column in played:
        drop(pair, column)
    pop(pair, 3)
    pair.fw.stream.outgoing = drop_every(3)
    drop(pair, 6)
    pop(pair, 7)
    pair.run(600)
    # A lost heartbeat's changes arrive with the next one, in column order:
    # the counters say how many, not in which order across columns.
    assert sorted(moves(pair.events)) == sorted([*map(str, played), "p3", "6", "p7"])
    assert pair.backend.port_link.decoder.bad > 0  # type: ignore[union-attr]
    assert pair.fw.board.shown == pair.backend._display_id  # the display got through


def test_garbage_and_a_boot_banner_before_the_first_frame(fw: Firmware) -> None:
    pair = Pair(fw)
    pair.tick()  # the host opens the port
    banner = b"MicroPython v1.24 on 2024-11-29; Raspberry Pi Pico\r\n>>> "
    pair.fw.stream.write(b"\xff\x00\xa5\x30" + banner)
    assert pair.run_until(lambda: pair.backend.connected, ms=500)
    drop(pair, 5)
    assert moves(pair.events) == ["5"]
    assert not [e for e in pair.events if isinstance(e, SensorFault)]
    pair.close()


def test_board_reset_mid_game(pair: Pair) -> None:
    pair.backend.show(red_to_drop())
    drop(pair, 1)
    drop(pair, 2)
    pair.fw.reset(boot_id=0x2222)  # counters restart at zero, the strip is dark
    pair.run(5)
    drop(pair, 3)
    pop(pair, 1)
    pair.run(500)
    assert moves(pair.events) == ["1", "2", "3", "p1"]
    assert pair.backend.resets_seen == 1
    assert pair.fw.lights.shown().columns == ("red",) * 7  # shown again after the reset


def test_unplug_and_replug_with_backoff(pair: Pair) -> None:
    pair.backend.show(red_to_drop())
    drop(pair, 4)
    pair.unplug()
    lost = pair.run(5)
    assert lost == [SensorFault(BOARD, GONE, at=lost[0].at)]
    # Reconnection attempts back off: the gaps between deadlines grow.
    deadlines = []
    for _ in range(3):
        deadline = pair.backend.next_deadline()
        assert deadline is not None
        deadlines.append(deadline)
        pair.clock.set(max(pair.clock(), deadline))
        pair.tick()
    gaps = [b - a for a, b in itertools.pairwise(deadlines)]
    assert gaps[1] > gaps[0] > 0
    pair.fw.reset(boot_id=0x3333)  # replugging powers the board up afresh
    pair.fw.plug()
    pair.events.clear()
    assert pair.run_until(lambda: pair.backend.connected, ms=20_000)
    assert SensorCleared(BOARD, at=pair.events[-1].at) in pair.events
    drop(pair, 2)
    assert moves(pair.events) == ["2"]
    pair.run(100)
    assert pair.fw.lights.shown().columns == ("red",) * 7


def test_silent_host_board_goes_dark_and_recovers(pair: Pair) -> None:
    pair.backend.show(red_to_drop())
    pair.run(50)
    pair.fw.stream.incoming = lambda data: b""  # nothing from the host gets through
    pair.run(2100)
    assert pair.fw.board.idle and pair.fw.lights.shown().columns == (None,) * 7
    pair.fw.stream.incoming = None
    pair.run(1000)
    assert pair.fw.lights.shown().columns == ("red",) * 7


def test_slider_events(pair: Pair) -> None:
    pair.fw.wires.slider(True)
    pair.run(30)
    pair.fw.wires.slider(False)
    pair.run(30)
    assert [e.open for e in pair.events if isinstance(e, SliderMoved)] == [True, False]


def test_wrong_protocol_version_is_one_clear_fault(fw: Firmware) -> None:
    wire = fw.module("wire")
    fw.board._send_hello = (
        lambda: fw.board.link.send(  # a board with older firmware
            wire.HELLO, bytes([wire.PROTOCOL_VERSION + 1]) + wire.pack_hello(7, 7)[1:]
        )
    )
    pair = Pair(fw)
    pair.run(300)
    faults = [e for e in pair.events if isinstance(e, SensorFault)]
    assert len(faults) == 1
    assert "update the board's firmware" in faults[0].message
    assert not pair.backend.connected
    pair.close()


def test_wrong_column_count_is_a_fault(fw: Firmware) -> None:
    pair = Pair(fw, columns=6)
    pair.run(300)
    faults = [e for e in pair.events if isinstance(e, SensorFault)]
    assert len(faults) == 1 and "7 columns" in faults[0].message
    pair.close()


def test_loop_url_opens_and_a_missing_port_backs_off(tmp_path: Path) -> None:
    from hardware.clock import FakeClock
    from hardware.serial_backend import SerialBackend
    from hardware.serial_config import SerialConfig

    clock = FakeClock()
    backend = SerialBackend(SerialConfig(port=str(tmp_path / "nothing")), columns=7)
    backend.open(lambda: None)
    backend.poll(clock())
    first = backend.next_deadline()
    assert first is not None and first > clock()
    clock.advance(2.0)
    events = backend.poll(clock())
    assert [type(e) for e in events] == [SensorFault]
    backend.close()
    loop = SerialBackend(SerialConfig(port="loop://"), columns=7)
    loop.open(lambda: None)
    loop.poll(0.0)
    assert loop.port_link is not None
    loop.close()


def test_a_poll_exactly_at_the_deadline_moves_the_deadline_on(tmp_path: Path) -> None:
    """0.1 + 0.25 - 0.1 < 0.25 in binary floating point: a timer checked as
    ``now - then >= period`` is not due at the ``then + period`` it reports,
    and a loop in simulated time would poll at that deadline for ever."""
    import os
    import tty

    from hardware.serial_backend import SerialBackend
    from hardware.serial_config import SerialConfig

    master, slave = os.openpty()  # a port where no board answers: hellos go out
    tty.setraw(slave)
    backend = SerialBackend(SerialConfig(port=os.ttyname(slave)), columns=7)
    try:
        backend.open(lambda: None)
        backend.poll(0.1)
        assert backend.port_link is not None
        for _ in range(40):
            deadline = backend.next_deadline()
            assert deadline is not None
            backend.poll(deadline)
            after = backend.next_deadline()
            assert after is not None and after > deadline
        assert backend.port_link.bytes_out > 0
    finally:
        backend.close()
        os.close(slave)
        os.close(master)


def test_a_false_sync_from_the_board_delays_its_frames_one_frame_gap(pair: Pair) -> None:
    """A garbled length byte would hold every frame behind it until 160 more
    bytes came (most of a second of heartbeats); the host gives it up after
    ``frame_gap`` of silence instead."""
    pair.fw.wires.beam(Beam.ENTRY, 6, True)
    pair.run(30)
    pair.fw.wires.beam(Beam.ENTRY, 6, False)
    pair.run(5)
    assert not pair.fw.board.drops[5]
    pair.fw.stream.write(bytes([0xA5, 160]))  # noise on the line, just before the count
    counted = None
    for ms in range(1000):
        if any(isinstance(e, DiscEntered) for e in pair.tick()):
            break
        if counted is None and pair.fw.board.drops[5]:
            counted = ms
    assert counted is not None
    late_ms = ms - counted
    gap_ms = pair.backend.frame_gap * 1000
    assert gap_ms - 1 <= late_ms <= gap_ms + 1
    assert moves(pair.events) == ["6"]


def test_a_display_without_scores_lights_no_score_led(pair: Pair) -> None:
    """No scores (a Classic game, check-wiring's questions) went out as 254
    each, which lit every score LED of both bars."""
    pair.backend.show(red_to_drop())
    pair.run(50)
    assert pair.fw.board.shown == pair.backend._display_id
    assert pair.fw.lights.shown().scores is None
    pair.backend.show(Display(red_to_drop().columns, scores=(3, 7)))
    pair.run(50)
    assert pair.fw.lights.shown().scores == (3, 7)
