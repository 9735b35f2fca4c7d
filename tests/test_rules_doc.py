"""docs/rules.md's worked examples are ``popref replay`` sessions: each one is
run here and its output must match the page to the letter."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from controller.cli import main

RULES = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
BLOCK = re.compile(r"^( *)```console\n(.*?)^\1```$", re.M | re.S)


def sessions(text: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` for every ``$ `` line of every console block."""
    found = []
    for indent, body in BLOCK.findall(text):
        lines = [line.removeprefix(indent) for line in body.splitlines()]
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(lines)
            found.append((lines[start][2:], "\n".join(lines[start + 1 : end]).rstrip()))
    return found


SESSIONS = sessions(RULES.read_text(encoding="utf-8"))


def run(command: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    program, *argv = shlex.split(command)
    assert program == "popref", command
    status = main(argv)
    out, err = capsys.readouterr()
    return status, (out + err).rstrip()


def test_every_game_on_the_sheet_has_examples() -> None:
    commands = [command for command, _ in SESSIONS]
    for name in ("classic", "popout", "pop10", "five ", "five+popout"):
        assert any(f"--rules {name}" in c for c in commands), name
    assert len(SESSIONS) >= 15


@pytest.mark.parametrize(("command", "expected"), SESSIONS, ids=[c for c, _ in SESSIONS])
def test_worked_example(command: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, output = run(command, capsys)
    assert output == expected
    assert status == (2 if output.startswith("popref replay: ") else 0)
