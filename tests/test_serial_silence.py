"""What a board that is not heard is told apart by: a port that sends back
the host's own frames (``loop://``), a Pico at the MicroPython prompt, and a
board that went quiet; and each fault in the daemon's log once."""

from __future__ import annotations

import logging
import os
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.daemon.config import parse_config
from controller.simulator.simulation import Simulation
from hardware.clock import FakeClock
from hardware.events import Event, SensorFault
from hardware.serial_backend import AT_PROMPT, BOARD, ECHO, GONE, SerialBackend
from hardware.serial_config import SerialConfig
from hardware.sim.board import BoardTimeline, Firmware, Pair

BANNER = (
    b"MicroPython v1.24.0 on 2024-10-25; Raspberry Pi Pico with RP2040\r\n"
    b'Type "help()" for more information.\r\n>>> '
)


def until(done: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait (in real time) for the port's reader thread to catch up."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "the reader never caught up"
        time.sleep(0.002)


def faults_until(
    backend: SerialBackend, clock: FakeClock, end: float, echo: bool = False
) -> list[SensorFault]:
    """Poll ``backend`` at each of its deadlines up to ``end``; on a port
    that echoes, each poll after every byte sent so far came back."""
    events: list[Event] = []
    while (deadline := backend.next_deadline()) is not None and deadline <= end:
        clock.set(max(clock(), deadline))
        link = backend.port_link
        if link is not None and echo:
            until(lambda link=link: link.bytes_in >= link.bytes_out)  # type: ignore[misc]
        events += backend.poll(clock())
    return [e for e in events if isinstance(e, SensorFault)]


def test_a_port_that_echoes_the_hosts_frames_is_not_a_healthy_board() -> None:
    """``loop://`` sent each HOST_HELLO and PING back, and any frame reset the
    silence timer: the docs' "smoke test" showed a healthy board."""
    clock = FakeClock()
    backend = SerialBackend(SerialConfig(port="loop://"), columns=7)
    backend.open(lambda: None)
    try:
        faults = faults_until(backend, clock, 3.0, echo=True)
        assert backend.frames_in > 0  # the host's own frames did come back
        assert faults == [SensorFault(BOARD, ECHO, at=faults[0].at)]
        assert faults[0].at == pytest.approx(1.5)  # at the timeout, as a silent board
        assert not backend.connected
    finally:
        backend.close()


@pytest.fixture
def pty_port() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    yield master, os.ttyname(slave)
    os.close(slave)
    os.close(master)


# What a Pico at the prompt says after the host opened the port: its banner
# after a soft reset, or its raw mode's greeting when a HOST_HELLO's 0x01 (Ctrl-A) reaches it.
@pytest.mark.parametrize("said", [BANNER, b"raw REPL; CTRL-B to exit\r\n>"])
def test_a_pico_at_the_micropython_prompt_is_told_apart(
    pty_port: tuple[int, str], said: bytes
) -> None:
    master, port = pty_port
    clock = FakeClock()
    backend = SerialBackend(SerialConfig(port=port), columns=7)
    backend.open(lambda: None)
    try:
        backend.poll(clock())
        link = backend.port_link
        assert link is not None
        os.write(master, said)
        until(lambda: link.bytes_in >= len(said))
        faults = faults_until(backend, clock, 3.0)
        assert faults == [SensorFault(BOARD, AT_PROMPT, at=faults[0].at)]
        assert "MicroPython prompt" in AT_PROMPT and "docs/sensor-board.md" in AT_PROMPT
    finally:
        backend.close()


def test_firmware_that_crashed_to_the_prompt_is_told_apart(tmp_path: Path) -> None:
    with Firmware(tmp_path, boot_id=0x1111) as fw:
        pair = Pair(fw)
        assert pair.run_until(lambda: pair.backend.connected, ms=500)
        link = pair.backend.port_link
        assert link is not None
        traceback = b'Traceback (most recent call last):\r\n  File "main.py"\r\nMemoryError\r\n>>> '
        fw.stream.write(traceback)  # and its loop runs no more
        until(lambda: link.bytes_in >= fw.stream.sent)
        faults = faults_until(pair.backend, pair.clock, pair.clock() + 2.0)
        assert [f.message for f in faults] == [AT_PROMPT]
        pair.close()


def test_a_board_that_went_quiet_is_still_gone(tmp_path: Path) -> None:
    """Garbage before the board's first frame (a boot banner) does not make a
    later silence a prompt: frames came after it."""
    with Firmware(tmp_path, boot_id=0x1111) as fw:
        pair = Pair(fw)
        pair.tick()
        fw.stream.write(BANNER)
        assert pair.run_until(lambda: pair.backend.connected, ms=500)
        faults = faults_until(pair.backend, pair.clock, pair.clock() + 2.0)
        assert [f.message for f in faults] == [GONE]
        pair.close()


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.said.append(record.getMessage())


def test_a_fault_of_the_sensor_board_is_logged_once(tmp_path: Path) -> None:
    """The backend logged each fault and the referee logged it again."""
    logger = logging.getLogger("popref")
    kept = Kept()
    logger.addHandler(kept)
    level = logger.level
    logger.setLevel(logging.INFO)
    config = parse_config({"sim": {"link": "serial"}}, "test")
    sim = Simulation(config, tmp_path / "state")
    try:
        assert isinstance(sim.board, BoardTimeline)
        sim.board.firmware.stream.outgoing = lambda data: b""  # nothing reaches the host
        sim.advance(2.0)
        sim.board.firmware.stream.outgoing = None
        sim.advance(2.0)
    finally:
        sim.close()
        logger.removeHandler(kept)
        logger.setLevel(level)
    said = kept.said
    assert [s for s in said if "stopped answering" in s] == [
        f"Sensor fault on sensor board: {GONE}"
    ]
    assert [s for s in said if "sensor board" in s.lower() and "again" in s] == []
    assert said.count("The fault on sensor board has cleared.") == 1
