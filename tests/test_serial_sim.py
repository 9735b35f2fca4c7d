"""The whole daemon over the simulated sensor board: the firmware's own code
under CPython on one end of a real pty, the real SerialBackend with pyserial on
the other, driven by the simulated grid in simulated time."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.daemon.config import parse_config
from controller.daemon.loop import Daemon
from controller.simulator.script import parse_line
from controller.simulator.simulation import Simulation
from controller.store.journal import Journal
from engine.colour import Colour
from hardware.errors import ConfigError
from hardware.events import DiscEntered
from hardware.serial_backend import BOARD
from hardware.sim.backend import SimulatedBackend
from hardware.sim.board import BoardTimeline, Firmware, ObservedSerialBackend
from hardware.sim.board.schedule import due_in
from hardware.sim.board.ticks import FakeTicks
from hardware.sim.grid import Physics
from hardware.sim.seam import Beam

R, Y = Colour.RED, Colour.YELLOW


# -- stepping the board only when something is due changes nothing ---------------------


HOST_FRAME_AT = 100


def _scenario(fw: Firmware) -> dict[int, list[Callable[[], None]]]:
    """Wire changes, and one host frame, at given board milliseconds."""
    wire = fw.module("wire")
    show = wire.Show(7, wire.COLOUR_YELLOW, 3, 4, wire.ALERT_ERROR,
                     [wire.LAMP_POP, wire.LAMP_CHOSEN] + [wire.LAMP_DROP] * 5,
                     [wire.COLOUR_YELLOW] * 7, [0] * 7)  # fmt: skip
    frame = wire.encode(1, wire.SHOW, wire.pack_show(show))
    w = fw.wires
    return {
        5: [lambda: w.beam(Beam.ENTRY, 2, True)],
        45: [lambda: w.beam(Beam.ENTRY, 2, False)],
        60: [lambda: w.beam(Beam.ENTRY, 3, True)],  # a 2 ms glitch
        62: [lambda: w.beam(Beam.ENTRY, 3, False)],
        HOST_FRAME_AT: [lambda: fw.board.link.decoder.feed(frame)],
        400: [lambda: w.beam(Beam.EXIT, 5, True)],  # stuck: a fault after 3 s
        700: [lambda: w.button(True)],  # held: a hold after 2 s
        3000: [lambda: w.button(False)],
        3600: [lambda: w.beam(Beam.EXIT, 5, False)],
        3700: [lambda: w.slider(True)],
        3703: [lambda: w.slider(False), lambda: w.slider(True)],  # switch bounce
    }


class _End(Exception):
    pass


class _ScriptedLine:
    """The board's stream for its own ``run()`` loop in simulated time: reads
    and writes go to the pty stream; ``wait(ms)`` lets board time pass,
    making the scenario's wire changes on their ticks (an IRQ does not end a
    poll), and returns early when host bytes arrive (they do end it)."""

    def __init__(self, fw: Firmware, script: dict[int, list[Callable[[], None]]], end: int) -> None:
        self.fw = fw
        self.script = script
        self.end = end
        self.elapsed = 0
        self.passes = 0
        self.waits: list[int] = []

    def read(self) -> bytes:
        return self.fw.stream.read()

    def write(self, data: bytes) -> None:
        self.fw.stream.write(data)

    def wait(self, ms: int) -> None:
        self.passes += 1
        self.waits.append(ms)
        ticks = self.fw.ticks
        assert isinstance(ticks, FakeTicks)
        until = self.elapsed + ms
        for at in sorted(t for t in self.script if self.elapsed < t <= until):
            ticks.advance(at - self.elapsed)
            self.elapsed = at
            for change in self.script[at]:
                change()
            if at == HOST_FRAME_AT:
                return  # host bytes: poll() returns at once
        if until > self.end:
            raise _End
        ticks.advance(until - self.elapsed)
        self.elapsed = until


def _run_board(
    directory: Path,
    every_ms: bool,
    loop: bool = False,
) -> tuple[list[Any], list[Any], int]:
    """Run the scenario on a board passed every ms, or only when due, or by
    its own ``run()`` loop; return the frames it sent, the strip writes (both
    with their ticks) and the number of passes."""
    end = 5000
    with Firmware(directory, ticks_start=(1 << 30) - 1500) as fw:  # across the wrap
        ticks = fw.ticks
        assert isinstance(ticks, FakeTicks)
        sent: list[tuple[int, bytes]] = []
        drawn: list[tuple[int, Any]] = []

        def keep(data: bytes) -> bytes:
            sent.append((ticks.now, data))
            return data

        fw.stream.connected = True
        fw.stream.outgoing = keep
        strip = fw.board.lights.strip
        strip.on_write = lambda: drawn.append(strip.writes[-1])
        script = _scenario(fw)
        if loop:
            line = _ScriptedLine(fw, script, end)
            fw.board.link.stream = line
            line.wait(1)  # the reference's first pass is 1 ms after boot
            line.passes = 0
            with pytest.raises(_End):
                fw.board.run()
            assert max(line.waits) == fw.module("board").MAX_WAIT_MS
            return sent, drawn, line.passes
        elapsed = last = passes = 0
        while elapsed < end:
            due = elapsed + 1
            if not every_ms:
                due = last + due_in(fw, (ticks.now - (elapsed - last)) % (1 << 30))
            target = min([due, *(ms for ms in script if ms > elapsed)])
            ticks.advance(target - elapsed)
            elapsed = target
            for change in script.get(elapsed, []):
                change()
            # bytes from the host: a loop reads them within the millisecond
            if elapsed in (due, HOST_FRAME_AT):
                fw.step_now()
                last = elapsed
                passes += 1
        return sent, drawn, passes


def test_a_board_stepped_when_due_sends_and_draws_what_one_stepped_every_ms_does(
    tmp_path: Path,
) -> None:
    sent, drawn, passes = _run_board(tmp_path / "every", every_ms=True)
    sent_due, drawn_due, passes_due = _run_board(tmp_path / "due", every_ms=False)
    assert sent_due == sent  # the same frames at the same ticks
    assert drawn_due == drawn  # the same strip writes at the same ticks
    assert len(sent) > 20 and len(drawn) > 10
    assert passes_due < passes / 10


def test_the_firmwares_own_loop_sends_and_draws_what_one_stepped_every_ms_does(
    tmp_path: Path,
) -> None:
    """``SensorBoard.run()`` sleeps in poll() until its next timer (at most
    MAX_WAIT_MS, as pin IRQs cannot end a poll) or the host's bytes: it must
    miss nothing a board stepped every millisecond catches, and read the
    host's frame in the same millisecond it arrives."""
    sent, drawn, passes = _run_board(tmp_path / "every", every_ms=True)
    sent_loop, drawn_loop, passes_loop = _run_board(tmp_path / "loop", every_ms=False, loop=True)
    assert sent_loop == sent
    assert drawn_loop == drawn
    assert passes_loop < passes / 4


