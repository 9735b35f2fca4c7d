"""End to end: ``popref simulate --script`` drives the whole daemon (simulated
grid, gpiozero mock pins, debouncers, referee, journal) for every game, every
kind of wrong move and its repair, the slider and the mode button."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main


def simulate(
    tmp_path: Path,
    script: str,
    capsys: pytest.CaptureFixture[str],
    *options: str,
    name: str = "script.txt",
) -> list[dict[str, Any]]:
    path = tmp_path / name
    path.write_text(script)
    status = main(["simulate", "--script", str(path), "--json", *options])
    out = capsys.readouterr().out
    assert status == 0, out
    return [json.loads(line) for line in out.splitlines()]


def script(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def test_a_classic_game_to_a_win(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    states = simulate(tmp_path, script("drop 1", "drop 2") * 3 + "drop 1\n", capsys)
    last = states[-1]
    assert last["result"] == "red" and last["to_move"] is None
    assert last["board"] == last["grid"]
    assert last["lights"][0] == "winning"
    assert all(s["fault"] is None for s in states)


@pytest.mark.parametrize(
    ("rules", "moves"),
    [
        ("classic", ["4", "4", "3"]),
        ("popout", ["4", "3", "p4", "4"]),
        ("five", ["1", "7", "2"]),
        ("five+popout", ["1", "2", "p1"]),
    ],
)
def test_every_game_follows_legal_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rules: str, moves: list[str]
) -> None:
    lines = [f"pop {m[1:]}" if m.startswith("p") else f"drop {m}" for m in moves]
    states = simulate(tmp_path, script(*lines), capsys, "--rules", rules)
    assert [s["fault"] for s in states] == [None] * len(moves)
    assert states[-1]["rules"] == rules
    assert len(states[-1]["moves"]) == len(moves)
    offset = 1 if rules.startswith("five") else 0
    first = moves[0]
    assert states[-1]["moves"][0] == str(int(first) + offset)


def test_pop_10_fill_return_and_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill = [f"drop {c}" for c in "1234123421432143"]
    config = tmp_path / "small.toml"
    config.write_text('[board]\ncolumns = 4\nrows = 4\n[game]\nrules = "pop10"\n')
    states = simulate(tmp_path, script(*fill, "pop 1", "drop 1"), capsys, "--config", str(config))
    assert states[15]["phase"] == "pop" and states[15]["to_move"] == "red"
    assert states[16]["phase"] == "return"
    assert states[16]["lights"] == ["drop", "off", "off", "off"]
    assert states[17]["to_move"] == "yellow" and states[17]["fault"] is None
    assert states[17]["scores"] == {"red": 0, "yellow": 0}


def test_an_impossible_physical_action_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "full.txt"
    path.write_text("drop 1\n" * 7)
    assert main(["simulate", "--script", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 7" in err and "full" in err


WRONG_MOVES = [
    # (rules, set-up, the mistake, the repair the board asks for)
    ("pop10", ["drop 4", "drop 3", "drop 5"], "drop 4", ["pop 4", "pop 4", "drop 4"]),
    ("classic", ["drop 4"], "pop 4", ["drop 4"]),
    ("popout", ["drop 4", "drop 3"], "pop 3", ["drop 3"]),
    ("five", ["drop 1"], "pop 1", ["drop 1"]),
]


@pytest.mark.parametrize(("rules", "setup", "mistake", "repair"), WRONG_MOVES)
def test_a_wrong_move_is_caught_and_the_shown_repair_resumes_play(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rules: str,
    setup: list[str],
    mistake: str,
    repair: list[str],
) -> None:
    states = simulate(tmp_path, script(*setup, mistake, *repair), capsys, "--rules", rules)
    before = states[len(setup) - 1]
    caught = states[len(setup)]
    assert caught["fault"] is not None and "not allowed" in caught["fault"]
    assert caught["moves"] == before["moves"]  # the game did not advance
    assert caught["board"] != caught["grid"]
    for state in states[len(setup) : -1]:
        assert state["fault"] is not None  # guided until the very last step
    assert states[-1]["fault"] is None
    assert states[-1]["board"] == states[-1]["grid"]
    assert states[-1]["to_move"] == before["to_move"]


def test_wrong_colour_where_colours_are_sensed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "colour.toml"
    config.write_text("[board]\ncolour_sensing = true\n")
    states = simulate(
        tmp_path, script("drop 2 yellow", "pop 2", "drop 2 red"), capsys, "--config", str(config)
    )
    assert states[0]["fault"] is not None and "Yellow's disc" in states[0]["fault"]
    assert states[0]["moves"] == []
    assert states[1]["fault"] is None
    assert states[2]["moves"] == ["2"]


def test_slider_mid_game_then_rebuild(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    states = simulate(
        tmp_path,
        script("drop 4", "drop 4", "slider open", "slider close", "drop 4", "drop 4", "drop 5"),
        capsys,
    )
    assert states[2]["grid"] == ["......."] * 6
    assert states[2]["fault"] is not None and "slider" in states[2]["fault"].lower()
    assert states[3]["lights"][3] == "chosen"
    assert states[5]["fault"] is None and states[5]["board"] == states[5]["grid"]
    assert states[6]["moves"] == ["4", "4", "5"]


def test_slider_after_the_end_starts_a_new_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    win = script("drop 1", "drop 2") * 3 + "drop 1\n"
    states = simulate(tmp_path, win + script("slider open", "slider close", "drop 5"), capsys)
    assert states[6]["result"] == "red"
    assert states[8]["result"] is None and states[8]["moves"] == []
    assert states[9]["moves"] == ["5"]


def test_mode_button_press_and_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    states = simulate(
        tmp_path,
        script("press", "press", "drop 4", "press", "hold", "hold", "slider open", "slider close"),
        capsys,
    )
    assert states[0]["rules"] == "popout" and states[1]["rules"] == "pop10"
    assert states[2]["moves"] == ["4"] and states[2]["phase"] == "fill"
    assert states[3]["rules"] == "pop10"  # mid-game a press only picks the next game
    assert states[4]["moves"] == ["4"]  # one hold asks for a second
    assert states[5]["rules"] == "five" and states[5]["moves"] == []
    assert states[5]["fault"] is not None  # the old disc must go first
    assert states[7]["fault"] is None


def test_state_dir_continues_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    simulate(tmp_path, script("drop 4", "drop 5"), capsys, "--state-dir", str(state))
    states = simulate(tmp_path, script("drop 3"), capsys, "--state-dir", str(state), name="b.txt")
    assert states[0]["moves"] == ["4", "5", "3"]
    assert states[0]["grid"] == states[0]["board"]


def test_finished_games_are_archived(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    simulate(
        tmp_path, script("drop 1", "drop 2") * 3 + "drop 1\n", capsys, "--state-dir", str(state)
    )
    assert main(["games", "--state-dir", str(state)]) == 0
    listing = capsys.readouterr().out
    assert "classic" in listing and "red" in listing


def test_a_bad_script_line_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("drop 4\n# fine\njump 3\n")
    assert main(["simulate", "--script", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "line 3" in err and "jump" in err


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("[board]\ncolums = 7\n", "[board] colums"),
        ("[board]\ncolumns = 2\n", "[board] columns"),
        ('[game]\nrules = "chess"\n', "[game] rules"),
        ("[board\n", "not valid TOML"),
        ('[board]\nbackend = "usb"\n', "[board] backend"),
    ],
)
def test_bad_configuration_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, named: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(content)
    path = tmp_path / "s.txt"
    path.write_text("drop 1\n")
    assert main(["simulate", "--script", str(path), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err and str(config) in err


def test_a_torn_journal_record_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    simulate(tmp_path, script("drop 4", "drop 5"), capsys, "--state-dir", str(state))
    journal = state / "journal"
    data = journal.read_bytes()
    journal.write_bytes(data + data.splitlines(keepends=True)[-1][:-7])  # half a record
    states = simulate(tmp_path, script("drop 3"), capsys, "--state-dir", str(state), name="b.txt")
    assert states[0]["moves"] == ["4", "5", "3"]


def test_a_damaged_journal_stops_start_up_and_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    simulate(tmp_path, script("drop 4", "drop 5"), capsys, "--state-dir", str(state))
    journal = state / "journal"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(lines[0] + b"garbage\n" + b"".join(lines[1:]))
    path = tmp_path / "c.txt"
    path.write_text("drop 3\n")
    assert main(["simulate", "--script", str(path), "--state-dir", str(state)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "journal" in err
    assert any(p.name.startswith("journal.damaged") for p in state.iterdir())


def test_resume_after_kill_9(tmp_path: Path) -> None:
    """A real process killed mid-game; the next one carries on."""
    state = tmp_path / "state"
    first = tmp_path / "first.txt"
    first.write_text(script("drop 4", "drop 5", "drop 4") + "wait 600000\n" * 1)
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    command = [sys.executable, "-m", "controller.cli", "simulate", "--json", "--state-dir"]
    process = subprocess.Popen(
        [*command, str(state), "--script", str(first)], stdout=subprocess.PIPE, env=env, text=True
    )
    assert process.stdout is not None
    for _ in range(3):  # wait until three actions are reported: journalled and shown
        json.loads(process.stdout.readline())
    process.kill()
    process.wait(timeout=30)
    second = tmp_path / "second.txt"
    second.write_text("drop 3\n")
    done = subprocess.run(
        [*command, str(state), "--script", str(second)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    state_after = json.loads(done.stdout.splitlines()[-1])
    assert state_after["moves"] == ["4", "5", "4", "3"]
    assert state_after["grid"] == state_after["board"]


@pytest.mark.parametrize(
    ("board", "now"), [("columns = 6", "6x6"), ("rows = 5", "7x5"), ("rows = 7", "7x7")]
)
def test_a_journal_for_another_board_size_is_kept_aside_and_a_new_game_begins(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    board: str,
    now: str,
) -> None:
    """A row change used to replay the old moves on the new grid and archive
    a game that never happened; any size change keeps the old game aside."""
    state = tmp_path / "state"
    full = script(*["drop 4"] * 6, "drop 3")  # column 4 full (R, Y, R, ...), no line
    simulate(tmp_path, full, capsys, "--state-dir", str(state))
    saved = (state / "journal").read_bytes()
    config = tmp_path / "other.toml"
    config.write_text(f"[board]\n{board}\n")
    states = simulate(
        tmp_path, script("drop 3"), capsys, "--state-dir", str(state), "--config", str(config)
    )
    assert f"The saved game was for a 7x6 board; the board is now {now}." in caplog.text
    assert "damaged" not in caplog.text
    assert (state / "journal.saved-7x6-1").read_bytes() == saved
    assert states[0]["moves"] == ["3"] and states[0]["fault"] is None
    assert main(["games", "--state-dir", str(state)]) == 0
    assert "No finished games" in capsys.readouterr().out


def test_a_journal_that_cannot_be_written_is_shown_and_caught_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk mid-game: the board says so, play goes on, and the whole
    state is written as soon as writing works again, so a restart loses
    nothing."""
    import errno

    from controller.daemon.config import parse_config
    from controller.simulator.script import parse_script
    from controller.simulator.simulation import Simulation
    from controller.store.journal import Journal

    def act(text: str) -> None:
        (action,) = parse_script(text, "test")
        sim.act(action)

    def full(self: Journal, record: dict[str, Any]) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    state = tmp_path / "state"
    sim = Simulation(parse_config({}, "test"), state)
    try:
        act("drop 4")
        with monkeypatch.context() as patch:
            patch.setattr(Journal, "append", full)
            act("drop 5")
            shown = sim.display()
            assert shown.fault is not None
            assert shown.fault.startswith("Cannot save the game (No space left on device)")
            assert sim.state("x")["moves"] == ["4", "5"]  # play goes on
        act("drop 3")
        assert sim.display().fault is None
    finally:
        sim.close()
    again = Simulation(parse_config({}, "test"), state)
    try:
        assert again.state("resumed")["moves"] == ["4", "5", "3"]
    finally:
        again.close()


