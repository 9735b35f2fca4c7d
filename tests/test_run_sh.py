"""tests/run.sh on a machine without systemd's tools or apt-get (macOS, other
distributions): the whole suite still runs, and the one check it cannot do
is named once, with the reason."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MISSING = ("systemd-analyze", "systemd-sysusers", "apt-get")


def path_without(tmp_path: Path, *, failing_apt: bool) -> str:
    """A PATH of links to every program on this one, less systemd's tools
    and apt-get (or with an apt-get that fails, as for a user who is not root)."""
    farm = tmp_path / "bin"
    farm.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            link = farm / name
            if name in MISSING or link.exists() or link.is_symlink():
                continue
            link.symlink_to(Path(directory) / name)
    if failing_apt:
        apt = farm / "apt-get"
        apt.write_text("#!/bin/sh\necho 'E: Could not open lock file' >&2\nexit 100\n")
        apt.chmod(0o755)
    return str(farm)


@pytest.mark.skipif(
    not (ROOT / ".venv" / ".popref-installed").exists(),
    reason="needs the .venv that tests/run.sh installs",
)
@pytest.mark.parametrize(
    ("failing_apt", "why"),
    [
        (False, "systemd-analyze is not installed and there is no apt-get"),
        (True, "systemd-analyze is not installed and apt-get could not install it"),
    ],
)
def test_the_suite_runs_without_systemd_and_says_what_it_skipped(
    tmp_path: Path, failing_apt: bool, why: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env["PATH"] = path_without(tmp_path, failing_apt=failing_apt)
    done = subprocess.run(
        ["bash", "tests/run.sh", "tests/test_where.py", "-k", "docs"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    skipped = [line for line in lines if line.startswith("== skipped:")]
    assert len(skipped) == 1 and skipped[0].startswith(f"== skipped: systemd-analyze verify: {why}")
    assert "== systemd-analyze verify" not in lines
    assert any(line.startswith("1 passed") for line in lines), done.stdout
    assert "== ruff" in lines and "== mypy" in lines and "== pytest" in lines
