"""``popref solve``, ``popref bestmove`` and ``popref book`` as a user runs them."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.cli.positions import PositionInputError, read_position
from engine import RULES_NAMES, Rules, new_game, rules_named
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


def test_solve_reads_commas_spaces_runs_and_comments(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = "4,4,5,5,3,3 # a comment\n445533\n4 4 5 5 3 3\n44 5,5 33\n"
    assert run(["solve"], lines, monkeypatch) == 0
    assert capsys.readouterr().out == "4,4,5,5,3,3 18\n445533 18\n4 4 5 5 3 3 18\n44 5,5 33 18\n"


def test_space_separated_moves_are_the_whole_position(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # as replay, games and the page print a game: once read as its first move alone
    assert run(["bestmove", "--level", "5"], "4 4 4 4 4 4\n", monkeypatch) == 0
    assert capsys.readouterr().out.strip() in "123567"  # column 4 is full
    assert run(["solve", "--rules", "popout"], "1 2 1 2 1 2\n", monkeypatch) == 0
    assert capsys.readouterr().out == "1 2 1 2 1 2 1\n"


@pytest.mark.parametrize("command", ["solve", "bestmove"])
def test_blank_and_comment_only_lines_are_skipped_and_still_counted(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # each was answered as the start position: "- 1" twice before "44 1"
    argv = [command] if command == "solve" else [command, "--level", "5"]
    assert run(argv, "\n#x\n \t # a comment\n44\n-\n", monkeypatch) == 0
    out = capsys.readouterr().out.splitlines()
    if command == "solve":
        assert out == ["44 1", "- 1"]
    else:
        assert len(out) == 2 and all(move in "1234567" for move in out)
    assert run(argv, "\n#x\n4444444\n", monkeypatch) == 2
    err = capsys.readouterr().err
    assert err == f"popref {command}: line 3 (4444444): move 7 (4): column 4 is full\n"


@pytest.mark.parametrize("command", ["solve", "bestmove"])
def test_a_long_line_gives_a_short_error(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a 1 MB position line once gave a 1 MB error line
    for line, message in (
        ("4" * 50_000 + "\n", "line 1 (4444444444444444444444444444444444444444... "
         "(50,000 characters)): move 7 (4): column 4 is full"),
        ("1" * 1_000_000 + "\n", "line 1: over 100,000 characters: give one position a line"),
        ("p" + "9" * 99_990 + "\n", f"line 1 ({'p' + '9' * 39}... (99,991 characters)): "
         f"move 1 ({'p' + '9' * 39}... (99,991 characters)): not a move"),
    ):  # fmt: skip
        assert run([command, "--movetime", "50"], line, monkeypatch) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"popref {command}: {message}") and err.count("\n") == 1
        assert len(err) < 300


@pytest.mark.parametrize("command", ["solve", "bestmove"])
def test_a_line_that_is_not_utf8_is_one_error_line(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # whatever the locale's error handler: standard input's lines are decoded one by one
    stdin = io.TextIOWrapper(io.BytesIO(b"445533\n4\xff4\n"), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main([command, "--movetime", "50"]) == 2
    assert capsys.readouterr().err == f"popref {command}: line 2: not UTF-8 text\n"


def random_moves(name: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    game = new_game(name)
    while not game.is_over() and len(game.moves) < rng.randrange(1, 60):
        game.play(rng.choice(list(game.legal_moves())))
    if game.is_over():
        game.undo()
    return [str(move) for move in game.moves]


@settings(max_examples=200)
@given(
    st.sampled_from(RULES_NAMES),
    st.integers(0, 10**6),
    st.lists(st.sampled_from([" ", ",", " , ", "\t", "  "]), min_size=60, max_size=60),
)
def test_a_game_printed_with_any_separators_reads_back(
    name: str, seed: int, separators: list[str]
) -> None:
    moves = random_moves(name, seed)
    line = moves[0] + "".join(sep + move for sep, move in zip(separators, moves[1:], strict=False))
    text, game = read_position(line + "\n", rules_named(name), 1)
    if name == "classic" and len(moves) == 2 and "," not in line:
        assert [str(m) for m in game.moves] == moves[:1]  # a test-set line: the run, its score
    else:
        assert [str(m) for m in game.moves] == moves and text == " ".join(line.split())
    if name == "classic":
        run = "".join(moves)
        assert [str(m) for m in read_position(run, rules_named(name), 1)[1].moves] == moves


@settings(max_examples=300)
@given(st.sampled_from(RULES_NAMES), st.text(max_size=300) | st.binary(max_size=300).map(
    lambda raw: raw.decode("utf-8", "surrogateescape")))  # fmt: skip
def test_any_line_is_a_position_or_one_short_error(name: str, line: str) -> None:
    try:
        read_position(line, rules_named(name), 1)
    except PositionInputError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 300


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


def test_bestmove_says_which_moves_are_not_proven(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # '2131231' (outside the book) is far from solved in a millisecond; the test-set draw at once
    monkeypatch.setenv("LANG", "fi_FI.UTF-8")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    assert run(["bestmove", "--movetime", "1"], "2131231\n71324677554451437653\n", monkeypatch) == 0
    out, err = capsys.readouterr()
    assert out.split()[1] == "3"  # the one move that holds the draw
    unproven = [line for line in err.splitlines() if "todistettu" in line]
    assert len(unproven) == 1 and unproven[0].startswith(
        f"popref bestmove: line 1: Siirtoa {out.split()[0]} ei ole todistettu"
    )


def test_the_readme_says_an_unproven_move_is_a_note_with_exit_status_0(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bestmove row did not mention the line on standard error, which a
    user took for an error."""
    from controller.cli.bestmove import _unproven
    from engine import parse_move

    monkeypatch.setenv("LANG", "C")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    (row,) = [line for line in readme.splitlines() if line.startswith("| `popref bestmove ")]
    said = _unproven(parse_move("4")).split(":")[0].replace("4", "M")  # "Move M is not proven"
    assert f"`popref bestmove: line N: {said}: ...`" in row
    assert "on standard error as a note, not an error" in row and "exit status 0" in row


