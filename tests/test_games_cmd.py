"""``popref games`` lists the archive and prints records.

The commands go through a parser built with the module's own ``add_arguments``,
as controller/cli/__init__.py builds it; switch ``popref`` to ``cli.main`` once the
command is registered there.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.cli import COMMANDS
from controller.cli import games as games_cmd
from controller.store.archive import GameArchive

RECORDS = [
    ("4 4 3 3 2 2 1\n", "classic", "red", datetime(2026, 11, 29, 17, 5), 7),
    ("pop-ten record\n", "pop10", "yellow", datetime(2026, 11, 29, 18, 40), 61),
    ("no newline at the end", "five+popout", "draw", datetime(2026, 12, 1, 9, 3), 1),
]


def popref(argv: Sequence[str]) -> int:
    """``popref ARGV`` for the one subcommand under test."""
    assert argv[0] == "games"
    parser = argparse.ArgumentParser(prog="popref games", description=COMMANDS["games"][1])
    games_cmd.add_arguments(parser)
    return games_cmd.run(parser.parse_args(argv[1:]))


@pytest.fixture(autouse=True)
def no_systemd_state_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    archive = GameArchive(tmp_path / "games")
    for text, rules, result, finished, moves in RECORDS:
        archive.save(text, rules=rules, result=result, finished=finished, moves=moves)
    return tmp_path


def test_the_list_has_one_line_per_game_oldest_first(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert popref(["games", "--state-dir", str(state)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "   1  2026-11-29 17:05  classic      red" + " " * 11 + "7 moves",
        "   2  2026-11-29 18:40  pop10        yellow" + " " * 7 + "61 moves",
        "   3  2026-12-01 09:03  five+popout  draw" + " " * 10 + "1 move",
    ]
    assert err == ""


def test_an_abandoned_game_is_listed_as_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was listed with its record's result, ``*``; the page says "unfinished"."""
    archive = GameArchive(tmp_path / "games")
    archive.save(
        "4 4\n", rules="classic", result="*", finished=datetime(2026, 12, 1, 9, 3), moves=2
    )
    assert popref(["games", "--state-dir", str(tmp_path)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line == "   1  2026-12-01 09:03  classic      unfinished    2 moves"


def test_times_stored_in_utc_are_listed_in_local_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    finished = datetime(2026, 11, 29, 16, 5, tzinfo=UTC)
    GameArchive(tmp_path / "games").save("r\n", rules="classic", result="*", finished=finished)
    monkeypatch.setenv("TZ", "CET-1")
    time.tzset()
    try:
        assert popref(["games", "--state-dir", str(tmp_path)]) == 0
    finally:
        monkeypatch.undo()
        time.tzset()
    assert capsys.readouterr().out == "   1  2026-11-29 17:05  classic      unfinished\n"


def test_a_number_prints_that_record(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert popref(["games", "--state-dir", str(state), "2"]) == 0
    assert capsys.readouterr().out == "pop-ten record\n"


def test_a_record_without_a_final_newline_still_ends_the_line(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert popref(["games", "3", "--state-dir", str(state)]) == 0
    assert capsys.readouterr().out == "no newline at the end\n"


@pytest.mark.parametrize("number", ["4", "0", "-1"])
def test_no_such_game_is_one_line_and_status_2(
    state: Path, capsys: pytest.CaptureFixture[str], number: str
) -> None:
    assert popref(["games", "--state-dir", str(state), number]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert f"no game {number}" in err and "popref games" in err


def test_no_such_game_points_to_the_listing_of_the_same_directory(
    state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said "`popref games` lists the games", which lists the default
    directory's: the hint keeps the --state-dir and --config typed."""
    assert popref(["games", "--state-dir", str(state), "5"]) == 2
    listing = f"popref games --state-dir {state}"
    assert capsys.readouterr().err == (
        f"popref games: there is no game 5 in {state / 'games'}; `{listing}` lists the games\n"
    )
    config = tmp_path / "my config.toml"
    config.write_text(f'[daemon]\nstate_dir = "{state}"\n')
    assert popref(["games", "--config", str(config), "5"]) == 2
    assert f"; `popref games --config '{config}'` lists the games\n" in capsys.readouterr().err
    assert popref(["games", "--config", str(config), "--state-dir", str(state), "5"]) == 2
    listing = f"popref games --state-dir {state} --config '{config}'"
    assert f"; `{listing}` lists the games\n" in capsys.readouterr().err


def test_the_state_directory_comes_from_systemd_when_not_given(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", f"{state}:/somewhere/else")
    assert popref(["games", "1"]) == 0
    assert capsys.readouterr().out == "4 4 3 3 2 2 1\n"


def test_the_default_state_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    no_file = tmp_path / "absent.toml"
    monkeypatch.setattr("controller.daemon.config.DEFAULT_PATH", no_file)
    monkeypatch.setattr("os.geteuid", lambda: 0)  # the service
    assert games_cmd.state_directory(None, {}) == Path("/var/lib/popref")
    assert games_cmd.state_directory(None, {"STATE_DIRECTORY": ""}) == Path("/var/lib/popref")
    assert games_cmd.state_directory(Path("/x"), {"STATE_DIRECTORY": "/y"}) == Path("/x")
    monkeypatch.setattr("os.geteuid", lambda: 1000)  # someone on a laptop
    assert games_cmd.state_directory(None, {"HOME": "/home/ann"}) == Path(
        "/home/ann/.local/state/popref"
    )
    assert games_cmd.state_directory(None, {"XDG_STATE_HOME": "/s"}) == Path("/s/popref")


def test_the_state_directory_from_the_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[daemon]\nstate_dir = "{tmp_path / "kept"}"\n')
    assert popref(["games", "--config", str(config)]) == 0
    assert str(tmp_path / "kept" / "games") in capsys.readouterr().out
    config.write_text("[daemon]\nstate_dir = 3\n")
    assert popref(["games", "--config", str(config)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_no_games_yet_is_not_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert popref(["games", "--state-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"No finished games in {tmp_path / 'games'} yet.\n"


def test_an_unreadable_games_directory_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "games").write_text("a file where the directory should be")
    assert popref(["games", "--state-dir", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("popref games: cannot read the games in ")
    assert err.count("\n") == 1


def test_a_number_that_is_not_a_number_is_refused_by_the_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        popref(["games", "--state-dir", str(tmp_path), "two"])
    assert caught.value.code == 2
    assert "invalid int value: 'two'" in capsys.readouterr().err


def test_a_file_with_an_impossible_date_in_its_name_is_skipped_with_a_warning(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = state / "games" / "0004-2026-13-45T2599-classic.txt"
    odd.write_text("4 4 3 3 2 2 1\n")
    assert popref(["games", "--state-dir", str(state)]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 3
    assert err == f"popref games: skipped {odd}: its name has an impossible date\n"
