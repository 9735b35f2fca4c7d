"""Another process's CPU time, read from its own counters under /proc."""

from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """Seconds of CPU the process ``pid`` has used, all its threads together.

    ``schedstat`` counts nanoseconds (``stat`` only clock ticks, 10 ms here,
    too coarse for a 250 ms budget); it is per thread, hence the sum over
    ``task/``. Where the kernel has no schedstat, the ticks of ``stat``.
    """
    tasks = Path(f"/proc/{pid}/task")
    total = 0
    try:
        for task in tasks.iterdir():
            total += int((task / "schedstat").read_text().split()[0])
    except FileNotFoundError:
        if not tasks.exists():
            raise ProcessLookupError(pid) from None
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    return total / 1e9