# -- the daemon over the serial link -------------------------------------------------------


def _config(rules: str = "popout", **sim: object) -> Any:
    return parse_config({"game": {"rules": rules}, "sim": {"link": "serial", **sim}}, "test")


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[Simulation]:
    simulation = Simulation(_config(), tmp_path / "state", physics=Physics.rough())
    yield simulation
    simulation.close()


def act(sim: Simulation, text: str) -> list[str]:
    action = parse_line(text, 1, "test")
    assert action is not None
    outcome = sim.act(action)
    return outcome.mistakes


def journal_moves(sim: Simulation) -> list[str]:
    """The drops and pops the daemon made durable, in order: every physical
    disc movement once, none invented."""
    records = Journal(sim.state_dir / "journal").load().records
    out = []
    for record in records:
        if record.get("e") == "drop":
            out.append(str(record["c"]))
        elif record.get("e") == "pop":
            out.append(f"p{record['c']}")
    return out


def model_is_grid(sim: Simulation) -> bool:
    rows = sim.state("check")
    return bool(rows["board"] == rows["grid"])


def test_a_game_with_a_mistake_and_its_repair_over_the_serial_link(sim: Simulation) -> None:
    assert isinstance(sim.board, BoardTimeline)
    assert sim.board.backend.connected
    for text in ("drop 4", "drop 3", "drop 4", "drop 5"):
        assert act(sim, text) == []
    assert act(sim, "pop 3") == ["illegal-pop"]  # Red pops Yellow's disc
    assert not model_is_grid(sim)
    shown = sim.lights.shown()
    assert shown.blinking == {3} and shown.turn_yellow  # drop a Yellow disc back into 3
    assert act(sim, "drop 3 yellow") == []
    assert model_is_grid(sim)
    assert act(sim, "pop 4") == []  # Red's own disc this time
    state = sim.state("end")
    assert state["moves"] == ["4", "3", "4", "5", "p4"]
    assert state["grid"][-2:] == [".......", "..YRY.."]
    assert journal_moves(sim) == ["4", "3", "4", "5", "p3", "3", "p4"]
    assert sim.lights.shown().turn_yellow


