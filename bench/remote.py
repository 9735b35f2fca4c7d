"""The remote seat's figures (issue 22), each printed with its goal.

Through a local Mosquitto (Debian's, started on free loopback ports as the
tests start it, with ``set_tcp_nodelay true`` as docs/remote.md advises),
in one run:

- **raw**: the broker's own publish-to-receive time: one paho client
  publishes a message of a request's size (QoS 1), another receives it; the
  time from ``publish`` to the receiving program taking it off its queue.
- **move -> friend**: a real ``Daemon`` loop on its own thread, on gpiozero's
  mock pins with the real clock, the friend playing Yellow through
  :class:`~controller.remote.client.RemoteClient` (``popref play``'s): the
  bench drops a Red disc through the entry beam; the time from the journal's
  append of that move returning (journalled and synced) to the board's signed
  ``move`` message arriving at the friend's program (checked, on its network
  thread: the bench's own main thread is busy watching the lights then).
- **request -> light**: the friend asks for its move; the time from its
  ``publish`` to the first change of a light pin on the board (its column's
  light in its colour). The bench then makes the move on the grid. Requests
  go no faster than the seat takes them from one sender
  (``controller.remote.host.RATE`` a second after a burst: a person copies
  each move by hand), else the bench would time the bucket's refusals and
  the friend's resend a second later (a p95 of 1 s).
- **move -> page**: the same moves as the remote page sees them in headless
  Chromium (Debian's, driven by Selenium as tests/browser.py does), the page
  served by the broker's own static server as ``popref remote-page`` writes
  it: the time from the journal's append returning to the page's move list
  changing (a ``MutationObserver``, before the paint). The page's clock is
  not the bench's: both are read as the wall clock (``time.time()`` and
  ``performance.timeOrigin + performance.now()``, the same system clock).
  Left out, saying why in one line, where Chromium is not installed.
- **idle**: ``popref run`` without and with ``[remote]`` (a friend invited
  through the same broker) side by side through the same idle window: CPU,
  peak memory (VmHWM) and the voluntary context switches of all their
  threads (each one a wake-up: a polling loop shows as a steady count).

Goals: p95 under 100 ms, under 2x the raw round trip; under 5 MB and no
polling added to the daemon. Run from the repository root::

    .venv/bin/python bench/remote.py            # 200 moves, 30 s idle window
    .venv/bin/python bench/remote.py --quick    # 50 moves, 5 s
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.pop(0)  # run as a script: the project root first, not bench/
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.daemon import BEAM_BLOCKED, GpioLatency, RunningDaemon, _percentile, _verdict
from controller.remote.address import broker_address
from controller.remote.client import RemoteClient
from controller.remote.connection import Connection
from controller.remote.host import RATE, RemoteHost
from controller.remote.link import parse_link
from controller.remote.message import Message
from controller.remote.settings import RemoteSettings
from controller.web.api import RULES
from controller.web.remote_page import write_page
from engine.colour import Colour
from hardware.clock import monotonic
from hardware.sim.seam import Beam
from tests.broker import MISSING, MOSQUITTO, Mosquitto
from tests.browser import Browsers, needs_chromium, text, wait

GOAL_P95 = 0.100
GOAL_OVERHEAD = 2.0
GOAL_RSS_KB = 5 * 1024
WAIT = 10.0  # seconds before a message that never came is an error
PAYLOAD = b"x" * 250  # about a request's size
# The page notes, at each change of its move list, how many moves it shows and
# when (the wall clock, in milliseconds, as the bench's time.time() reads it).
WATCH_MOVES = """
window.benchSeen = [];
const moves = document.getElementById("moves");
new MutationObserver(() => {
  const words = moves.textContent.trim();
  const shown = words ? words.split(/\\s+/).length : 0;
  const seen = window.benchSeen;
  if (!seen.length || seen[seen.length - 1][0] !== shown) {
    seen.push([shown, performance.timeOrigin + performance.now()]);
  }
}).observe(moves, { childList: true, characterData: true, subtree: true });
"""


def raw_round_trips(
    broker: Mosquitto, samples: int, paths: tuple[str, str] | None = None
) -> list[float]:
    """Publish-to-receive times of the broker alone, the same paho setup;
    ``paths``: the sender's and the receiver's broker URLs where they do not
    reach ``broker`` directly (each through a proxy of its own, say)."""
    taken: queue.Queue[float] = queue.Queue()
    sending, receiving = paths or (broker.url, broker.url)
    receiver = Connection(
        broker_address(receiving), "bench-raw-in", lambda topic, payload: taken.put(0.0)
    )
    sender = Connection(broker_address(sending), "bench-raw-out", lambda topic, payload: None)
    receiver.subscribe(["bench/raw"])
    receiver.start()
    sender.start()
    times: list[float] = []
    try:
        for connection in (receiver, sender):
            if not connection.connected.wait(WAIT):
                raise RuntimeError("the bench could not connect to its broker")
        for _ in range(int(WAIT / 0.1)):  # until the subscription is in place
            sender.publish("bench/raw", PAYLOAD)
            with contextlib.suppress(queue.Empty):
                taken.get(timeout=0.1)
                break
        time.sleep(0.2)  # the probes still on their way arrive
        while not taken.empty():
            taken.get()
        for _ in range(samples):
            sent = monotonic()
            sender.publish("bench/raw", PAYLOAD)
            taken.get(timeout=WAIT)
            times.append(monotonic() - sent)
    finally:
        sender.close()
        receiver.close()
    return times


class RemoteLatency(GpioLatency):
    """The GPIO bench's daemon with a remote seat: the friend plays Yellow."""

    def __init__(self, state_dir: Path, broker: Mosquitto, page: Any | None = None) -> None:
        super().__init__(state_dir)
        settings = RemoteSettings(
            broker_address(broker.url),
            web_broker=broker.ws_url,
            page=f"http://127.0.0.1:{broker.ws_port}/",  # the broker's static server
        )
        self.daemon.remote = RemoteHost(settings)
        self.page = page  # a Selenium driver following the game on the remote page, or None
        self.wall: dict[int, float] = {}  # by the number of moves: journalled, wall clock
        self.to_page: list[float] = []
        # by the number of moves: when each was journalled, and when the
        # friend had the board's message about it
        self.journalled: dict[int, float] = {}
        self.arrived: dict[int, float] = {}
        self._asked_at = -1.0  # when the friend last asked (the bench's monotonic clock)
        append = self.daemon.journal.append

        def timed(record: dict[str, Any]) -> None:
            append(record)
            if record.get("e") == "drop":  # the referee has played it already
                ply = len(self.daemon.referee.game.moves)
                self.journalled[ply] = monotonic()
                self.wall[ply] = time.time()

        self.daemon.journal.append = timed  # type: ignore[method-assign]
        self.friend: RemoteClient | None = None

    def __enter__(self) -> RemoteLatency:
        self.daemon.resume()
        self.daemon.choose_remote(Colour.YELLOW)
        self.daemon.open()
        self._thread.start()
        self._follow()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.friend is not None:
            self.friend.close()
        super().__exit__(*exc)

    def _follow(self) -> RemoteClient:
        """The friend, on this game's invitation (each new game has a link of its own)."""
        host = self.daemon.remote
        assert host is not None
        old = self.friend.link if self.friend is not None else None
        link = None
        for _ in range(int(WAIT / 0.01)):  # the loop makes the invitation at its next step
            link = host.current_link()
            if link is not None and (old is None or parse_link(link).game != old.game):
                break
            time.sleep(0.01)
        assert link is not None, "the daemon made no invitation"
        if self.friend is not None:
            self.friend.close()
        friend = RemoteClient(parse_link(link), name="bench-friend")
        friend.on_taken = self._taken
        friend.start()
        if not friend.wait(lambda: friend.state is not None, WAIT):
            raise RuntimeError("the friend never saw the board's state")
        self.friend = friend
        self._open_page(link)
        return friend

    def _open_page(self, link: str) -> None:
        """The remote page, on this game's link, noting when its moves change."""
        if self.page is None:
            return
        self._read_page()  # the last game's figures, before its page goes
        self.wall.clear()
        self.page.get("about:blank")  # a fresh load: the old page's "live" is not this one's
        self.page.get(link)
        wait(self.page, lambda d: text(d, "link") == "live", "the broker's link")
        wait(self.page, lambda d: text(d, "you") == "You play Yellow.", "the board's state")
        self.page.execute_script(WATCH_MOVES)

    def _read_page(self) -> None:
        """Each move's time from its journalling to the page's showing it."""
        if self.page is None or not self.wall:
            return
        seen = self.page.execute_script("return window.benchSeen || []")
        for shown, at in seen:  # a page that lags shows two moves in one change
            for ply in sorted(ply for ply in self.wall if ply <= shown):
                self.to_page.append(at / 1000 - self.wall.pop(ply))

    def _taken(self, message: Message, arrived: float) -> None:
        if message.kind == "move":
            self.arrived[message.fields()["ply"]] = arrived

    def _drop(self, column: int) -> None:
        self._shown.clear()
        self.wires.beam(Beam.ENTRY, column, True)
        time.sleep(BEAM_BLOCKED)
        self.wires.beam(Beam.ENTRY, column, False)
        if not self._shown.wait(WAIT):
            raise RuntimeError(f"the drop into column {column} never reached the lights")

    def _heard(self, friend: RemoteClient, ply: int) -> float:
        """The time from move ``ply``'s journalling to the friend's having it."""
        if not friend.wait(lambda: ply in self.arrived, WAIT):
            raise RuntimeError("the friend never heard of Red's move")
        return self.arrived.pop(ply) - self.journalled.pop(ply)

    def _ask(self, friend: RemoteClient, column: int, ply: int) -> float:
        """The friend asks for ``column`` at ``ply``: the time to its light."""
        friend.wait(lambda: (friend.state or {}).get("ply") == ply, WAIT)
        # the seat's rate, with a margin for the two clocks' steps
        time.sleep(max(0.0, self._asked_at + 1.1 / RATE - monotonic()))
        self._asked_at = monotonic()
        before = monotonic()
        self._shown.clear()
        asked = monotonic()
        seq = friend.request(str(column), ply)
        if not friend.wait(lambda: seq in friend.replies, WAIT) or not self._shown.wait(WAIT):
            raise RuntimeError("the board never answered the friend, or lit nothing")
        lit = self._first_change_since(before)
        if lit is None or not friend.replies[seq]["ok"]:
            raise RuntimeError(f"the friend's move was not lit: {friend.replies[seq]}")
        return lit - asked

    def _open(self) -> list[int]:
        return [c for c in range(1, 8) if len(self.daemon.referee.grid[c - 1]) < 6]

    def measure_both(self, samples: int, rng: random.Random) -> tuple[list[float], list[float]]:
        """``samples`` of (journalled move -> friend) and (request -> light)."""
        to_friend: list[float] = []
        to_light: list[float] = []
        friend = self.friend
        assert friend is not None
        while len(to_friend) < samples:
            if self.daemon.referee.game.is_over():
                self._new_game()  # the slider: a new game, a new invitation
                friend = self._follow()
                self.journalled.clear()
                self.arrived.clear()
            ply = len(self.daemon.referee.game.moves)
            self._drop(rng.choice(self._open()))  # Red, at the grid
            to_friend.append(self._heard(friend, ply + 1))
            if self.daemon.referee.game.is_over():
                continue
            column = rng.choice(self._open())
            to_light.append(self._ask(friend, column, ply + 1))
            self._drop(column)  # a person makes the friend's move
            time.sleep(rng.uniform(0.02, 0.06))
        time.sleep(0.2)  # the page shows the last move
        self._read_page()
        return to_friend, to_light


