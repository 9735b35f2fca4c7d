"""The daemon's figures, each printed with the goal it is held to (issue 6).

- Latency from a sensor pin edge to the display on the output pins, GPIO
  backend: a real ``Daemon`` loop on its own thread with the real clock, on
  gpiozero mock pins. The bench blocks an entry beam for 30 ms and clears it;
  the debouncer cannot know the disc has passed until the beam has stayed
  clear for its settle window, so latency is the time of the first column or
  turn light pin change *minus* (the clearing edge + ``BeamTiming.settle``).
  Both times come from the same monotonic clock (the mock pins date their
  changes with it). Every accepted drop is journalled and fsync'd before it
  is shown, so the figure includes that sync on this machine's disk.
- The same through the serial backend: the sensor board's firmware (under
  CPython, on stand-in pins) runs in a process of its own on the real clock,
  its main loop waiting on ``select`` for the host's bytes or its next timer
  (at most 5 ms, as on the Pico), on one end of a real pty; the daemon's
  ``SerialBackend`` has the other end with pyserial. The board counts a drop
  when the entry beam clears and stays clear for its 6 ms settle window, so
  latency is the time of the first strip write showing the new display
  *minus* (the clearing edge + 6 ms). It includes both frames' trips through
  the pty, the journal's fsync, and the strip write.
- Side by side, under the same load: the GPIO latency with no opponent and
  no page; with 20 page clients following ``/api/events`` (issue 13); and
  while the computer thinks at full strength, the search restarted whenever
  it answers, in the daemon's search process
  (:class:`controller.computer.process.ProcessThinker`): Pop Out (the pure-Python
  search) and Classic past the book (the compiled exact solver), and, for
  comparison, Pop Out on a worker thread of the daemon's process
  (:class:`controller.computer.thinker.ThreadedThinker`), sharing the GIL (issue 12).
  The series are measured in alternating blocks of drops, their order
  rotating each round, so a machine whose load changes (other builds, a
  soak) weighs on each alike; each is printed with its ratio to the first.
- The watchdog while the computer thinks: ``popref run`` with the computer
  as Red at full strength in Pop Out and a ten-minute budget, and
  ``WATCHDOG_USEC`` = 2 s; the bench counts the ``WATCHDOG=1`` datagrams
  over the idle window and the longest gap between two (systemd would
  restart the service after 2 s without one).
- Idle CPU of a real ``popref run`` (simulated board, temporary state
  directory) over 30 s: utime + stime from ``/proc/PID/stat``.
- Its peak memory: ``VmHWM`` from ``/proc/PID/status``.
- Start to systemd readiness: from ``Popen`` to the ``READY=1`` datagram on
  our own ``NOTIFY_SOCKET``.
- The web view's cost (issue 13): ``popref run`` with ``[web]`` on
  (127.0.0.1) and 20 clients connected, beside the run without it:
  readiness (the median of starts alternating between the two), idle CPU,
  and the peak memory the web view adds.

Run from the repository root::

    .venv/bin/python bench/daemon.py            # 30 s idle window
    .venv/bin/python bench/daemon.py --quick    # 5 s idle window, fewer samples
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import multiprocessing
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# Run as a script, this file's directory comes first on sys.path, where
# bench/serial.py would hide pyserial: put the project root there instead.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.soaklib.boardproc import serve_board
from controller.computer.process import ProcessThinker
from controller.computer.thinker import Job, Thinker, ThreadedThinker
from controller.daemon.config import WebConfig
from controller.daemon.loop import Daemon
from controller.referee.core import Table
from controller.web.server import WebServer, serve_daemon
from engine import new_game
from hardware.clock import monotonic
from hardware.display import Display
from hardware.gpio_backend import GpioBackend
from hardware.pinmap import PinMap
from hardware.serial_backend import SerialBackend
from hardware.serial_config import SerialConfig
from hardware.sim.gpio import MockWires
from hardware.sim.mockpins import clocked_mock_factory
from hardware.sim.seam import Beam

POPREF = Path(sys.executable).with_name("popref")
GOAL_LATENCY_P99 = 0.005
GOAL_IDLE_CPU = 0.005
GOAL_RSS_KB = 60 * 1024
GOAL_READY = 1.5
GOAL_WEB_RSS_KB = 10 * 1024  # the web view adds under 10 MB
PAGE_CLIENTS = 20
BEAM_BLOCKED = 0.030  # how long the bench's disc stays in the beam
SHOWN_WAIT = 10.0  # seconds before a drop that never reached the lights is an error


class GpioLatency:
    """A daemon on mock pins, served by its own thread, and a bench hand on
    its sensor pins.

    >>> import tempfile, pathlib
    >>> with GpioLatency(pathlib.Path(tempfile.mkdtemp())) as bench:
    ...     len(bench.measure(3, random.Random(1))) == 3
    True
    """

    def __init__(self, state_dir: Path, page_clients: int = 0) -> None:
        self.page_clients = page_clients
        self.web: WebServer | None = None
        self.pages: PageClients | None = None
        self.pins = PinMap.simulated(7)
        self.factory = clocked_mock_factory(monotonic, self.pins.board_revision)
        backend = GpioBackend(self.pins, self.factory, monotonic, rows=6)
        self._shown = threading.Event()
        # People take seconds between discs; the bench drops one every ~70 ms,
        # so it turns off the two-discs-at-once window ([game] simultaneous_ms
        # = 0). The path from pin to lights is the same.
        self.daemon = Daemon(
            table=Table(simultaneous=0.0),
            rules="classic",
            backend=backend,
            clock=monotonic,
            state_dir=state_dir,
            on_display=self._on_display,
        )
        self.wires = MockWires(self.pins, self.factory)
        self._watched = [
            *self.pins.column_lights,
            *(p for p in (self.pins.turn_red, self.pins.turn_yellow) if p),
        ]
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self.daemon.run, name="popref-bench-daemon", daemon=True
        )

    def _on_display(self, display: Display) -> None:
        self._shown.set()

    def __enter__(self) -> GpioLatency:
        self.daemon.resume()
        if self.page_clients:
            config = WebConfig(enabled=True, host="127.0.0.1", port=0)
            self.web = serve_daemon(self.daemon, config, monotonic)
            self.pages = PageClients(*self.web.address, self.page_clients)
        self.daemon.open()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.daemon.stop()
        self._thread.join(timeout=5)
        if self.pages is not None:
            self.pages.close()
        if self.web is not None:
            self.web.close()
        self.daemon.close()

    def _first_change_since(self, since: float) -> float | None:
        """When a watched light first changed at or after ``since`` (the
        pins' clock: monotonic), if one did."""
        times = [t for pin in self._watched for t, _ in self.factory.pin(pin).history if t >= since]
        return min(times) if times else None

    def _switch(self, setter: str, active: bool) -> None:
        self._shown.clear()
        getattr(self.wires, setter)(active)
        self._shown.wait(1.0)

    def _new_game(self) -> None:
        self._switch("slider", True)
        self._switch("slider", False)

    def measure(self, samples: int, rng: random.Random) -> list[float]:
        """``samples`` latencies in seconds beyond the debounce window."""
        settle = self.pins.beam.settle
        latencies: list[float] = []
        for _ in range(samples):
            referee = self.daemon.referee
            open_columns = [c for c in range(1, 8) if len(referee.grid[c - 1]) < 6]
            if referee.game.is_over():  # a win, or a full grid's draw
                self._new_game()
                open_columns = list(range(1, 8))
            column = rng.choice(open_columns)
            self._shown.clear()
            self.wires.beam(Beam.ENTRY, column, True)
            time.sleep(BEAM_BLOCKED)  # the disc is in the beam
            cleared = monotonic()
            self.wires.beam(Beam.ENTRY, column, False)
            # generous: on a loaded machine a GIL-sharing search can hold the loop up
            if not self._shown.wait(SHOWN_WAIT):
                raise RuntimeError(f"the drop into column {column} never reached the lights")
            changed = self._first_change_since(cleared)
            if changed is not None:
                latencies.append(changed - (cleared + settle))
            time.sleep(rng.uniform(0.02, 0.06))  # players take a moment between discs
        return latencies


class PageClients:
    """``count`` browsers following ``/api/events``, each reading on a thread
    of its own as fast as the server sends."""

    def __init__(self, host: str, port: int, count: int) -> None:
        self.events = [0] * count
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        for index in range(count):
            connection = socket.create_connection((host, port), timeout=30)
            # a Host the board answers to (controller/web/hosts.py): the address it serves
            request = f"GET /api/events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n"
            connection.sendall(request.encode())
            self._sockets.append(connection)
            thread = threading.Thread(target=self._read, args=(index, connection), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _read(self, index: int, connection: socket.socket) -> None:
        try:
            while data := connection.recv(65536):
                self.events[index] += data.count(b"data: ")
        except OSError:
            pass

    def close(self) -> None:
        for connection in self._sockets:
            connection.close()
        for thread in self._threads:
            thread.join(timeout=5)


class BackgroundSearch:
    """The computer thinking through a measurement: full strength through a
    thinker (the daemon's :class:`~controller.computer.process.ProcessThinker`, or a
    :class:`~controller.computer.thinker.ThreadedThinker` in the daemon's process, for
    comparison), started again whenever it answers; :meth:`pause` and
    :meth:`resume` switch it off and on (the search process stays).

    >>> with BackgroundSearch("classic", "4 4 4 4 4 4 3", "process") as search:
    ...     search.wait_started(60.0)
    ...     search.pause()
    ...     search.resume(60.0)
    True
    True
    True
    """

    def __init__(self, rules: str, moves: str, kind: str) -> None:
        self.game = new_game(rules)
        for move in moves.split():
            self.game.play(move)
        self.thinker: Thinker = (
            ProcessThinker(monotonic, budget=3600.0)
            if kind == "process"
            else ThreadedThinker(monotonic, budget=3600.0)
        )
        self._stop = threading.Event()
        self._answered = threading.Event()
        self._started = threading.Event()
        self._on = threading.Event()
        self._on.set()
        self._idle = threading.Event()  # paused, and the search cancelled
        self.searches = 0
        self._thread = threading.Thread(target=self._run, name="popref-bench-search", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._on.is_set():
                self._idle.set()  # paused, no search running
                self._on.wait(0.05)
                continue
            self._answered.clear()
            job = Job("computer", (self.searches,), self.game.copy(), 10, self.searches)
            self.thinker.start(job, self._answered.set)
            self._started.set()
            while not (self._answered.wait(0.05) or self._stop.is_set() or not self._on.is_set()):
                pass
            if not self._on.is_set():
                self.thinker.cancel()
            self.thinker.answers()
            self.searches += self._answered.is_set()

    def wait_started(self, timeout: float) -> bool:
        return self._started.wait(timeout)

    def pause(self) -> bool:
        """Cancel the search and start no other until :meth:`resume`;
        whether the search loop stopped in time."""
        self._idle.clear()
        self._on.clear()
        idle = self._idle.wait(10.0)
        time.sleep(PAUSE_SETTLE)  # a cancelled search ends within a few hundred positions
        return idle

    def resume(self, timeout: float) -> bool:
        """Search again; whether a search has started within ``timeout``."""
        self._started.clear()
        self._on.set()
        return self._started.wait(timeout)

    def __enter__(self) -> BackgroundSearch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.thinker.close()


class SerialLatency:
    """A daemon over the serial backend, served by its own thread, and a
    simulated sensor board in its own process.

    >>> import tempfile, pathlib
    >>> with SerialLatency(pathlib.Path(tempfile.mkdtemp())) as bench:
    ...     len(bench.measure(3, random.Random(1))) == 3
    True
    """

    SETTLE = 0.006  # the firmware's beam settle window (firmware/main.py)

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self._board_dir = tempfile.mkdtemp(prefix="popref-bench-board-")
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self._process = context.Process(
            target=serve_board, args=(self._board_dir, child), daemon=True
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.daemon: Daemon | None = None

    def __enter__(self) -> SerialLatency:
        self._process.start()
        if not self._pipe.poll(30):
            raise RuntimeError("the simulated sensor board did not start")
        _, port = self._pipe.recv()
        backend = SerialBackend(SerialConfig(port=port), columns=7, rows=6)
        self.daemon = Daemon(
            table=Table(simultaneous=0.0),
            rules="classic",
            backend=backend,
            clock=monotonic,
            state_dir=self.state_dir,
        )
        self.daemon.resume()
        self.daemon.open()
        self._thread = threading.Thread(
            target=self.daemon.run, name="popref-bench-daemon", daemon=True
        )
        self._thread.start()
        deadline = monotonic() + 10
        while not backend.connected:
            if monotonic() > deadline:
                raise RuntimeError("the daemon never connected to the simulated board")
            self._stop.wait(0.01)  # the bench's own pacing, not a test's
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.daemon is not None:
            self.daemon.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.daemon is not None:
            self.daemon.close()
        if self._process.is_alive():
            self._pipe.send(("stop", None))
            self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()
        shutil.rmtree(self._board_dir, ignore_errors=True)

    def _ask(self, command: tuple[str, int | None]) -> tuple[float, float | None]:
        self._pipe.send(command)
        if not self._pipe.poll(10):
            raise RuntimeError(f"the simulated board did not answer {command}")
        answer: tuple[float, float | None] = self._pipe.recv()
        return answer

    def measure(self, samples: int, rng: random.Random) -> list[float]:
        """``samples`` latencies in seconds beyond the board's settle window."""
        assert self.daemon is not None
        latencies: list[float] = []
        while len(latencies) < samples:
            referee = self.daemon.referee
            if referee.game.is_over():
                self._ask(("slider", None))
                continue
            open_columns = [c for c in range(1, 8) if len(referee.grid[c - 1]) < 6]
            column = rng.choice(open_columns)
            blocked, shown = self._ask(("drop", column))
            if shown is None:
                raise RuntimeError(f"the drop into column {column} never reached the strip")
            latencies.append(shown - (blocked + self.SETTLE))
            self._stop.wait(rng.uniform(0.02, 0.06))  # players take a moment between discs
        return latencies


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class RunningDaemon:
    """``popref run`` as systemd starts it, with our own notify socket.

    >>> import tempfile, pathlib
    >>> with RunningDaemon(pathlib.Path(tempfile.mkdtemp())) as daemon:
    ...     daemon.ready_after > 0
    True
    """

    def __init__(self, workdir: Path, config: Path | None = None, watchdog_usec: int = 0) -> None:
        self.workdir = workdir
        self.config = config
        self.watchdog_usec = watchdog_usec
        self.ready_after = 0.0
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._address = str(workdir / "notify.sock")
        self._socket.bind(self._address)
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> RunningDaemon:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("STATE_DIRECTORY", "WATCHDOG_USEC", "WATCHDOG_PID")
        }
        env["NOTIFY_SOCKET"] = self._address
        if self.watchdog_usec:
            env["WATCHDOG_USEC"] = str(self.watchdog_usec)
        log = (self.workdir / "popref.log").open("wb")
        started = time.monotonic()
        config = ["--config", str(self.config)] if self.config else []
        self.process = subprocess.Popen(
            [str(POPREF), "run", *config, "--state-dir", str(self.workdir / "state")],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        self._socket.settimeout(10.0)
        while True:
            try:
                message = self._socket.recv(4096)
            except TimeoutError:
                self.__exit__()
                raise RuntimeError(
                    f"popref run sent no READY=1 within 10 s; see {self.workdir / 'popref.log'}"
                ) from None
            if b"READY=1" in message.split(b"\n"):
                self.ready_after = time.monotonic() - started
                return self

    def web_address(self) -> tuple[str, int]:
        """Where the page is served (port 0 picks one; the log names it)."""
        for line in (self.workdir / "popref.log").read_text().splitlines():
            if "live board is at http://" in line:
                host, port = line.split("http://", 1)[1].strip(" /.").rsplit(":", 1)
                return host, int(port)
        raise RuntimeError(f"no web address in {self.workdir / 'popref.log'}")

    def watchdog_pings(self, seconds: float) -> list[float]:
        """The times of the ``WATCHDOG=1`` datagrams over the next ``seconds``."""
        pings: list[float] = []
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self._socket.settimeout(left)
            try:
                message = self._socket.recv(4096)
            except TimeoutError:
                break
            if b"WATCHDOG=1" in message.split(b"\n"):
                pings.append(time.monotonic())
        return pings

    def cpu_seconds(self) -> float:
        """User plus system CPU time the process has used so far."""
        assert self.process is not None
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
        return (utime + stime) / os.sysconf("SC_CLK_TCK")

    def peak_rss_kb(self) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise RuntimeError("no VmHWM in /proc/PID/status")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=10)
        self._socket.close()


def _web_footprint(scratch: Path, idle: float) -> None:
    """``popref run`` without and with ``[web]`` (and :data:`PAGE_CLIENTS`
    clients): readiness over starts alternating between the two, then both
    running at once through the same idle window, so the load is the same for
    each: idle CPU and peak memory, and what the web view adds."""
    config = scratch / "web.toml"
    config.write_text('[web]\nenabled = true\nhost = "127.0.0.1"\nport = 0\n')
    kinds: list[tuple[str, Path | None]] = [("without [web]", None), ("with [web]", config)]
    ready: dict[str, list[float]] = {name: [] for name, _ in kinds}
    for start in range(STARTS):
        for name, chosen in kinds if start % 2 == 0 else kinds[::-1]:
            where = _scratch_dir(scratch, f"start-{start}-{'web' if chosen else 'plain'}")
            with RunningDaemon(where, chosen) as daemon:
                ready[name].append(daemon.ready_after)
    plain_ready, web_ready = (statistics.median(ready[name]) for name, _ in kinds)
    for name, _ in kinds:
        median = statistics.median(ready[name])
        print(
            f"start -> READY=1 ({name}), median of {STARTS} alternating starts: {median:.3f} s "
            f"(max {max(ready[name]):.3f} s); goal < 1.5 s: {_verdict(median, GOAL_READY)}"
        )
    print(f"  readiness with [web]: x{web_ready / plain_ready:.2f} of without")
    with (
        RunningDaemon(_scratch_dir(scratch, "idle-plain")) as plain,
        RunningDaemon(_scratch_dir(scratch, "idle-web"), config) as web,
    ):
        pages = PageClients(*web.web_address(), PAGE_CLIENTS)
        try:
            time.sleep(1.0)  # the clients connect and get their first state
            before = (plain.cpu_seconds(), web.cpu_seconds())
            started = time.monotonic()
            time.sleep(idle)  # both daemons idle; we only watch their counters
            used = (plain.cpu_seconds() - before[0], web.cpu_seconds() - before[1])
            elapsed = time.monotonic() - started
            rss = (plain.peak_rss_kb(), web.peak_rss_kb())
        finally:
            pages.close()
    for (name, chosen), cpu, peak in zip(kinds, used, rss, strict=True):
        share = cpu / elapsed
        clients = f", {PAGE_CLIENTS} clients" if chosen is not None else ""
        print(
            f"idle CPU ({name}{clients}) over the same {elapsed:.1f} s: {cpu:.3f} s = "
            f"{share * 100:.3f} % of one core; goal < 0.5 %: {_verdict(share, GOAL_IDLE_CPU)}; "
            f"peak RSS (VmHWM) {peak / 1024:.1f} MB; goal < 60 MB: {_verdict(peak, GOAL_RSS_KB)}"
        )
    tick = 1 / os.sysconf("SC_CLK_TCK")
    print(
        f"  idle CPU the web view adds: {(used[1] - used[0]) * 1000:.0f} ms over "
        f"{elapsed:.0f} s (the counters tick every {tick * 1000:.0f} ms)"
    )
    added = rss[1] - rss[0]
    print(
        f"  memory the web view adds ({PAGE_CLIENTS} clients): {added / 1024:.1f} MB; "
        f"goal < 10 MB: {_verdict(max(added, 1), GOAL_WEB_RSS_KB)}"
    )


def _side_by_side(scratch: Path, place: str, samples: int, seed: int) -> None:
    """Edge -> lights with no opponent and no page, with 20 page clients, and
    while the computer thinks, measured in alternating blocks (the order
    rotating each round) so that every series meets the same load on this
    shared machine; each printed with its ratio to the first."""
    rounds = ROUNDS
    block = max(1, samples // rounds)
    series: dict[str, list[float]] = {name: [] for name in SERIES}
    searches = {name: BackgroundSearch(*setup) for name, setup in THINKING.items()}
    followed = 0
    with contextlib.ExitStack() as stack:
        plain = stack.enter_context(GpioLatency(_scratch_dir(scratch, "plain")))
        paged = stack.enter_context(
            GpioLatency(_scratch_dir(scratch, "paged"), page_clients=PAGE_CLIENTS)
        )
        for search in searches.values():
            stack.enter_context(search)
            search.wait_started(60.0)  # the search process is up (its imports done)
            search.pause()
        rng = random.Random(seed)
        load_before = os.getloadavg()
        for round_number in range(rounds):
            names = SERIES[round_number % len(SERIES) :] + SERIES[: round_number % len(SERIES)]
            for name in names:
                if name == "plain":
                    series[name] += plain.measure(block, rng)
                elif name == "paged":
                    series[name] += paged.measure(block, rng)
                else:
                    search = searches[name]
                    if not search.resume(60.0):
                        raise RuntimeError(f"the search for {name} did not start")
                    series[name] += plain.measure(block, rng)
                    search.pause()
        load_after = os.getloadavg()
        assert paged.pages is not None
        followed = min(paged.pages.events)
    print(
        f"edge -> lights, GPIO backend, journal on {place}, side by side: {rounds} rounds of "
        f"{block} drops per series, the order rotating each round, under the same load "
        f"(1-min load average {load_before[0]:.1f} before, {load_after[0]:.1f} after, "
        f"on {os.cpu_count()} cores)"
    )
    base = series["plain"]
    base50, base99 = _percentile(base, 0.50), _percentile(base, 0.99)
    for name, latencies in series.items():
        p50, p99 = _percentile(latencies, 0.50), _percentile(latencies, 0.99)
        what = SERIES_TEXT[name]
        if name == "paged":
            what += f" (each got >= {followed} states)"
        if name in searches:
            what += f" (searching throughout; {searches[name].searches} searches answered)"
        print(
            f"  {what}: p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, "
            f"max {max(latencies) * 1000:.2f} ms; x{p50 / base50:.2f} p50, "
            f"x{p99 / base99:.2f} p99 of no opponent; goal p99 < 5 ms: "
            f"{_verdict(p99, GOAL_LATENCY_P99)}"
        )


def _scratch_dir(scratch: Path, name: str) -> Path:
    where = scratch / name
    where.mkdir()
    return where


def _verdict(value: float, goal: float) -> str:
    return f"{value / goal:.2f} x goal, {'met' if value < goal else 'MISSED'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="popref daemon figures (issues 6, 12 and 13)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="5 s idle window and 100 latency samples instead of 30 s and 400",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed for the drops")
    args = parser.parse_args(argv)
    if not POPREF.exists():
        print(
            f"bench/daemon.py: {POPREF} not found; install popref into this venv "
            "(pip install -e .)",
            file=sys.stderr,
        )
        return 2
    idle = 5.0 if args.quick else 30.0
    samples = 100 if args.quick else 400
    print(f"popref daemon figures ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    with tempfile.TemporaryDirectory(prefix="popref-bench-") as scratch:
        places = [("disk", Path(scratch))]
        if Path("/dev/shm").is_dir():
            # tmpfs: the same run without the cost of a real fsync, to show
            # how much of the tail is the disk
            places.append(("tmpfs", Path("/dev/shm")))
        paths: list[tuple[type[GpioLatency] | type[SerialLatency], str, float]] = [
            (GpioLatency, "lights, GPIO backend", BEAM_SETTLE_MS),
            (SerialLatency, "strip, serial backend (sensor board)", SerialLatency.SETTLE * 1000),
        ]
        config = Path(scratch) / "thinking.toml"
        config.write_text(
            '[game]\nrules = "popout"\n[opponent]\nplays = "red"\nlevel = 10\nthink_ms = 600000\n'
        )
        thinking_dir = Path(scratch) / "thinking"
        thinking_dir.mkdir()
        with RunningDaemon(thinking_dir, config, WATCHDOG_USEC) as daemon:
            before, started = daemon.cpu_seconds(), time.monotonic()
            pings = daemon.watchdog_pings(idle)
            used = daemon.cpu_seconds() - before
            gaps = [b - a for a, b in itertools.pairwise(pings)]
            longest = max(gaps) if gaps else float("inf")
            timeout = WATCHDOG_USEC / 1e6
            print(
                f"watchdog while the computer thinks (Pop Out, full strength, in its "
                f"process; the daemon's own CPU "
                f"{used / (time.monotonic() - started) * 100:.1f} % of a core): {len(pings)} "
                f"pings in {idle:.0f} s, longest gap {longest:.3f} s; systemd's limit "
                f"{timeout:.0f} s: {_verdict(longest, timeout)}"
            )
        for bench_class, path, settle_ms in paths:
            for name, base in places:
                with (
                    tempfile.TemporaryDirectory(prefix="popref-bench-", dir=base) as where,
                    bench_class(Path(where)) as bench,
                ):
                    latencies = bench.measure(samples, random.Random(args.seed))
                p50, p99 = _percentile(latencies, 0.50), _percentile(latencies, 0.99)
                print(
                    f"edge -> {path}, journal on {name}, beyond the {settle_ms:.0f} ms "
                    f"debounce window ({len(latencies)} drops): "
                    f"p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, "
                    f"max {max(latencies) * 1000:.2f} ms, mean "
                    f"{statistics.mean(latencies) * 1000:.2f} ms; goal p99 < 5 ms: "
                    f"{_verdict(p99, GOAL_LATENCY_P99)}"
                )
        for name, base in places:
            with tempfile.TemporaryDirectory(prefix="popref-bench-", dir=base) as where:
                _side_by_side(Path(where), name, samples, args.seed)
        _web_footprint(Path(scratch), idle)
    return 0


BEAM_SETTLE_MS = round(PinMap.simulated(7).beam.settle * 1000)
WATCHDOG_USEC = 2_000_000
PAUSE_SETTLE = 0.2  # seconds after cancelling a search before measuring without it
ROUNDS = 10
STARTS = 4  # popref run starts per kind for readiness, alternating
# the side-by-side series, the first the reference for the ratios
SERIES = ["plain", "paged", "popout-process", "classic-process", "popout-thread"]
SERIES_TEXT = {
    "plain": "no opponent, no page",
    "paged": f"{PAGE_CLIENTS} page clients following /api/events",
    "popout-process": (
        "the computer thinking: Pop Out, the fast search (compiled where built), in its process"
    ),
    "classic-process": "the computer thinking: Classic, the compiled exact solver, in its process",
    "popout-thread": "the computer thinking: Pop Out on a thread of the daemon (GIL shared)",
}
# (rules, moves so far, thinker): positions the book does not cover
THINKING = {
    "popout-process": ("popout", "4 4 3", "process"),
    "classic-process": ("classic", "4 4 3", "process"),
    "popout-thread": ("popout", "4 4 3", "thread"),
}

if __name__ == "__main__":
    sys.exit(main())
