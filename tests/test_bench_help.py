"""Every benchmark script answers ``--help`` with its usage, as README's
table and its own docstring invite, without running the benchmark.
(``fullstrength.py`` and ``outsideplayer.py`` are not benchmarks but the
players ``matches.py`` and ``outside.py`` start, a checkout's path first.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
PLAYERS = {"__init__.py", "fullstrength.py", "outsideplayer.py"}
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if p.name not in PLAYERS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_help_prints_the_usage_and_runs_nothing(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / name), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: "), done.stdout[:200]
