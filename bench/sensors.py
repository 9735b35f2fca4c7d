"""How fast the GPIO input path is, on gpiozero's mock pins.

Prints:
- passages per second the whole input path sustains: mock pin edges →
  gpiozero callbacks → raw deque → debouncers in poll() → events;
- latency from a pin edge to its raw entry on the queue (p50/p99), which is
  all that runs on gpiozero's thread;
- latency from poll() being due to the event being returned (p50/p99), the
  daemon-thread cost once the settle window has passed.

The reference is the physics: a disc interrupts a beam for 20-60 ms and
players take seconds between moves, so a few hundred passages a second is
already far beyond any real grid.

Run: .venv/bin/python bench/sensors.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# Scripts in bench/ are named after what they measure (bench/engine.py); keep
# this directory off the import path so they do not shadow popref's packages.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from hardware.clock import FakeClock  # noqa: E402
from hardware.gpio_backend import GpioBackend  # noqa: E402
from hardware.pinmap import PinMap  # noqa: E402

PASSAGES = 20_000


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> None:
    from gpiozero.pins.mock import MockFactory

    pins = PinMap.default()
    factory: Any = MockFactory()
    clock = FakeClock()
    queued: list[float] = []

    def wake() -> None:
        queued.append(time.perf_counter())

    backend = GpioBackend(pins, factory, clock)
    backend.open(wake)
    mock = [factory.pin(p) for p in pins.entry]
    edge_latency: list[float] = []
    poll_latency: list[float] = []
    events = 0
    start = time.perf_counter()
    for i in range(PASSAGES):
        pin = mock[i % len(mock)]
        t0 = time.perf_counter()
        pin.drive_low()
        edge_latency.append(queued[-1] - t0)
        clock.advance(0.03)
        pin.drive_high()
        clock.advance(pins.beam.settle + 0.001)
        t1 = time.perf_counter()
        got = backend.poll(clock())
        poll_latency.append(time.perf_counter() - t1)
        events += len(got)
    elapsed = time.perf_counter() - start
    backend.close()
    assert events == PASSAGES, f"lost events: {events} of {PASSAGES}"
    print(
        f"input path: {PASSAGES / elapsed:,.0f} passages/s "
        f"({2 * PASSAGES / elapsed:,.0f} pin edges/s) over {PASSAGES} passages"
    )
    print(
        f"  ratio to the fastest physical grid (7 columns x 1 disc per 50 ms = 140/s): "
        f"{PASSAGES / elapsed / 140:,.0f}x"
    )
    print(
        f"edge -> raw queue: p50 {percentile(edge_latency, 50) * 1e6:.1f} us, "
        f"p99 {percentile(edge_latency, 99) * 1e6:.1f} us"
    )
    print(
        f"poll -> event:     p50 {percentile(poll_latency, 50) * 1e6:.1f} us, "
        f"p99 {percentile(poll_latency, 99) * 1e6:.1f} us "
        f"(mean {statistics.fmean(poll_latency) * 1e6:.1f} us), "
        f"after the {pins.beam.settle * 1000:.0f} ms settle window"
    )


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    main()
