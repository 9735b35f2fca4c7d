"""tests/run.sh on a machine without systemd's tools or apt-get (macOS, other
distributions): the whole suite still runs, and the one check it cannot do
is named once, with the reason. What it prints: pip's progress while it
installs, the import rules' verdict without a banner, why a test was
skipped, the soak's seed only when the soak ran."""

from __future__ import annotations

import hashlib
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


# The tools run.sh runs, stood in for: each run.sh of the suite runs the real
# ones (CI runs it), so this checks only what run.sh itself does around them.
LINT_IMPORTS = """#!/bin/sh
case " $* " in *" --no-logo "*) ;; *) echo "╔══╗ import-linter's logo"; echo;; esac
printf '\\n---------\\nContracts\\n---------\\n\\nAnalyzed 9 files, 9 dependencies.\\n'
printf '\\nengine imports nothing of ours KEPT\\n\\nContracts: 1 kept, 0 broken.\\n'
"""


def stand_in_tree(tmp_path: Path) -> Path:
    """A checkout holding run.sh and install.sh, whose .venv (installed, as
    its stamp says) has real Python and pytest, and stand-ins for ruff, mypy
    and lint-imports that pass as the real ones do."""
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    for script in ("run.sh", "install.sh"):
        shutil.copy(ROOT / "tests" / script, tree / "tests" / script)
    pyproject = b"[project]\nname = 'x'\n"
    (tree / "pyproject.toml").write_bytes(pyproject)
    venv = tree / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / ".popref-installed").write_text(hashlib.sha256(pyproject).hexdigest() + "\n")
    tools = {
        "python": f'#!/bin/sh\nexec {sys.executable} "$@"\n',
        "ruff": "#!/bin/sh\nexit 0\n",
        "mypy": "#!/bin/sh\necho 'Success: no issues found in 1 source file'\n",
        "lint-imports": LINT_IMPORTS,
    }
    for name, script in tools.items():
        (venv / "bin" / name).write_text(script)
        (venv / "bin" / name).chmod(0o755)
    (tree / "tests" / "test_passing.py").write_text("def test_passes():\n    pass\n")
    (tree / "tests" / "test_skipping.py").write_text(
        "import pytest\n\ndef test_frobnicate():\n    pytest.skip('no frobnicator here')\n"
    )
    return tree


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
        ["bash", "tests/run.sh", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"],
        cwd=stand_in_tree(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
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
    assert verdict == "Contracts: 1 kept, 0 broken."
    assert "╔" not in done.stdout and "Analyzed" not in done.stdout
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