def test_a_board_reset_mid_game_loses_and_doubles_nothing(sim: Simulation) -> None:
    assert isinstance(sim.board, BoardTimeline)
    for text in ("drop 1", "drop 2", "drop 1"):
        act(sim, text)
    sim.board.reset(boot_id=0xB007)  # counters restart at zero, the strip goes dark
    sim.advance(0.01)
    assert sim.lights.shown().columns == (None,) * 7
    for text in ("drop 2", "pop 1"):
        assert act(sim, text) == []
    state = sim.state("end")
    assert state["moves"] == ["1", "2", "1", "2", "p1"]
    assert model_is_grid(sim) and state["fault"] is None
    assert journal_moves(sim) == ["1", "2", "1", "2", "p1"]
    assert sim.board.backend.resets_seen == 1
    assert sim.lights.shown().columns == ("yellow",) * 7  # shown again after the reset


def test_unplug_and_replug_mid_game(sim: Simulation) -> None:
    assert isinstance(sim.board, BoardTimeline)
    for text in ("drop 6", "drop 5"):
        act(sim, text)
    sim.board.unplug()
    verdicts = sim.advance(3.0)
    assert [v.log for v in verdicts if v.log]  # the fault was logged
    assert BOARD in sim.daemon.referee.faults
    assert "stopped answering" in (sim.display().fault or "")
    sim.board.replug(boot_id=0xCAFE)
    sim.advance(10.0)  # the host's reconnect backoff, then the handshake
    assert not sim.daemon.referee.faults
    for text in ("drop 2", "pop 5"):
        assert act(sim, text) == []
    state = sim.state("end")
    assert state["moves"] == ["6", "5", "2", "p5"]
    assert model_is_grid(sim)
    assert journal_moves(sim) == ["6", "5", "2", "p5"]
    assert sim.lights.shown().turn_red


