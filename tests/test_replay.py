"""``popref replay`` through the command line entry point and a real process."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

ROOT = Path(__file__).resolve().parent.parent
WORKED = "6 4 1 1 3 5 5 3 7 6 2 6 p6 p5 p7 5 4 4 4 p4"


def replay_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["replay", "--json", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    result: dict[str, object] = json.loads(out)
    return result


def test_json_state_of_a_finished_pop_out_game(capsys: pytest.CaptureFixture[str]) -> None:
    state = replay_json(capsys, "--rules", "popout", WORKED)
    assert state["board"] == [".......", ".......", ".......", "...R...", "Y.YYYY.", "RRRRRY."]
    assert state["to_move"] is None and state["result"] == "yellow" and state["phase"] == "over"
    assert state["scores"] == {"red": 0, "yellow": 0}
    assert state["winning_cells"] == [[3, 2], [4, 2], [5, 2], [6, 2]]


def test_json_state_of_pop10_in_the_fill_phase(capsys: pytest.CaptureFixture[str]) -> None:
    state = replay_json(capsys, "--rules", "pop10", "4 3 5 2 6 1 7 4")
    assert state["board"] == ["......."] * 4 + ["...Y...", "YYYRRRR"]
    assert state["to_move"] == "red" and state["result"] is None and state["phase"] == "fill"
    assert state["legal_moves"] == ["1", "2", "3", "5", "6", "7"]


def test_size_counts_strips(capsys: pytest.CaptureFixture[str]) -> None:
    state = replay_json(capsys, "--rules", "five", "--size", "11x5", "")
    assert state["board"] == [
        "R.........Y",
        "Y.........R",
        "R.........Y",
        "Y.........R",
        "R.........Y",
    ]


def test_classic_digit_runs(capsys: pytest.CaptureFixture[str]) -> None:
    state = replay_json(capsys, "--rules", "classic", "4455")
    assert state["board"][-2:] == ["...YY..", "...RR.."]  # type: ignore[index]


def test_text_output_shows_board_and_state(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--rules", "pop10", "--size", "4x4", "1 2 3 4"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:5] == ["....", "....", "....", "RYRY", "1234"]
    assert "To move: Red (fill phase)" in out and "Scores: Red 0, Yellow 0" in out
    assert main(["replay", "--rules", "classic", "1 1 2 2 3 3 4"]) == 0
    assert "Result: Red wins" in capsys.readouterr().out


def test_moves_or_a_record_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("4 4\n3\n"))
    assert replay_json(capsys, "--rules", "classic", "-")["to_move"] == "yellow"
    record = "Rules: popout\nSize: 7x6\nResult: yellow\n\n" + WORKED + "\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(record))
    assert replay_json(capsys, "-")["result"] == "yellow"


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["--rules", "classic", "4 4 p3"], "", "move 3 (p3): pops are not allowed in Classic"),
        (
            ["--rules", "popout", "4 3 p3"],
            "",
            "move 3 (p3): the bottom disc of column 3 is Yellow's; Red can pop only their own",
        ),
        (["--rules", "classic", "4 x 4"], "", "move 2 (x): not a move: write N"),
        (["--rules", "classic", "1 1 2 2 3 3 4 5"], "", "move 8 (5): the game is over: Red won"),
        (["--rules", "classic", "1 1 1 1 1 1 1"], "", "move 7 (1): column 1 is full"),
        (["--rules", "chess", "4"], "", "--rules: unknown rules 'chess': choose one of classic"),
        (["--rules", "classic", "--size", "7by6", "4"], "", "bad size '7by6'"),
        (
            ["--rules", "classic", "--size", "3x6", "4"],
            "",
            "a board must be 4 to 20 columns wide, not 3",
        ),
        (["4"], "", "--rules is required: one of classic, popout"),
        (["-"], "Rules: classic\n\n4 p4\n", "record: line 3: move 2 (p4): pops are not"),
        # it said "--rules is required ... (only a game record names its own)"
        (
            ["-"],
            "garbage\n",
            "standard input is not a game record: a record starts with a 'Rules: NAME' "
            "line, as `popref games N` prints one (moves alone need --rules NAME)\n",
        ),
        (
            ["--rules", "pop10", "-"],
            "Rules: classic\n",
            "the record is a game of classic, not pop10",
        ),
        (["--size", "9x6", "-"], "Rules: classic\n", "the record's board is 7x6, not 9x6"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    stdin: str,
    message: str,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert main(["replay", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"popref replay: {message}"), err
    assert err.count("\n") == 1


def test_a_real_process_prints_json_and_reports_errors_without_traceback() -> None:
    command = [sys.executable, "-m", "controller.cli", "replay", "--json", "--rules", "classic"]
    done = subprocess.run([*command, "4 4 3"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["to_move"] == "yellow"
    bad = subprocess.run([*command, "4 p4"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "popref replay: move 2 (p4): pops are not allowed in Classic\n"