@pytest.mark.parametrize("cores, helped", [(1, False), (2, True), (None, False)])
def test_bestmove_has_a_helper_from_two_cores(
    cores: int | None,
    helped: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # no board shares bestmove's machine, so it needs no core kept for one
    from controller.cli import bestmove
    from controller.computer import helper
    from engine.solver.opponent import Opponent, OutcomeMove

    given: list[OutcomeMove | None] = []

    class Recording(Opponent):
        def __init__(self, rules: Rules, **kw: Any) -> None:
            given.append(kw.get("outcome_move"))
            super().__init__(rules, **kw)

    monkeypatch.setattr("os.cpu_count", lambda: cores)
    monkeypatch.setattr(bestmove, "Opponent", Recording)
    assert run(["bestmove"], "4\n", monkeypatch) == 0
    assert given == [helper.outcome_move_helped if helped else None]
    assert capsys.readouterr().out.split() == ["4"]


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
        process.stdin.write((",".join(moves) or "-") + "\n")  # "-": the start position
        process.stdin.flush()
        moves.append(process.stdout.readline().strip())
        moves.append("1")
    process.stdin.close()
    assert process.wait(30) == 0
    assert all(moves)


def test_a_reader_that_stops_early_ends_it_quietly() -> None:
    # popref bestmove < positions | head -1: the reader closes its end after one line
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "bestmove", "--movetime", "20"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("44\n")
    process.stdin.flush()
    assert process.stdout.readline().strip()
    process.stdout.close()
    process.stdin.write("44\n" * 50)
    process.stdin.close()
    assert process.stderr is not None
    errors = process.stderr.read()
    assert process.wait(60) == 141 and errors == ""  # as a shell reports SIGPIPE


def test_moves_run_together_outside_classic_are_told_to_stand_apart(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["bestmove", "--rules", "popout"], "4453\n", monkeypatch) == 2
    error = capsys.readouterr().err
    assert "boards have at most 99 columns" in error and "(4 4 5 3)" in error
    assert "numbered from 1" not in error


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


@pytest.mark.parametrize("option", ["--exact", "--nodes", "--until", "--every"])
def test_book_command_refuses_a_negative_number_in_one_line(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "b.bin"
    assert main(["book", "--size", "5x4", "--output", str(out), option, "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--every take a number of 0 or more" in err
    assert not out.exists()