def test_corrupted_bytes_both_ways_lose_and_double_nothing(sim: Simulation) -> None:
    assert isinstance(sim.board, BoardTimeline)
    count = [0]

    def mangle(data: bytes) -> bytes:
        count[0] += 1
        if count[0] % 3:
            return data
        bad = bytearray(data)
        bad[len(bad) // 2] ^= 0x5A
        return b"\xa5\x07" + bytes(bad)

    sim.board.firmware.stream.outgoing = mangle
    sim.board.firmware.stream.incoming = mangle
    for text in ("drop 1", "drop 7", "drop 1", "pop 7", "drop 7"):
        assert act(sim, text) == []
    sim.board.firmware.stream.outgoing = sim.board.firmware.stream.incoming = None
    sim.advance(1.0)
    assert journal_moves(sim) == ["1", "7", "1", "p7", "7"]
    assert model_is_grid(sim)
    link = sim.board.backend.port_link
    assert link is not None and link.decoder.bad + link.decoder.garbage > 0
    assert sim.board.firmware.board.shown == sim.board.backend._display_id


def test_the_board_reports_a_lost_host_and_the_daemon_a_silent_board(
    sim: Simulation,
) -> None:
    assert isinstance(sim.board, BoardTimeline)
    sim.board.firmware.stream.outgoing = lambda data: b""  # nothing reaches the host
    events = sim.advance(2.0)
    assert events  # the fault's verdict
    assert BOARD in sim.daemon.referee.faults
    sim.board.firmware.stream.outgoing = None
    sim.advance(2.0)
    assert not sim.daemon.referee.faults


def test_a_restart_resumes_the_game_over_the_serial_link(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = Simulation(_config("classic"), state)
    for text in ("drop 4", "drop 4", "drop 5"):
        act(first, text)
    first.close()
    second = Simulation(_config("classic"), state)
    try:
        assert second.state("resumed")["moves"] == ["4", "4", "5"]
        assert model_is_grid(second)
        assert act(second, "drop 5") == []
        assert journal_moves(second)[-1] == "5"
    finally:
        second.close()


# -- configuration and the command line --------------------------------------------------


def test_link_is_checked_with_one_line() -> None:
    with pytest.raises(ConfigError, match=r"^x: \[sim\] link: 'usb' is not a link; write .gpio."):
        parse_config({"sim": {"link": "usb"}}, "x")
    with pytest.raises(ConfigError, match="does not sense colour"):
        parse_config({"sim": {"link": "serial"}, "board": {"colour_sensing": True}}, "x")
    assert parse_config({}, "x").sim_link == "gpio"


def test_popref_simulate_over_the_serial_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "popref.toml"
    config.write_text('[game]\nrules = "popout"\n[sim]\nlink = "serial"\n')
    script = tmp_path / "game.txt"
    script.write_text("drop 4\ndrop 4\npop 4\ndrop 3 yellow\ndrop 4\n")
    status = main(["simulate", "--config", str(config), "--script", str(script), "--json"])
    out = capsys.readouterr().out
    assert status == 0, out
    states = [json.loads(line) for line in out.splitlines()]
    assert states[2]["moves"] == ["4", "4", "p4"]
    assert states[-1]["moves"] == ["4", "4", "p4", "3", "4"]
    assert states[-1]["board"] == states[-1]["grid"]
    assert all(s["fault"] is None for s in states)


def test_popref_simulate_rejects_a_bad_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "popref.toml"
    config.write_text('[sim]\nlink = "bluetooth"\n')
    assert main(["simulate", "--config", str(config), "--script", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[sim] link" in err and "Traceback" not in err


def test_a_stuck_exit_beam_is_shown_as_a_fault_and_clears(sim: Simulation) -> None:
    sim.grid.stick_beam(Beam.EXIT, 2, duration=4.0)
    sim.advance(3.5)
    assert "exit 2" in sim.daemon.referee.faults
    assert 2 in sim.lights.shown().blinking
    sim.advance(1.5)
    assert not sim.daemon.referee.faults
    assert journal_moves(sim) == []  # a jam, not a pop
    assert model_is_grid(sim)


def test_a_jammed_entry_beam_is_a_fault_and_not_a_drop_as_on_gpio(sim: Simulation) -> None:
    events: list[object] = []
    assert sim.board is not None
    backend = sim.board.backend
    poll = backend.poll_marked

    def keep(now: float) -> list[Any]:
        got = poll(now)
        events.extend(event for event, _ in got)
        return got

    backend.poll_marked = keep  # type: ignore[method-assign]
    sim.grid.stick_beam(Beam.ENTRY, 3, duration=4.0)
    sim.advance(3.5)
    assert "entry 3" in sim.daemon.referee.faults
    sim.advance(1.5)
    assert not sim.daemon.referee.faults
    names = [(type(e).__name__, getattr(e, "sensor", None)) for e in events]
    assert ("SensorFault", "entry 3") in names and ("SensorCleared", "entry 3") in names
    assert not [e for e in events if isinstance(e, DiscEntered)]
    assert journal_moves(sim) == []
    assert act(sim, "drop 3") == []  # the column works again
    assert journal_moves(sim) == ["3"]


def test_a_daemon_restart_counts_what_the_board_counted_meanwhile(tmp_path: Path) -> None:
    """The Pi's daemon dies (kill -9) while the Pico keeps counting; a disc
    dropped before the new daemon is up is a move, counted once."""
    state = tmp_path / "state"
    sim = Simulation(_config("classic"), state)
    assert isinstance(sim.board, BoardTimeline)
    old = sim.daemon
    try:
        for text in ("drop 4", "drop 4"):
            act(sim, text)
        link = sim.board.backend.port_link
        assert link is not None
        link.close()  # the process died: its port closed, nothing else was said
        sim.grid.drop(5, Colour.RED)  # the board counts it; no host hears
        sim.board.run_until(sim.clock() + 1.0)
        sim.clock.set(sim.clock() + 1.0)
        assert sim.grid.columns_content()[4] == (Colour.RED,)
        config = sim.board.backend.config
        backend = ObservedSerialBackend(config, columns=7, rows=6)
        sim.board.backend = backend
        sim.daemon = Daemon(
            old.table,
            "classic",
            SimulatedBackend(backend, sim.board, sim.grid, on_close=sim.board.close),
            sim.clock,
            state,
        )
        sim.daemon.resume()
        sim.daemon.open()
        sim.advance(3.0)
        state_now = sim.state("after the restart")
        assert state_now["moves"] == ["4", "4", "5"]
        assert model_is_grid(sim) and state_now["fault"] is None
        assert journal_moves(sim) == ["4", "4", "5"]
        assert act(sim, "drop 5") == []
        assert sim.state("end")["moves"] == ["4", "4", "5", "5"]
    finally:
        sim.close()
        old.journal.close()


def test_without_a_journalled_mark_the_first_heartbeat_is_a_baseline(tmp_path: Path) -> None:
    """A board already holding counts when popref first meets it (a fresh
    state directory) is not a burst of moves."""
    sim = Simulation(_config("classic"), tmp_path / "state")
    try:
        records = Journal(sim.state_dir / "journal").load().records
        assert "board" not in records[0]
        act(sim, "drop 4")
        records = Journal(sim.state_dir / "journal").load().records
        drop = next(r for r in records if r.get("e") == "drop")
        assert drop["board"]["drops"][3] == 1
        assert sim.state("end")["moves"] == ["4"]
    finally:
        sim.close()
