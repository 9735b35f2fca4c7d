"""What players read: every sentence about the physical grid names the grid's
own columns (1 to 7 on a 5-in-a-Row table too), and says what to do next."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.referee.core import Referee, Table
from controller.referee.view import display
from engine import Colour
from hardware.events import DiscEntered, DiscLeft, SliderMoved

R, Y = Colour.RED, Colour.YELLOW
_clock = itertools.count(start=10, step=3)


def drop(column: int, colour: Colour | None = None) -> DiscEntered:
    return DiscEntered(column, float(next(_clock)), colour)


def pop(column: int) -> DiscLeft:
    return DiscLeft(column, float(next(_clock)))


def follow(referee: Referee) -> None:
    """Do what the board's status says, as a player reading it would."""
    status = display(referee).status
    words = status.rstrip(".").split()
    column = int(words[-1])
    if status.startswith("Drop a "):
        colour = Colour(words[2].lower())
        referee.handle(drop(column, colour))
    elif status.startswith("Pop the bottom disc"):
        referee.handle(pop(column))
    else:
        raise AssertionError(status)


def test_five_in_a_row_repair_names_the_grids_own_column() -> None:
    referee = Referee(Table(), "five")
    assert referee.handle(drop(1)).log == ("Red played a drop into column 1.",)
    assert str(referee.game.moves[0]) == "2"  # notation counts the edge strip
    verdict = referee.handle(pop(1))
    assert verdict.log == (
        "Yellow's pop from column 1 is not allowed: pops are not allowed in 5-in-a-Row.",
    )
    assert display(referee).status == "Drop a Red disc into column 1."
    follow(referee)
    assert referee.in_step() and display(referee).status == "Yellow to move, 5-in-a-Row."


def test_five_in_a_row_pop_out_reasons_use_the_grids_columns() -> None:
    referee = Referee(Table(), "five+popout")
    referee.handle(drop(1))
    verdict = referee.handle(pop(1))
    assert verdict.log[-1] == (
        "Yellow's pop from column 1 is not allowed: "
        "the bottom disc of column 1 is Red's; Yellow can pop only their own."
    )
    follow(referee)
    assert referee.in_step()


def test_five_in_a_row_wrong_colour_and_two_discs_name_the_grids_column() -> None:
    referee = Referee(Table(colour_sensing=True), "five")
    verdict = referee.handle(drop(7, Y))
    assert verdict.log == ("Yellow's disc went into column 7, but it is Red's turn.",)
    follow(referee)
    referee.handle(drop(3, R))
    verdict = referee.handle(DiscEntered(4, referee.last_entry_at or 0.0, Y))
    assert "the one in column 4 is extra" in verdict.log[0]
    follow(referee)
    assert referee.in_step()


def test_a_wrong_disc_while_rebuilding_after_the_slider_is_said() -> None:
    referee = Referee(Table(), "classic")
    referee.handle(drop(4))
    referee.handle(drop(5))
    referee.handle(SliderMoved(True))
    referee.handle(SliderMoved(False))
    before = display(referee).fault
    assert before is not None and before.startswith("Rebuild the game after the slider")
    verdict = referee.handle(drop(1))
    said = "A disc went into column 1; that was not the step the board asked for."
    assert verdict.log == (said,)
    after = display(referee).fault
    assert after is not None and after.startswith(f"{said} Rebuild the game after the slider")
    for _ in range(3):
        follow(referee)
    assert referee.in_step() and [str(m) for m in referee.game.moves] == ["4", "5"]


def test_a_stray_disc_after_a_win_says_the_slider_starts_the_next_game() -> None:
    referee = Referee(Table(), "classic")
    for column in (1, 2, 1, 2, 1, 2, 1):
        referee.handle(drop(column))
    assert referee.game.is_over()
    verdict = referee.handle(drop(3))
    assert verdict.log == (
        "A disc went into column 3 after the game ended; open the slider for a new game.",
    )
    shown = display(referee)
    assert shown.status == "Pop the bottom disc out of column 3. Or open the slider for a new game."
    assert shown.fault == f"A disc went into column 3 after the game ended. {shown.status}"
    verdict = referee.handle(pop(3))
    assert verdict.log == ("The grid matches the finished game again.",)
    assert display(referee).status == "Red wins. Open the slider for a new game."
    referee.handle(SliderMoved(True))
    assert not referee.game.moves


def test_a_scoring_pop_in_pop_10_is_logged_as_a_score() -> None:
    from engine import game_from_position

    referee = Referee(Table(columns=4, rows=4), "pop10")
    rows = ["YYRY", "RYYR", "YRYY", "RRRR"]
    referee.game = game_from_position(referee.rules_for("pop10"), rows, R)
    referee.grid = [[Colour.from_letter(row[c]) for row in reversed(rows)] for c in range(4)]
    assert referee.in_step()
    verdict = referee.handle(pop(2))
    assert verdict.log == (
        "Red scored: the disc popped from column 2 was in a line and is set aside (1 for Red).",
    )
    assert display(referee).status == "Red to pop, Pop 10 1:0."
    verdict = referee.handle(pop(2))  # column 2's next disc is Red: the line is whole again
    assert verdict.log[0].endswith("(2 for Red).")


