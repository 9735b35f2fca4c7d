"""The page under slow clients (issue 19): how soon a new client gets the
page while many connections each hold a request they never finish.

For each count of slow connections, the bench opens them (each sends the
start of a request and stops, as a client sending one byte every few seconds
does between its bytes), then times fresh clients one after another: connect,
``GET /``, the whole answer, on the real clock. It prints the share of fresh
clients answered (goal: all) and their latency. A last series measures how
long the server takes to close a connection that stopped mid-request
(``REQUEST_TIME``, goal: within 1 s of it).

Run from the repository root::

    .venv/bin/python bench/webload.py            # 0, 48, 200 and 1000 slow connections
    .venv/bin/python bench/webload.py --quick    # 0 and 200, fewer samples
"""

from __future__ import annotations

import argparse
import http.client
import resource
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.pop(0)  # the project root first (see bench/daemon.py)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.daemon.config import parse_config
from controller.simulator.simulation import Simulation
from controller.web.connections import REQUEST_TIME
from controller.web.server import WebServer, serve_daemon
from hardware.clock import monotonic

SLOW_START = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def serve(state_dir: Path) -> tuple[Simulation, WebServer]:
    config = parse_config({"web": {"enabled": True, "host": "127.0.0.1", "port": 0}}, "bench")
    sim = Simulation(config, state_dir)
    return sim, serve_daemon(sim.daemon, config.web, sim.clock, sim, deadlines=monotonic)


def fresh(host: str, port: int) -> float | None:
    """Seconds for one new client to get the whole page, or ``None``."""
    start = time.perf_counter()
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.request("GET", "/", headers={"Connection": "close"})
        response = connection.getresponse()
        response.read()
        return time.perf_counter() - start if response.status == 200 else None
    except OSError:
        return None
    finally:
        connection.close()


def series(web: WebServer, slow: int, samples: int) -> None:
    host, port = web.address
    holders = []
    for _ in range(slow):
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(SLOW_START)
        holders.append(sock)
    web.places.wait(sending=min(slow, web.places.cap), timeout=10)
    times = [fresh(host, port) for _ in range(samples)]
    answered = sorted(t for t in times if t is not None)
    for sock in holders:
        sock.close()
    web.places.wait(open=0, timeout=10)
    if not answered:
        print(f"{slow:5d} slow: 0/{samples} answered")
        return
    p99 = answered[min(len(answered) - 1, round(0.99 * (len(answered) - 1)))]
    print(
        f"{slow:5d} slow: {len(answered)}/{samples} answered (goal all); "
        f"p50 {statistics.median(answered) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, "
        f"max {answered[-1] * 1000:.2f} ms"
    )


def deadline(web: WebServer) -> None:
    host, port = web.address
    with socket.create_connection((host, port), timeout=3 * REQUEST_TIME) as sock:
        start = time.perf_counter()
        sock.sendall(SLOW_START)
        received = b""
        while chunk := sock.recv(4096):
            received += chunk
        took = time.perf_counter() - start
    status = received.split(b" ", 2)[1].decode() if received else "none"
    print(
        f"a request left unfinished: answered {status} and closed after {took:.2f} s "
        f"(REQUEST_TIME {REQUEST_TIME:.0f} s; goal within 1 s of it)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4096)), hard))
    counts, samples = ((0, 200), 50) if args.quick else ((0, 48, 200, 1000), 200)
    with tempfile.TemporaryDirectory() as state:
        sim, web = serve(Path(state))
        try:
            print(f"places: {web.places.cap} connections")
            for count in counts:
                series(web, count, samples)
            deadline(web)
        finally:
            web.close()
            sim.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
