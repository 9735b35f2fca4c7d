"""popref check-wiring, scripted: on the simulated grid, and through streams."""

from __future__ import annotations

import argparse
import io
from typing import Any

import pytest

from controller.cli import wiring as wiring_cmd
from engine.colour import Colour
from hardware.clock import FakeClock
from hardware.sim.grid import Physics, build_simulated_gpio


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    wiring_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def test_a_correctly_wired_simulated_board_passes() -> None:
    out = io.StringIO()
    assert wiring_cmd.run(parse("--sim"), stdout=out) == 0
    text = out.getvalue()
    assert "Did the light for column 3 come on? [y/n] y" in text
    assert "Missing: nothing" in text
    assert "entry 7" in text and "button" in text and "slider closed" in text


def test_cut_sensor_wires_and_dead_lamps_are_listed_as_missing() -> None:
    out = io.StringIO()
    status = wiring_cmd.run(
        parse("--sim", "--sim-fault", "exit 2", "--sim-fault", "light 6", "--sim-fault", "button"),
        stdout=out,
    )
    assert status == 1
    summary = out.getvalue().split("Missing (3):")[1]
    assert "light 6: the person did not see it" in summary
    assert "exit 2: nothing seen" in summary
    assert "button: nothing seen" in summary


def test_a_config_file_sets_the_board(tmp_path: Any) -> None:
    path = tmp_path / "popref.toml"
    path.write_text(
        "[board]\ncolumns = 4\nrows = 4\n[gpio]\nentry = [4, 5, 6, 7]\n"
        "exit = [8, 9, 10, 11]\nslider = 2\nbutton = 3\ncolour = [12, 13, 16, 19]\n"
        "column_rgb = [[20, 21, 22], [23, 24, 25], [26, 27, 0], [1, 14, 15]]\n"
    )
    out = io.StringIO()
    assert wiring_cmd.run(parse("--sim", "--config", str(path)), stdout=out) == 0
    text = out.getvalue()
    assert "colour 4" in text and "light 4" in text and "entry 5" not in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sim-fault", "entry 9"], "--sim-fault: 'entry 9' is not a part of this board"),
        (["--config", "/nonexistent/popref.toml"], "/nonexistent/popref.toml: no such file"),
    ],
)
def test_configuration_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert wiring_cmd.run(parse("--sim", *argv)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_real_board_that_cannot_be_opened_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    path = tmp_path / "popref.toml"
    path.write_text('[gpio]\npin_factory = "lgpio"\n')
    assert wiring_cmd.run(parse("--config", str(path))) == 2
    err = capsys.readouterr().err
    assert err.startswith("popref check-wiring: ") and err.count("\n") == 1


class Scripted:
    """A person at a terminal: typed answers, and actions on a simulated grid
    standing in for their hands."""

    def __init__(self, grid: Any, answers: dict[str, str]) -> None:
        self.grid, self.answers = grid, answers
        self.asked: list[str] = []

    def ask(self, prompt: wiring_cmd.Prompt) -> str:
        self.asked.append(prompt.text)
        if prompt.part == "entry 2":
            self.grid.drop(3, Colour.RED)  # the wrong column
            self.grid.settle()
        elif prompt.part.startswith("entry"):
            self.grid.drop(int(prompt.part.split()[1]), Colour.RED)
            self.grid.settle()
        return self.answers.get(prompt.part, "y")


def test_interactive_answers_skips_and_swapped_wires() -> None:
    clock = FakeClock()
    backend, grid, _ = build_simulated_gpio(7, 6, clock, physics=Physics.clean())
    person = Scripted(grid, {"light 4": "n", "exit 1": "s"})
    report = wiring_cmd.WiringCheck(backend, person, clock, clock.advance).run()
    missing = dict(report.missing)
    assert missing["light 4"] == "the person did not see it"
    assert missing["exit 1"] == "skipped"
    assert missing["entry 2"] == "nothing seen; saw entry 3 instead (wires swapped?)"
    assert "entry 3" in report.worked and "light 5" in report.worked
    assert person.asked[0] == "Did the light for column 1 come on? [y/n]"


def test_the_stream_person_reads_lines_and_stops_at_end_of_input() -> None:
    stdout = io.StringIO()
    person = wiring_cmd.StreamPerson(io.StringIO("Y\n"), stdout)
    assert person.ask(wiring_cmd.Prompt("light 1", "Did it?")) == "y"
    assert stdout.getvalue() == "Did it? "
    with pytest.raises(EOFError):
        person.ask(wiring_cmd.Prompt("light 2", "Did it?"))