def by_hand(
    state: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *options: str,
) -> str:
    """What ``popref simulate`` says on standard error, typed at with ``q``."""
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["simulate", "--state-dir", str(state), *options]) == 0
    return capsys.readouterr().err


def test_level_on_the_command_line_is_named_as_such_and_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--level used to pose as the configuration ("(defaults says [opponent]
    level = 10.)"), and the next run without it put the default back."""
    state = tmp_path / "state"
    by_hand(state, capsys, monkeypatch, "--opponent", "yellow")
    said = by_hand(state, capsys, monkeypatch, "--level", "10")
    assert "This game: the computer plays at level 10." in said
    assert "says [opponent]" not in said
    said = by_hand(state, capsys, monkeypatch)
    assert "level" not in said  # the level chosen stands, as one chosen on the page


def test_the_pages_address_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    said = by_hand(tmp_path / "state", capsys, monkeypatch, "--web", "127.0.0.1:0")
    assert said.count("live board is at") == 1, said


def test_the_live_games_number_is_its_records_number_after_a_takeback_and_a_new_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A family's evening: game 2 won, taken back, abandoned (archived again,
    as README says); from then on the page said "Pop 10, game 6" while the
    finished games called the same game "Game 7". A game's number is its
    record's: the game finished again takes its new record's number, and a
    new game, or a journal begun anew, follows the archive."""
    state = tmp_path / "state"
    options = ("--state-dir", str(state))
    win = script("drop 1", "drop 2") * 3 + "drop 1\n"

    def listed() -> list[int]:
        assert main(["games", "--state-dir", str(state)]) == 0
        rows = capsys.readouterr().out.splitlines()
        return [int(row.split()[0]) for row in rows if row.split() and row.split()[0].isdigit()]

    simulate(tmp_path, win + script("slider open", "slider close"), capsys, *options)
    assert listed() == [1]
    # game 2 won, taken back, won otherwise: its second record is game 3, and so is the game
    again = script("takeback", "pop 1", "drop 3", "drop 3", "drop 1")
    states = simulate(tmp_path, win + again, capsys, *options)
    assert [s["game_number"] for s in states if s["result"]] == [2, 3]
    assert listed() == [1, 2, 3]
    # after a restart too (the journal says so), and the next game is game 4
    states = simulate(tmp_path, script("wait 10"), capsys, *options)
    assert states[-1]["game_number"] == 3 and states[-1]["result"] == "red"
    states = simulate(tmp_path, script("slider open", "slider close"), capsys, *options)
    assert states[-1]["game_number"] == 4
    # game 4 won (its record game 4), taken back and abandoned (game 5): the next is game 6
    abandon = script("takeback", "pop 1", "hold", "hold", "wait 10")
    states = simulate(tmp_path, win + abandon, capsys, *options)
    assert listed() == [1, 2, 3, 4, 5] and states[-1]["game_number"] == 6
    # a journal begun anew (damaged, or for another board) goes on from the archive
    (state / "journal").unlink()
    states = simulate(tmp_path, script("wait 10"), capsys, *options)
    assert states[-1]["game_number"] == 6
