"""tests/run.sh on a machine without systemd's tools or apt-get (macOS, other
distributions): the whole suite still runs, and the one check it cannot do
is named once, with the reason. What it prints: pip's progress while it
installs, the import rules' verdict without a banner, why a test was
skipped, the soak's seed only when the soak ran."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
    skipping = tmp_path / "test_skipping.py"
    skipping.write_text(
        "import pytest\n\ndef test_frobnicate():\n    pytest.skip('no frobnicator here')\n"
    )
    done = subprocess.run(
        [
            "bash",
            "tests/run.sh",
            "tests/test_where.py",
            str(skipping),
            "-k",
            "docs or frobnicate",
        ],
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
    assert any(line.startswith("1 passed, 1 skipped") for line in lines), done.stdout
    assert "== ruff" in lines and "== mypy" in lines and "== pytest" in lines
    # the import rules' verdict alone, no banner
    verdict = lines[lines.index("== import-linter") + 1]
    assert verdict.startswith("Contracts: ") and verdict.endswith(" kept, 0 broken.")
    assert "╔" not in done.stdout
    assert any(line.startswith("SKIPPED") and "no frobnicator here" in line for line in lines)
    assert "soak seed" not in done.stdout  # the soak did not run


def fake_python(venv: Path, pip_lines: list[str], release: Path) -> None:
    """A stand-in for ``.venv/bin/python``: real Python, but ``-m pip`` prints
    ``pip_lines`` (nothing with ``--quiet``, as pip does) and waits for
    ``release`` to exist between the first line and the rest."""
    venv.mkdir(parents=True)
    lines = "\n".join(pip_lines)
    script = venv / "python"
    script.write_text(
        f"""#!/usr/bin/env bash
if [ "$1 $2" = "-m pip" ]; then
    case " $* " in *" --quiet "*|*" -q "*) exit 0;; esac
    first=1
    while IFS= read -r line; do
        echo "$line"
        if [ $first = 1 ]; then first=0; while [ ! -e {release} ]; do sleep 0.05; done; fi
    done <<'LINES'
{lines}
LINES
    exit 0
fi
exec {sys.executable} "$@"
"""
    )
    script.chmod(0o755)


def test_the_install_says_what_pip_is_doing_while_it_works(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "install.sh", tree / "tests" / "install.sh")
    (tree / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    release = tmp_path / "release"
    pip_lines = [
        "Collecting gpiozero>=2.0 (from popref==0.1)",
        "Requirement already satisfied: pip in ./.venv/lib/python3.11/site-packages",
        "  Building editable for popref (pyproject.toml): started",
        "Successfully installed gpiozero-2.0.1 popref-0.1",
    ]
    fake_python(tree / ".venv" / "bin", pip_lines, release)
    install = subprocess.Popen(
        ["bash", "tests/install.sh"],
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert install.stdout is not None
    try:
        said = [install.stdout.readline(), install.stdout.readline()]
        # pip's first line is out while pip is still working
        assert said[0].startswith("== installing popref")
        assert said[1] == "   Collecting gpiozero>=2.0 (from popref==0.1)\n"
        release.touch()
        rest = install.stdout.read()
        assert install.wait(timeout=60) == 0, rest
    finally:
        release.touch()
        install.kill()
        install.wait()
    assert "Building editable for popref" in rest and "Successfully installed" in rest
    assert "Requirement already satisfied" not in rest
    assert (tree / ".venv" / ".popref-installed").read_text().strip()
