"""Every command's bad arguments: one line on standard error naming what was
wrong, exit status 2, never argparse's usage block."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES = "choose one of classic, popout, pop10, five, five+popout, five+pop10"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["simulate", "--rules", "pop11"],
            f"popref simulate: --rules: unknown rules 'pop11': {RULES}",
        ),
        (["run", "--rules", "pop11"], f"popref run: --rules: unknown rules 'pop11': {RULES}"),
        (["replay", "--rules", "klassic", "4"], "popref replay: --rules: unknown rules 'klassic'"),
        (["replay", "--rules", "classic", "--size", "²x6", "4"], "popref replay: bad size '²x6'"),
        (["replay", "--rules", "classic", "--size", "9", "4"], "popref replay: bad size '9'"),
        (
            ["replay", "--rules", "classic", "--size", "1" + "0" * 5000 + "x6", "4"],
            "popref replay: bad size '100000000000'...: no board is that large",
        ),
        (
            ["replay", "--rules", "popout", "p1" + "0" * 5000],
            "popref replay: move 1 (p1000000000000000000... (5002 characters)): not a move",
        ),
        (["simulate", "--state-dir"], "popref simulate: --state-dir: expected one argument"),
        (["games", "abc"], "popref games: NUMBER: invalid int value: 'abc'"),
        (["check-wiring", "--bogus"], "popref: unrecognized arguments: --bogus"),
        (["bogus"], "popref: COMMAND: invalid choice: 'bogus'"),
        ([], "popref: the following arguments are required: COMMAND"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(said), err
    assert err.count("\n") == 1 and "usage:" not in err


@pytest.mark.parametrize(
    "argv",
    [["run"], ["simulate"], ["games"], ["check-wiring"], ["remote-page", "/nonexistent/page"]],
)
def test_an_empty_config_option_asks_for_a_file(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """A walk's --config= read "popref run: .: cannot be read: Is a directory"."""
    assert main([*argv, "--config="]) == 2
    assert capsys.readouterr().err == (
        f"popref {argv[0]}: --config: needs the path of a TOML file, e.g. --config "
        f"/etc/popref/config.toml (see popref {argv[0]} --help)\n"
    )


def test_the_rules_name_is_read_as_replay_reads_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--rules", " Pop10 ", "4"]) == 0
    assert "Pop 10" in capsys.readouterr().out


def test_help_still_shows_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: popref simulate")


def test_replays_usage_says_when_rules_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    """The usage showed --rules as optional, then the command required it."""
    assert main(["replay", "--help"]) == 0
    usage = capsys.readouterr().out.split("\n\n")[0]
    assert usage.startswith("usage: popref replay --rules NAME [--size WxH] [--json] MOVES\n")
    assert usage.endswith("popref replay [--json] - < RECORD")
    assert main(["replay", "4"]) == 2
    assert "--rules is required" in capsys.readouterr().err


def test_simulates_help_and_readme_agree_on_when_the_opponent_applies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--help said "from the next game", README "from this game if it has
    not begun, else from the next"."""
    from controller.cli.simulate import FROM_WHEN

    assert main(["simulate", "--help"]) == 0
    helped = " ".join(capsys.readouterr().out.split())
    assert f"(none: two players), {FROM_WHEN}" in helped
    readme = " ".join((ROOT / "README.md").read_text().split())
    row = "`popref simulate --opponent red\\|yellow\\|none [--level N]` | "
    assert f"{row}the computer plays that colour ({FROM_WHEN})" in readme


def test_the_readmes_examples_read_files_of_the_repository() -> None:
    """The solve example read ../shared/..., which a clone does not have."""
    read = [
        line.split("< ", 1)[1].split()[0]
        for line in (ROOT / "README.md").read_text().splitlines()
        if line.startswith("$ ") and "< " in line
    ]
    assert read
    for name in read:
        path = (ROOT / name).resolve()
        assert path.is_relative_to(ROOT) and path.is_file(), name


def test_a_real_process_says_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "simulate", "--rules", "pop11"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "unknown rules 'pop11'" in done.stderr


def strict_utf8_stdin(data: bytes) -> io.TextIOWrapper:
    """Standard input as on a UTF-8 desktop locale: strict decoding."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict")


def test_replay_reads_any_bytes_on_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", strict_utf8_stdin(b"4 4\n3 \xff 4\n"))
    assert main(["replay", "--rules", "classic", "-"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "popref replay: standard input: line 2 is not UTF-8 text (byte 0xff); "
        "save the file as UTF-8\n"
    )
    monkeypatch.setattr(sys, "stdin", strict_utf8_stdin(b"\xef\xbb\xbf4 4"))
    assert main(["replay", "--rules", "classic", "--json", "-"]) == 0
    assert '"moves": ["4", "4"]' in capsys.readouterr().out


def test_the_interactive_prompts_read_any_bytes(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "simulate", "--state-dir", str(tmp_path)],
        cwd=ROOT,
        input=b"4\n\xff\xfe\nq\n",
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "'\ufffd\ufffd' is not an action; type ? for help" in done.stdout.decode()
    config = tmp_path / "mock.toml"
    config.write_text('[gpio]\npin_factory = "mock"\n')  # asks on the terminal
    wiring = subprocess.run(
        [sys.executable, "-m", "controller.cli", "check-wiring", "--config", str(config)],
        cwd=ROOT,
        input=b"\xff\n",
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert wiring.stderr == b"popref check-wiring: input ended before the check was done\n"
