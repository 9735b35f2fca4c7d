"""Another process's CPU time, read from its own counters under /proc."""

from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
PROC = Path("/proc")


def process_cpu(pid: int, proc: Path = PROC) -> float:
    """Seconds of CPU the process ``pid`` has used, all its live threads together.

    ``schedstat`` counts nanoseconds (``stat`` only clock ticks, 10 ms here,
    too coarse for a 250 ms budget); it is per thread, hence the sum over
    ``task/``. Where the kernel keeps no schedstat, the ticks of ``stat``.
    ProcessLookupError once the process is gone.
    """
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
        if not (proc / str(pid) / "schedstat").exists():
            fields = (proc / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICKS
    except FileNotFoundError:
        raise ProcessLookupError(pid) from None
    total = 0
    for task in tasks:
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended while we counted (Four the Win!'s idle one)
    return total / 1e9
