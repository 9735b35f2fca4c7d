"""Benchmark the serial path: firmware (under CPython) -> pty -> pyserial -> backend.

Prints events per second through the whole path, and the latency from the
board's main-loop pass that counts a sensor edge to the event leaving
``SerialBackend.poll`` on the host (p50/p99, wall clock). The board counts
a disc when its beam clears; the debounce settle time after that
(``timing.BEAM_SETTLE_MS`` of board time) comes on top and is printed apart.
The reference for throughput is what a real 115200-baud USB-serial line could
carry if every event cost one heartbeat frame.

Run: .venv/bin/python bench/serial.py [drops]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's directory comes first on sys.path, and this
# file's name would hide pyserial: put the project root there instead.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware import timing, wire
from hardware.events import DiscEntered
from hardware.sim.board import Firmware, Pair
from hardware.sim.seam import Beam


def main(drops: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, Firmware(Path(tmp)) as fw:
        pair = Pair(fw)
        if not pair.run_until(lambda: pair.backend.connected, ms=2000):
            raise SystemExit("the board never connected")
        latencies: list[float] = []
        entered = 0
        started = time.perf_counter()
        for i in range(drops):
            column = i % fw.columns + 1
            fw.wires.beam(Beam.ENTRY, column, True)
            pair.run(20)
            # the board counts the disc once the beam has been clear BEAM_SETTLE_MS
            fw.wires.beam(Beam.ENTRY, column, False)
            for _ in range(40):
                before = fw.board.drops[column - 1]
                t0 = time.perf_counter()
                events = pair.tick()
                got = sum(isinstance(e, DiscEntered) for e in events)
                if got:
                    latencies.append(time.perf_counter() - t0)
                    entered += got
                if fw.board.drops[column - 1] != before:
                    break
            pair.run(2)
        elapsed = time.perf_counter() - started
        pair.close()
    if entered != drops:
        raise SystemExit(f"lost or doubled events: {entered} events for {drops} drops")
    frame = wire.HEADER + wire.TRAILER + len(wire.pack_heartbeat(
        wire.Heartbeat(0, 0, 0, False, 0, False, 0, 0, 0, 0, [0] * 7, [0] * 7)))  # fmt: skip
    line = 115200 / 10 / frame  # 8N1: ten bits a byte
    rate = entered / elapsed
    ms = sorted(x * 1000 for x in latencies)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"drops: {drops}, events: {entered}, wall time: {elapsed:.2f} s")
    print(f"events per second through the serial path: {rate:.0f}")
    print(f"reference, 115200 baud at {frame} bytes a heartbeat: {line:.0f} events/s; "
          f"ratio {rate / line:.2f}")  # fmt: skip
    print(f"edge-to-event latency (ms): p50 {statistics.median(ms):.3f}, p99 {p99:.3f}")
    print(
        "plus the board's debounce settle after the beam clears: "
        f"{timing.BEAM_SETTLE_MS} ms (board time)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drops", nargs="?", type=int, default=2000, help="discs to drop (2000)")
    main(parser.parse_args().drops)