def test_run_says_which_board_and_where_the_game_is_kept(tmp_path: Path) -> None:
    from controller.cli.run import started
    from controller.daemon.config import load_config, parse_config

    state = tmp_path / "state"
    bare = started(parse_config({}, "defaults"), state)
    assert bare.startswith("Refereeing the simulated grid: there is no /etc/popref/config.toml")
    assert f"The game is kept in {state}." in bare
    config = tmp_path / "config.toml"
    config.write_text('[board]\nbackend = "sim"\n')
    sim = started(load_config(config), state)
    assert sim == (
        f'Refereeing the simulated grid ([board] backend = "sim" in {config}). '
        f"The game is kept in {state}."
    )
    serial = parse_config({"board": {"backend": "serial"}, "serial": {"port": "/dev/ttyACM0"}}, "c")
    assert started(serial, state).startswith("Refereeing the sensor board on /dev/ttyACM0 (c).")
    remote = parse_config(
        {"board": {"backend": "serial"}, "serial": {"port": "socket://10.0.0.9:4000"}}, "c"
    )
    assert started(remote, state).endswith(
        "Under systemd, allow 10.0.0.9 with IPAddressAllow= in a drop-in "
        '(docs/install-pi.md, "The page and the network").'
    )
    local = parse_config(
        {"board": {"backend": "serial"}, "serial": {"port": "socket://localhost:4000"}}, "c"
    )
    assert "IPAddressAllow" not in started(local, state)
    gpio = parse_config({"board": {"backend": "gpio"}}, "c")
    assert started(gpio, state).startswith("Refereeing the board's GPIO pins (c).")


def test_run_says_the_file_sets_no_backend_and_which_of_its_tables_go_unused(
    tmp_path: Path,
) -> None:
    """A walk forgot [board] in a file with a whole [gpio] pin map, and read
    '([board] backend = "sim" in FILE)', a line the file does not have."""
    from controller.cli.run import started
    from controller.daemon.config import load_config

    state = tmp_path / "state"
    config = tmp_path / "config.toml"
    kept = f" The game is kept in {state}."
    config.write_text('[game]\nrules = "pop10"\n[gpio]\npin_factory = "mock"\n')
    assert started(load_config(config), state) == (
        f"Refereeing the simulated grid: {config} sets no [board] backend, so its [gpio] "
        "table is not used; for a grid wired to this Pi's pins, set [board] backend = "
        f'"gpio".{kept}'
    )
    config.write_text('[serial]\nport = "/dev/ttyACM0"\n')
    assert started(load_config(config), state).endswith(
        'so its [serial] table is not used; for the sensor board, set [board] backend = "serial".'
        + kept
    )
    config.write_text('[gpio]\n[serial]\nport = "/dev/ttyACM0"\n')
    assert "so its [gpio] and [serial] tables are not used; for the real board, set [board] " + (
        'backend = "gpio" (wired to this Pi\'s pins) or "serial" (the sensor board).'
    ) in started(load_config(config), state)
    # the simulated sensor board uses [serial]'s timings: that table is not a mistake
    config.write_text('[sim]\nlink = "serial"\n[serial]\ntimeout = 3\n')
    assert started(load_config(config), state) == (
        f"Refereeing the simulated grid: {config} sets no [board] backend; for a real board "
        'set it: "gpio" (wired to this Pi\'s pins) or "serial" (the sensor board).' + kept
    )


def test_run_logs_it_first(tmp_path: Path) -> None:
    import socket

    config = tmp_path / "config.toml"
    config.write_text('[board]\nbackend = "sim"\n')
    ready = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ready.bind(str(tmp_path / "notify"))
    ready.settimeout(30)
    command = [sys.executable, "-m", "controller.cli", "run", "--config", str(config)]
    process = subprocess.Popen(
        [*command, "--state-dir", str(tmp_path / "state")],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify")},
    )
    try:
        # the signal handlers are in place once systemd is told it is ready
        while not ready.recv(4096).startswith(b"READY=1"):
            pass
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
        ready.close()
    first = err.splitlines()[:2]
    assert first[0] == "New game: Classic."
    assert first[1].startswith("Refereeing the simulated grid ([board] backend")


def test_a_repair_in_another_order_than_shown_is_not_blamed() -> None:
    # with colour sensing, the referee knows the disc is the one needed later
    referee = Referee(Table(colour_sensing=True), "classic")
    referee.handle(drop(4, R))
    referee.handle(drop(5, Y))
    referee.handle(SliderMoved(True))
    referee.handle(SliderMoved(False))
    assert display(referee).status == "Drop a Red disc into column 4."
    verdict = referee.handle(drop(5, Y))  # the second step first: still progress
    assert verdict.log == ()
    fault = display(referee).fault
    assert fault is not None and fault.startswith("Rebuild the game after the slider")


def test_the_daemon_log_says_one_move_and_the_rules_title(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from controller.daemon.config import parse_config
    from controller.simulator.script import parse_script
    from controller.simulator.simulation import Simulation

    logger = logging.getLogger("popref")
    logger.addHandler(caplog.handler)
    caplog.set_level(logging.INFO, logger="popref")
    try:
        first = Simulation(parse_config({}, "test"), tmp_path, "five+popout")
        first.act(parse_script("drop 4", "s")[0])
        first.close()
        Simulation(parse_config({}, "test"), tmp_path).close()
    finally:
        logger.removeHandler(caplog.handler)
    said = [record.getMessage() for record in caplog.records]
    assert said[0] == "New game: 5-in-a-Row Pop Out."
    assert "Resumed the game from the journal (1 move)." in said


def test_the_engine_names_columns_shifted_for_the_physical_grid() -> None:
    from engine import new_game

    game = new_game("five+pop10")
    game.play("2")
    assert game.why_illegal("2") == "in the fill phase discs go into the lowest columns: 3-8"
    assert game.why_illegal("2", shift=1) == (
        "in the fill phase discs go into the lowest columns: 2-7"
    )
