"""``popref solve`` says on standard error that a long solve is alive."""

from __future__ import annotations

import argparse
import io
import itertools
import re
import sys

import pytest

from controller.cli import solve

# the pure core: a few thousand positions a poll-free second would hide
POSITION = "6242432155656447531617622"  # a draw the pure core solves in about 11,000 positions
LINE = re.compile(
    r"popref solve: line 1(, move (\d)|): the score is between (-?\d+) and (-?\d+) "
    r"after ([\d,]+) positions \((\d+) s\)"
)


def run_solve(
    argv: list[str], clock_step: float, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str]:
    parser = argparse.ArgumentParser()
    solve.add_arguments(parser)
    ticks = itertools.count()
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{POSITION}\n"))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    args = parser.parse_args(["--core", "python", *argv])
    assert solve.run(args, clock=lambda: next(ticks) * clock_step) == 0
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("every", [[], ["--all"]])
def test_a_long_solve_prints_narrowing_bounds_and_growing_counts(
    every: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet_out, quiet_err = run_solve(every, 0.0, monkeypatch)  # time stands still
    assert quiet_err == ""
    out, err = run_solve(every, 1.0, monkeypatch)  # a second between two polls
    assert out == quiet_out  # standard output is the same
    found = [LINE.fullmatch(line) for line in err.splitlines()]
    assert found and all(found), err
    per_solve: dict[str | None, list[re.Match[str]]] = {}
    for match in found:
        assert match is not None
        per_solve.setdefault(match[2], []).append(match)
    for label, matches in per_solve.items():
        assert int(matches[0][6]) >= 2  # nothing in a solve's first two seconds
        lows = [int(m[3]) for m in matches]
        highs = [int(m[4]) for m in matches]
        counts = [int(m[5].replace(",", "")) for m in matches]
        assert lows == sorted(lows) and highs == sorted(highs, reverse=True)
        assert counts == sorted(set(counts))
        final = out.split()[1] if label is None else dict(
            item.split(":") for item in out.split()[1:]
        )[label]  # fmt: skip
        assert lows[-1] <= int(final) <= highs[-1]


def test_a_quick_solve_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = run_solve([], 0.0001, monkeypatch)
    assert err == "" and out == f"{POSITION} 0\n"
