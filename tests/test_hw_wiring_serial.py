"""popref check-wiring on the sensor board: the simulated one (``--sim``), a
port where no board answers, the firmware on a real pty in real time, and a
person who takes their time over a light question."""

from __future__ import annotations

import argparse
import io
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import wiring as wiring_cmd
from controller.cli import wiring_check
from engine.colour import Colour
from hardware.clock import FakeClock, monotonic
from hardware.sim.backend import build_simulated
from hardware.sim.board import Firmware
from hardware.sim.grid import Physics
from hardware.sim.seam import Beam


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    wiring_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def config(tmp_path: Path, port: str = "/dev/ttyACM0", extra: str = "") -> str:
    path = tmp_path / "popref.toml"
    path.write_text(
        f'[board]\nbackend = "serial"\ncolumns = 4\nrows = 4\n[serial]\nport = "{port}"\n{extra}'
    )
    return str(path)


def test_sim_checks_the_simulated_sensor_board(tmp_path: Path) -> None:
    """With [board] backend = "serial", --sim asked about the Pi's GPIO turn
    lights and buzzer; it now checks the simulated sensor board."""
    out = io.StringIO()
    path = config(tmp_path)
    assert wiring_cmd.run(parse("--sim", "--config", path), stdout=out) == 0
    text = out.getvalue()
    assert "Did the light for column 4 come on? [y/n] y" in text
    assert "Did Yellow's turn light come on? [y/n] y" in text
    assert "buzzer" not in text and "score" not in text  # only its pinmap.py knows
    assert "(or pass a hand through its entry beam), then press Enter" in text
    assert "Missing: nothing; the board is wired correctly." in text
    out = io.StringIO()
    faults = ("--sim-fault", "entry 2", "--sim-fault", "light 3", "--sim-fault", "button")
    assert wiring_cmd.run(parse("--sim", "--config", path, *faults), stdout=out) == 1
    assert out.getvalue().split("Missing (3):\n")[1].splitlines() == [
        "  light 3: the person did not see it",
        "  entry 2: nothing seen",
        "  button: nothing seen",
    ]


def test_sim_link_serial_checks_the_simulated_sensor_board(tmp_path: Path) -> None:
    path = tmp_path / "popref.toml"
    path.write_text('[board]\nbackend = "sim"\n[sim]\nlink = "serial"\n')
    out = io.StringIO()
    assert wiring_cmd.run(parse("--sim", "--config", str(path)), stdout=out) == 0
    assert "pass a hand through its exit beam" in out.getvalue()


def test_a_port_where_no_board_answers_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    master, slave = os.openpty()
    try:
        path = config(tmp_path, os.ttyname(slave), "timeout = 0.3\n")
        assert wiring_cmd.run(parse("--config", path), stdin=io.StringIO("")) == 2
    finally:
        os.close(slave)
        os.close(master)
    captured = capsys.readouterr()
    assert captured.err == (
        "popref check-wiring: The sensor board stopped answering; check its USB cable.\n"
    )
    assert captured.out.startswith("Waiting for the sensor board on /dev/")


def test_a_port_that_is_not_there_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "ttyACM0"
    assert wiring_cmd.run(parse("--config", config(tmp_path, str(missing)))) == 2
    assert capsys.readouterr().err == (
        f"popref check-wiring: [serial] port {missing}: no such device; plug the sensor "
        "board in (ls /dev/serial/by-id/ shows its name)\n"
    )


# -- a person who takes their time, in simulated time ------------------------------------


class Thoughtful:
    """Takes three seconds over every prompt while the board runs on its
    own (as a real one does), then answers from what its strip shows, or
    does what the prompt asks on the grid."""

    def __init__(self, table: Any, clock: FakeClock) -> None:
        self.table, self.clock = table, clock

    def ask(self, prompt: wiring_check.Prompt) -> str:
        board, grid = self.table.board, self.table.grid
        end = self.clock() + 3.0
        while self.clock() < end:
            step = prompt.idle() if prompt.idle is not None else 0.1
            board.run_until(min(end, self.clock() + max(step, 0.001)))
        kind, _, number = prompt.part.partition(" ")
        if kind == "light":
            return "y" if self.table.lights.shown().columns[int(number) - 1] else "n"
        if kind == "turn":
            shown = self.table.lights.shown()
            return "y" if (shown.turn_red if number == "red" else shown.turn_yellow) else "n"
        if kind == "entry":
            grid.drop(int(number), Colour.RED)
        elif kind == "exit":
            grid.pop(int(number))
        elif prompt.part == "slider open":
            grid.open_slider()
        elif prompt.part == "slider closed":
            grid.close_slider()
        else:
            grid.press_button()
        while (t := grid.next_time()) is not None:
            board.run_until(t)
        return ""