def wakeups(pid: int) -> int:
    """Voluntary context switches of every thread of process ``pid`` so far."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                total += int(line.split()[1])
    return total


def idle_footprint(scratch: Path, broker: Mosquitto, idle: float) -> None:
    """``popref run`` without and with a remote seat, idling side by side."""
    config = scratch / "remote.toml"
    config.write_text(f'[remote]\nbroker = "{broker.url}"\nplays = "yellow"\n')
    plain_dir, remote_dir = scratch / "idle-plain", scratch / "idle-remote"
    plain_dir.mkdir()
    remote_dir.mkdir()
    with RunningDaemon(plain_dir) as plain, RunningDaemon(remote_dir, config) as remote:
        assert plain.process is not None and remote.process is not None
        time.sleep(2.0)  # the remote seat connects and publishes its first state
        daemons = (plain, remote)
        pids = [plain.process.pid, remote.process.pid]
        cpu = [d.cpu_seconds() for d in daemons]
        woke = [wakeups(pid) for pid in pids]
        started = time.monotonic()
        time.sleep(idle)  # both daemons idle; the bench only reads their counters
        elapsed = time.monotonic() - started
        cpu = [d.cpu_seconds() - before for d, before in zip(daemons, cpu, strict=True)]
        woke = [wakeups(pid) - before for pid, before in zip(pids, woke, strict=True)]
        rss = [d.peak_rss_kb() for d in daemons]
    for name, used, wakes, peak in zip(("without", "with"), cpu, woke, rss, strict=True):
        print(
            f"popref run {name} a remote seat, idle {elapsed:.1f} s: CPU {used:.3f} s "
            f"({used / elapsed * 100:.3f} % of a core), {wakes} wake-ups "
            f"({wakes / elapsed:.2f}/s), peak RSS {peak / 1024:.1f} MB"
        )
    added = rss[1] - rss[0]
    print(
        f"  the remote seat adds {added / 1024:.1f} MB (goal < 5 MB: "
        f"{_verdict(max(added, 0), GOAL_RSS_KB)}), {cpu[1] - cpu[0]:+.3f} s CPU and "
        f"{(woke[1] - woke[0]) / elapsed:+.2f} wake-ups/s (no polling: a keepalive every 60 s)"
    )


def report(name: str, times: list[float], raw: list[float]) -> None:
    p50, p95, p99 = (_percentile(times, q) for q in (0.50, 0.95, 0.99))
    raw50, raw95 = _percentile(raw, 0.50), _percentile(raw, 0.95)
    print(
        f"{name} ({len(times)}): p50 {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, "
        f"p99 {p99 * 1000:.2f} ms; goal p95 < 100 ms: {_verdict(p95, GOAL_P95)}; "
        f"x{p50 / raw50:.2f} the raw p50, x{p95 / raw95:.2f} the raw p95 "
        f"(goal < 2x: {_verdict(p95 / raw95, GOAL_OVERHEAD)})"
    )


@contextlib.contextmanager
def browser(scratch: Path) -> Iterator[Any | None]:
    """Headless Chromium for the page's figure, or None, said in one line."""
    if needs_chromium.args[0]:
        print(f"the remote page's figure is left out: {needs_chromium.kwargs['reason']}")
        yield None
        return
    pool = Browsers(scratch)
    try:
        yield from pool.open("en-US,en")
    finally:
        pool.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="popref's remote seat figures (issue 22)")
    parser.add_argument("--quick", action="store_true", help="50 moves and a 5 s idle window")
    parser.add_argument("--seed", type=int, default=1, help="random seed for the columns")
    args = parser.parse_args(argv)
    if MOSQUITTO is None:
        print(f"bench/remote.py: {MISSING}", file=sys.stderr)
        return 2
    samples, idle = (50, 5.0) if args.quick else (200, 30.0)
    print(f"popref remote seat figures ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    with tempfile.TemporaryDirectory(prefix="popref-bench-") as scratch:
        served = Path(scratch) / "page"
        broker = Mosquitto(Path(scratch), http_dir=served)
        write_page(served, broker.ws_url, RULES)  # what `popref remote-page` writes
        broker.start()
        try:
            raw = raw_round_trips(broker, samples)
            p50, p95, p99 = (_percentile(raw, q) for q in (0.50, 0.95, 0.99))
            print(
                f"raw broker publish -> receive ({len(raw)}): p50 {p50 * 1000:.2f} ms, "
                f"p95 {p95 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms"
            )
            places = [("disk", Path(scratch))]
            if Path("/dev/shm").is_dir():  # the same without a real fsync: what the disk costs
                places.append(("tmpfs", Path("/dev/shm")))
            for place, base in places:
                with (
                    tempfile.TemporaryDirectory(prefix="popref-bench-", dir=base) as where,
                    contextlib.ExitStack() as stack,
                ):
                    page = stack.enter_context(browser(Path(where))) if place == "disk" else None
                    bench = stack.enter_context(RemoteLatency(Path(where), broker, page))
                    to_friend, to_light = bench.measure_both(samples, random.Random(args.seed))
                report(
                    f"move journalled -> the friend's update, journal on {place}", to_friend, raw
                )
                report(
                    f"the friend's request -> the grid's light, journal on {place}", to_light, raw
                )
                if page is not None:
                    report(
                        "move journalled -> the remote page's update in Chromium",
                        bench.to_page,
                        raw,
                    )
            idle_footprint(Path(scratch), broker, idle)
        finally:
            broker.stop()
    return 0


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    sys.exit(main())
