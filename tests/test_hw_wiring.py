"""popref check-wiring, scripted: on the simulated grid, and through streams."""

from __future__ import annotations

import argparse
import io
from typing import Any

import pytest

from controller.cli import wiring as wiring_cmd
from controller.cli import wiring_check
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
        "column_rgb = [[20, 21, 22], [23, 24, 25], [26, 27, 17], [18, 14, 15]]\n"
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

    def ask(self, prompt: wiring_check.Prompt) -> str:
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
    report = wiring_check.WiringCheck(backend, person, clock, clock.advance).run()
    missing = dict(report.missing)
    assert missing["light 4"] == "the person did not see it"
    assert missing["exit 1"] == "skipped"
    assert missing["entry 2"] == "nothing seen; saw entry 3 instead (wires swapped?)"
    assert "entry 3" in report.worked and "light 5" in report.worked
    assert person.asked[0] == "Did the light for column 1 come on? [y/n]"


def test_the_stream_person_reads_lines_and_stops_at_end_of_input() -> None:
    stdout = io.StringIO()
    person = wiring_check.StreamPerson(io.StringIO("Y\n"), stdout)
    assert person.ask(wiring_check.Prompt("light 1", "Did it?")) == "y"
    assert stdout.getvalue() == "Did it? "
    with pytest.raises(EOFError):
        person.ask(wiring_check.Prompt("light 2", "Did it?"))


FOUR_COLUMNS = (
    "[board]\ncolumns = 4\nrows = 4\n[gpio]\nentry = [4, 5, 6, 7]\nexit = [8, 9, 10, 11]\n"
    "slider = 2\nbutton = 3\nturn_red = 16\nturn_yellow = 19\n"
    "column_rgb = [[20, 21, 22], [23, 24, 25], [26, 27, 12], [13, 14, 15]]\n"
)


def by_hand(tmp_path: Any, typed: list[str], config: str = FOUR_COLUMNS) -> tuple[int, str]:
    """``check-wiring --sim --by-hand`` with ``typed`` at its prompts: its status and output."""
    path = tmp_path / "popref.toml"
    path.write_text(config)
    out = io.StringIO()
    status = wiring_cmd.run(
        parse("--sim", "--by-hand", "--config", str(path)),
        stdin=io.StringIO("".join(f"{line}\n" for line in typed)),
        stdout=out,
    )
    return status, out.getvalue()


ALL_SENSORS = ["r1", "r2", "r3", "r4", "p1", "p2", "p3", "p4", "o", "c", "b"]


def test_by_hand_on_the_simulated_grid_the_person_acts_and_answers(tmp_path: Any) -> None:
    """--sim used to answer every question itself; --by-hand lets a person
    learn the check on the simulated grid: told what its lights show, they
    do each step in the simulator's shorthand."""
    typed = [
        *("y", "y", "n", "y"),  # the column lights; the person says light 3 was dark
        *("y", "y"),  # the turn lights
        *("r1", "", "r2", "r4", "?", "jump", "r4"),  # entries: Enter alone asks again; 3 in 4
        *("p1", "p1", "p4", "s", "p4"),  # exits: column 1 is empty by then, 2 in 4; 3 skipped
        *("o", "c", "b"),
    ]
    status, text = by_hand(tmp_path, typed)
    assert status == 1
    assert "(the simulated board shows column 3 (red) lit; no turn light)" in text
    assert "(the simulated board shows no column lit; the turn light of Yellow)" in text
    assert text.count("type what you do: r3 drops a red disc into column 3") == 2  # and at ?
    assert "'jump' is not an action" in text and "column 1 has no disc to pop" in text
    summary = text.split("Missing (4):\n")[1].splitlines()
    assert summary == [
        "  light 3: the person did not see it",
        "  entry 3: nothing seen; saw entry 4 instead (wires swapped?)",
        "  exit 2: nothing seen; saw exit 4 instead (wires swapped?)",
        "  exit 3: skipped",
    ]
    worked = text.split("Worked (")[1]
    for part in ("turn yellow", "entry 4", "exit 1", "exit 4", "slider closed", "button"):
        assert part in worked


def test_by_hand_without_sim_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert wiring_cmd.run(parse("--by-hand")) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "popref check-wiring: --by-hand: only with --sim (on a real board it is all by hand)\n"
    )


def test_by_hand_a_stray_enter_or_an_answer_not_understood_is_asked_again(
    tmp_path: Any,
) -> None:
    """A new user's "maybe", "j" or stray Enter at a [y/n] question was taken
    as "no", and Enter alone at a sensor step (which the intro said did
    nothing) moved on: both listed parts that work as missing."""
    typed = [
        *("maybe", "j", "", "y"),  # light 1, at the fourth answer
        *("yes", "Y", "y"),  # lights 2 to 4: yes and Y are yes too
        *("y", "y"),  # the turn lights
        *("", "r1"),  # entry 1, after Enter alone
        *ALL_SENSORS[1:],
    ]
    status, text = by_hand(tmp_path, typed)
    assert "Missing: nothing; the board is wired correctly." in text
    assert status == 0
    assert text.count("Did the light for column 1 come on? [y/n]") == 4
    assert text.count("  Please answer y (yes) or n (no).\n") == 3
    assert "Enter alone asks again; s skips." in text
    entry_1 = "Drop a red disc into column 1: type what you do (s to skip): "
    assert text.count(entry_1) == 2
    assert text.count("  Nothing done yet: type what you do (? shows how), or s to skip.\n") == 1