def test_the_sensor_board_hears_the_host_while_the_person_thinks() -> None:
    """It goes dark after 2 s without a byte from the host: a light question
    answered after three seconds found the light out."""
    clock = FakeClock()
    table = build_simulated(4, 4, clock, link="serial", physics=Physics.clean())
    inner: Any = table.backend.inner
    report = wiring_check.WiringCheck(
        table.backend,
        Thoughtful(table, clock),
        clock,
        clock.advance,
        parts=wiring_check.Parts.sensor_board(4),
        ready=lambda: bool(inner.connected),
        tend=True,
    ).run()
    assert report.missing == []
    assert len(report.worked) == 4 + 2 + 4 + 4 + 3


def test_the_stream_person_tends_the_board_until_a_line_is_typed() -> None:
    read, write = os.pipe()
    typed = os.fdopen(read, "r")
    calls: list[int] = []

    def idle() -> float:
        calls.append(1)
        if len(calls) == 3:
            os.write(write, b"y\n")
        return 0.01

    try:
        person = wiring_check.StreamPerson(typed, io.StringIO())
        assert person.ask(wiring_check.Prompt("light 1", "Did it?", idle=idle)) == "y"
        assert len(calls) >= 3
    finally:
        typed.close()
        os.close(write)


# -- the command against the firmware on a pty, in real time -------------------------------


class Running:
    """The firmware on a pty, its main loop in real time on a thread."""

    def __init__(self, where: Path) -> None:
        self.fw = Firmware(where, boot_id=0x4242, columns=4, clock=monotonic)
        self.fw.start()
        self.fw.stream.connected = True  # the host opens the port when it starts
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                if self.fw.stream.wait_readable(0):
                    self.fw.stream.pull()
                self.fw.step_now()
            time.sleep(0.001)

    def do(self, action: Callable[[], None]) -> None:
        with self.lock:
            action()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.fw.close()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    board = Running(tmp_path / "board")
    yield board
    board.close()


class Hands(io.StringIO):
    """The terminal: on each prompt written, does what it asks on the
    running board and types the answer into ``typed``."""

    def __init__(self, board: Running, typed: int) -> None:
        super().__init__()
        self.board, self.typed = board, typed

    def write(self, text: str) -> int:
        super().write(text)
        if text.endswith("[y/n] "):
            self._answer(text)
        elif text.endswith("(s to skip): "):
            self._act(text)
            os.write(self.typed, b"\n")
        return len(text)

    def _answer(self, question: str) -> None:
        fw = self.board.fw
        end = time.monotonic() + 3.0
        while time.monotonic() < end:  # until the board has drawn what it was shown
            with self.board.lock:
                shown = fw.lights.shown()
            if "column" in question:
                lit = shown.columns[int(question.split("column ")[1].split()[0]) - 1] is not None
            else:
                lit = shown.turn_red if "Red's" in question else shown.turn_yellow
            if lit:
                break
            time.sleep(0.01)
        os.write(self.typed, b"y\n" if lit else b"n\n")

    def _act(self, prompt: str) -> None:
        wires = self.board.fw.wires
        column = int(prompt.split("column ")[1].split()[0]) if "column" in prompt else 0
        beam = Beam.ENTRY if prompt.startswith("Drop") else Beam.EXIT
        if prompt.startswith(("Drop", "Pop")):
            self.board.do(lambda: wires.beam(beam, column, True))
            time.sleep(0.05)
            self.board.do(lambda: wires.beam(beam, column, False))
        elif prompt.startswith(("Open", "Close")):
            self.board.do(lambda: wires.slider(prompt.startswith("Open")))
        else:
            self.board.do(lambda: wires.button(True))
            time.sleep(0.1)
            self.board.do(lambda: wires.button(False))
        time.sleep(0.05)


def test_check_wiring_over_a_real_pty_checks_the_sensor_board(
    tmp_path: Path, running: Running
) -> None:
    """It checked the Pi's GPIO pins instead ("no GPIO chip in /dev")."""
    read, write = os.pipe()
    stdin = os.fdopen(read, "r")
    hands = Hands(running, write)
    try:
        status = wiring_cmd.run(
            parse("--config", config(tmp_path, running.fw.port)), stdin=stdin, stdout=hands
        )
    finally:
        stdin.close()
        os.close(write)
    text = hands.getvalue()
    assert "Missing: nothing; the board is wired correctly." in text, text
    assert status == 0
    worked = text.split("Worked (17): ")[1]
    assert "light 4" in worked and "exit 4" in worked and "slider closed" in worked
