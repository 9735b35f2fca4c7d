"""``popref solve``, ``popref bestmove`` and ``popref book`` as a user runs them."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from engine.solver.book import Book

DATA = Path(__file__).parent / "data" / "connect4-testsets"


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return main(argv)


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R2", "Test_L1_R1"])
def test_solve_reproduces_the_test_sets(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (DATA / name).read_text()
    assert run(["solve"], text, monkeypatch) == 0
    assert capsys.readouterr().out == text


def test_solve_with_the_pure_core_gives_the_same_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "".join((DATA / "Test_L3_R1").read_text().splitlines(keepends=True)[:8])
    assert run(["solve", "--core", "python"], text, monkeypatch) == 0
    assert capsys.readouterr().out == text


def test_solve_reads_comma_tokens_and_ignores_the_rest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["solve"], "4,4,5,5,3,3 a comment\n445533\n", monkeypatch) == 0
    assert capsys.readouterr().out == "4,4,5,5,3,3 18\n445533 18\n"


def test_solve_all_prints_every_move(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["solve", "--all"], "445533\n", monkeypatch) == 0
    line = capsys.readouterr().out.split()
    assert line[0] == "445533"
    scores = dict(item.split(":") for item in line[1:])
    assert scores["2"] == scores["6"] == "18" and len(scores) == 7


def test_solve_other_games_in_plies(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["solve", "--rules", "popout"], "1,2,1,2,1,2\n", monkeypatch) == 0
    assert capsys.readouterr().out == "1,2,1,2,1,2 1\n"  # Red wins with the next move


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("445533\n4444444\n", "line 2 (4444444): move 7 (4): column 4 is full"),
        ("44x\n", "line 1 (44x): move 1 (44x): not a move"),
        ("1212121\n", "line 1 (1212121): the game is over"),
    ],
)
def test_bad_positions_are_one_line_and_exit_2(
    stdin: str,
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for command in ("solve", "bestmove"):
        assert run([command], stdin, monkeypatch) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"popref {command}: {message}") and err.count("\n") == 1


def test_an_unsolved_position_within_movetime_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["solve", "--rules", "popout", "--movetime", "50"], "-\n", monkeypatch) == 2
    assert "not solved within 50 ms" in capsys.readouterr().err


def test_bestmove_levels_and_seeds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = "4\n4,3\n4,3,4\n-\n"
    outputs = []
    for _ in range(2):
        assert run(["bestmove", "--level", "3", "--seed", "5"], lines, monkeypatch) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and len(outputs[0].split()) == 4


def test_bestmove_answers_each_line_before_the_next_is_written() -> None:
    # another program plays a whole game through one running process
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "bestmove", "--rules", "popout",
         "--movetime", "100"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    moves: list[str] = []
    for _ in range(3):
        process.stdin.write(",".join(moves) + "\n")
        process.stdin.flush()
        moves.append(process.stdout.readline().strip())
        moves.append("1")
    process.stdin.close()
    assert process.wait(30) == 0
    assert all(moves)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bestmove", "--level", "11"], "--level 11: levels are 1 to 10"),
        (["solve", "--rules", "chess"], "unknown rules 'chess'"),
        (["bestmove", "--movetime", "0"], "--movetime 0: give at least 1 ms"),
    ],
)
def test_bad_options(
    argv: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(argv, "", monkeypatch) == 2
    assert message in capsys.readouterr().err


def test_book_command_builds_resumes_and_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "book-5x4.bin"
    args = ["book", "--size", "5x4", "--output", str(out), "--slots", "100003", "--exact", "3"]
    assert main([*args, "--depth", "3", "--nodes", "300", "--until", "5"]) == 0
    shallow = Book.from_bytes(out.read_bytes())
    assert main([*args, "--depth", "3", "--nodes", "300"]) == 0
    deep = Book.from_bytes(out.read_bytes())
    assert shallow.depth == 5 and deep.depth > 5 and len(deep) > len(shallow)
    progress = (tmp_path / "book-5x4.bin.progress").read_text().splitlines()
    assert len(progress) > len(deep)  # the positions solved within the budget are left out
    out.unlink()
    (tmp_path / "book-5x4.bin.progress").unlink()
    assert main([*args, "--depth", "3", "--nodes", "300"]) == 0
    assert Book.from_bytes(out.read_bytes()).to_bytes() == deep.to_bytes()
    (tmp_path / "book-5x4.bin.progress").unlink()  # and from the book file alone
    assert main([*args, "--depth", "3", "--nodes", "300"]) == 0
    assert Book.from_bytes(out.read_bytes()).to_bytes() == deep.to_bytes()
    capsys.readouterr()
    assert main([*args, "--depth", "3", "--nodes", "300", "--count"]) == 0
    assert capsys.readouterr().out.startswith("ply 0: 1 positions, 1 solved, 1 in the book")


def test_book_command_refuses_a_broken_progress_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "b.bin"
    Path(f"{out}.progress").write_text("garbage here\n1 2 3 4\n")
    assert main(["book", "--size", "5x4", "--output", str(out)]) == 2
    assert "line 1 is not 'key score column ply exact nodes'" in capsys.readouterr().err