def test_by_hand_the_buzzer_is_heard_not_seen(tmp_path: Any) -> None:
    typed = [*("y", "y", "y", "y", "y", "y"), "n", *ALL_SENSORS]
    status, text = by_hand(tmp_path, typed, FOUR_COLUMNS + "buzzer = 17\n")
    assert status == 1
    assert (
        "(the simulated board shows no column lit; no turn light; you hear its buzzer beep)\n"
        "Did you hear the buzzer beep? [y/n]"
    ) in text
    assert text.split("Missing (1):\n")[1].splitlines() == ["  buzzer: the person did not hear it"]


def test_by_hand_input_that_ends_at_a_question_asked_again_ends_the_check(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    status, text = by_hand(tmp_path, ["maybe"])
    assert status == 1
    assert "Please answer y (yes) or n (no)." in text and "Worked" not in text
    assert capsys.readouterr().err == (
        "popref check-wiring: input ended before the check was done\n"
    )


def test_the_stream_person_asks_again_until_it_understands() -> None:
    stdout = io.StringIO()
    person = wiring_check.StreamPerson(io.StringIO("maybe\n\nYes\nj\n"), stdout)
    prompt = wiring_check.Prompt("light 1", "Did it?", ("y", "yes", "n", "no"), "y or n.")
    assert person.ask(prompt) == "yes"
    assert stdout.getvalue() == "Did it?   y or n.\nDid it?   y or n.\nDid it? "
    with pytest.raises(EOFError):
        person.ask(prompt)


SERVO_DIALS = FOUR_COLUMNS + "score_red_servo = 17\nscore_yellow_servo = 18\n"


@pytest.mark.parametrize(
    "part",
    ["light 9", "light banana", "buzzer", "score red", "entry 5", "slider half", ""],
)
def test_a_sim_fault_names_a_part_this_board_has(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], part: str
) -> None:
    """ "light 9" on a 4-column board, "light banana", and a buzzer on a board
    without one were taken, and the check then said the board was wired
    correctly."""
    path = tmp_path / "popref.toml"
    path.write_text(FOUR_COLUMNS)
    out = io.StringIO()
    assert (
        wiring_cmd.run(parse("--sim", "--config", str(path), "--sim-fault", part), stdout=out) == 2
    )
    assert out.getvalue() == ""
    assert capsys.readouterr().err == (
        f"popref check-wiring: --sim-fault: {part!r} is not a part of this board; name one the "
        "report names: light 1-4, turn red, turn yellow, entry 1-4, exit 1-4, slider open, "
        "slider closed, button\n"
    )


def test_every_part_the_report_names_can_be_broken(tmp_path: Any) -> None:
    """ "score red", a part the report prints, was refused."""
    path = tmp_path / "popref.toml"
    path.write_text(SERVO_DIALS)
    out = io.StringIO()
    faults = ("score red", "Turn  Yellow", "slider open", "exit 4")
    argv = [arg for part in faults for arg in ("--sim-fault", part)]
    assert wiring_cmd.run(parse("--sim", "--config", str(path), *argv), stdout=out) == 1
    assert out.getvalue().split("Missing (5):\n")[1].splitlines() == [
        "  turn yellow: the person did not see it",
        "  score red: the person did not see it",
        "  exit 4: nothing seen",
        "  slider open: nothing seen",
        "  slider closed: nothing seen",
    ]
    assert "score yellow" in out.getvalue().split("Worked (")[1]


def test_sim_fault_without_sim_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert wiring_cmd.run(parse("--sim-fault", "entry 3")) == 2
    assert capsys.readouterr().err == (
        "popref check-wiring: --sim-fault: only with --sim (it breaks a part of the simulated "
        "board)\n"
    )


def test_by_hand_the_sensor_steps_ask_for_what_is_typed(tmp_path: Any) -> None:
    """--by-hand said "(or block its entry beam), then press Enter", where
    the step is typed (Enter alone does nothing) and no beam can be blocked."""
    typed = ["y"] * 6 + ALL_SENSORS
    status, text = by_hand(tmp_path, typed)
    assert status == 0
    assert "press Enter" not in text and "block its" not in text
    for step in (
        "Drop a red disc into column 4: type what you do (s to skip): ",
        "Pop a disc out of the bottom of column 2: type what you do (s to skip): ",
        "Open the release slider: type what you do (s to skip): ",
        "Press the mode button: type what you do (s to skip): ",
    ):
        assert step in text
