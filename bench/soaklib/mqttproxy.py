"""A fault-injecting proxy between MQTT clients and a real broker: the network
misbehaving on purpose, for the tests and the benches alike (it lives in
``bench/soaklib`` because ``tests/`` already imports the soak's helpers from
here, ``bench/`` may import everything and the product imports neither).

It listens on a free loopback port, connects each client it accepts to the
broker, and cuts both byte streams into MQTT packets (``mqttframes.py``).
Everything passes untouched except, on command, PUBLISH packets:

- :meth:`MqttProxy.duplicate`: the next one is sent twice (the copy with its
  DUP flag, as a sender resending it would);
- :meth:`MqttProxy.delay`: the next one waits ``seconds``, and what follows
  it in that direction waits behind it (one TCP stream keeps its order);
- :meth:`MqttProxy.reorder`: the next one is held until the one after it
  has passed (or :data:`HOLD` seconds, when none comes);
- :meth:`MqttProxy.cut`: every connection is reset and new ones are refused
  for ``seconds`` (until :meth:`MqttProxy.heal` without a duration);
- :meth:`MqttProxy.mix`: each PUBLISH draws one of the first three with the
  given chances, from a generator seeded by the proxy's seed, the
  connection's number and the direction (the same traffic, the same faults).

Memory is bounded: a packet over :data:`BOUND` bytes cuts its connection, and
a direction holds at most :data:`QUEUED` packets before it stops reading
(TCP's own back-pressure then reaches the sender). Nothing here sleeps: the
writers wait on a condition, woken by new packets, by their deadlines, or by
:meth:`MqttProxy.poke` after an injected clock moved.

Example::

    proxy = MqttProxy(("127.0.0.1", broker.port), seed=7)
    proxy.start()                      # clients connect to proxy.url
    proxy.duplicate(direction=UP)      # the next PUBLISH to the broker, twice
    proxy.cut(10.0)                    # reset everyone; refuse for 10 s
"""

from __future__ import annotations

import contextlib
import math
import random
import socket
import struct
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from bench.soaklib.mqttframes import PUBLISH, Malformed, as_copy, packet_type, read_packet

BOUND = 1 << 20  # bytes of remaining length a packet may have (Mosquitto's docs set 64 KB)
QUEUED = 256  # packets one direction holds before it stops reading
HOLD = 2.0  # seconds a reordered packet waits for the next one at most
CONNECT = 5.0  # seconds the proxy waits for the broker to accept a connection
FAULTS = ("duplicate", "delay", "reorder")


class Direction(Enum):
    UP = "to the broker"
    DOWN = "to the client"


UP, DOWN = Direction.UP, Direction.DOWN
BOTH = (UP, DOWN)


@dataclass(frozen=True)
class Mix:
    """The chance of each fault for every PUBLISH (they add up to 1 at
    most), and the range of a delay in seconds."""

    duplicate: float = 0.0
    delay: float = 0.0
    reorder: float = 0.0
    delays: tuple[float, float] = (0.05, 0.5)
    directions: tuple[Direction, ...] = BOTH

    def draw(self, rng: random.Random) -> tuple[str, float] | None:
        roll = rng.random()
        for kind in FAULTS:
            chance: float = getattr(self, kind)
            if roll < chance:
                return kind, rng.uniform(*self.delays)
            roll -= chance
        return None


class MqttProxy:
    """The proxy; :attr:`counts` says what it did (``connections``,
    ``refused``, ``cut``, ``publish`` per direction's name, and each fault)."""

    def __init__(
        self,
        upstream: tuple[str, int],
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.upstream = upstream
        self.seed = seed
        self.clock = clock
        self._lock = threading.Lock()
        self.changed = threading.Condition(self._lock)  # notified at every count
        self.counts: Counter[str] = Counter()
        self._orders: Counter[tuple[str, Direction]] = Counter()
        self._order_delay: dict[Direction, float] = {}
        self._mix: Mix | None = None
        self._refuse_until: float | None = None
        self._links: set[_Link] = set()
        self._numbered = 0
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._accepting = threading.Thread(target=self._accept, name="mqttproxy", daemon=True)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._accepting.start()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        self._accepting.join()
        self._reset_all()

    # -- commands ------------------------------------------------------------------------------

    def duplicate(self, count: int = 1, direction: Direction | None = None) -> None:
        self._order("duplicate", count, direction)

    def delay(self, seconds: float, count: int = 1, direction: Direction | None = None) -> None:
        for way in BOTH if direction is None else (direction,):
            self._order_delay[way] = seconds
        self._order("delay", count, direction)

    def reorder(self, count: int = 1, direction: Direction | None = None) -> None:
        self._order("reorder", count, direction)

    def mix(self, mix: Mix | None) -> None:
        with self._lock:
            self._mix = mix

    def cut(self, seconds: float = math.inf) -> None:
        """Reset every connection, and refuse new ones for ``seconds`` of the
        proxy's clock (for ever: until :meth:`heal`)."""
        with self._lock:
            self._refuse_until = self.clock() + seconds
            self._count("cut")
        self._reset_all()

    def heal(self) -> None:
        with self._lock:
            self._refuse_until = None

    def refusing(self) -> bool:
        with self._lock:
            return self._refusing()

    def poke(self) -> None:
        """Have every writer look at the clock again (an injected one moved)."""
        with self._lock:
            links = list(self._links)
        for link in links:
            link.poke()

    def wait_for(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``done()`` (read under the proxy's lock) holds."""
        with self.changed:
            return self.changed.wait_for(done, timeout)

    # -- for the links -------------------------------------------------------------------------

    def count(self, what: str) -> None:
        with self._lock:
            self._count(what)

    def fault(self, direction: Direction, rng: random.Random) -> tuple[str, float] | None:
        """The fault for the PUBLISH passing now in ``direction``, if any."""
        with self._lock:
            self._count(f"publish {direction.name}")
            for kind in FAULTS:
                if self._orders[kind, direction] > 0:
                    self._orders[kind, direction] -= 1
                    self._count(kind)
                    return kind, self._order_delay.get(direction, 0.0)
            mix = self._mix
            drawn = mix.draw(rng) if mix and direction in mix.directions else None
            if drawn is not None:
                self._count(drawn[0])
            return drawn

    def forget(self, link: _Link) -> None:
        with self._lock:
            self._links.discard(link)

    # -- inside --------------------------------------------------------------------------------

    def _order(self, kind: str, count: int, direction: Direction | None) -> None:
        with self._lock:
            for way in BOTH if direction is None else (direction,):
                self._orders[kind, way] += count

    def _count(self, what: str) -> None:
        self.counts[what] += 1
        self.changed.notify_all()

    def _refusing(self) -> bool:
        until = self._refuse_until
        if until is None or self.clock() >= until:
            self._refuse_until = None
            return False
        return True

    def _reset_all(self) -> None:
        with self._lock:
            links = list(self._links)
        for link in links:
            link.cut()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            with self._lock:
                refused = self._refusing()
            upstream = None if refused else _dial(self.upstream)
            if upstream is None:
                self.count("refused")
                _reset(client)
                continue
            with self._lock:
                self._numbered += 1
                link = _Link(self, client, upstream, self._numbered)
                self._links.add(link)
                self._count("connections")
            link.start()


def _dial(address: tuple[str, int]) -> socket.socket | None:
    try:
        upstream = socket.create_connection(address, timeout=CONNECT)
    except OSError:
        return None  # the broker is down: the client is reset, as it would be
    upstream.settimeout(None)
    return upstream


def _reset(sock: socket.socket) -> None:
    """Close with a reset (linger 0), as a refusing or vanished peer does."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


class _Link:
    """One client's connection and its own to the broker: two pipes."""

    def __init__(
        self, proxy: MqttProxy, client: socket.socket, upstream: socket.socket, number: int
    ) -> None:
        self.proxy = proxy
        self._sockets = (client, upstream)
        for sock in self._sockets:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._pipes = tuple(
            _Pipe(self, source, sink, way, random.Random(f"{proxy.seed}:{number}:{way.name}"))
            for source, sink, way in ((client, upstream, UP), (upstream, client, DOWN))
        )
        self._cut = threading.Event()

    def start(self) -> None:
        for pipe in self._pipes:
            pipe.start()

    def poke(self) -> None:
        for pipe in self._pipes:
            pipe.poke()

    def cut(self) -> None:
        if self._cut.is_set():
            return
        self._cut.set()
        for pipe in self._pipes:
            pipe.stop()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.shutdown(socket.SHUT_RDWR)
        self.proxy.forget(self)


class _Pipe:
    """One direction: a reader that frames and decides, a writer that sends
    each packet when its time comes."""

    def __init__(
        self,
        link: _Link,
        source: socket.socket,
        sink: socket.socket,
        direction: Direction,
        rng: random.Random,
    ) -> None:
        self.link = link
        self.clock = link.proxy.clock
        self.direction = direction
        self._source = source
        self._sink = sink
        self._rng = rng
        self._ready = threading.Condition()
        self._queue: deque[tuple[float, bytes]] = deque()
        self._held: tuple[float, bytes] | None = None  # a reordered packet, and its deadline
        self._last = -math.inf  # when the last queued packet leaves: nothing overtakes it
        self._stopped = False
        name = f"mqttproxy {direction.name}"
        self._threads = (
            threading.Thread(target=self._read, name=name, daemon=True),
            threading.Thread(target=self._write, name=name, daemon=True),
        )

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        with self._ready:
            self._stopped = True
            self._ready.notify_all()

    def poke(self) -> None:
        with self._ready:
            self._ready.notify_all()

    def _read(self) -> None:
        reader = self._source.makefile("rb")
        try:
            while (packet := read_packet(reader.read, BOUND)) is not None:
                if not self._route(packet):
                    break
        except (OSError, ValueError, Malformed):
            pass  # reset, closed, or not MQTT: the connection ends
        finally:
            self.link.cut()
            reader.close()
            self._source.close()

    def _route(self, packet: bytes) -> bool:
        """Queue ``packet`` with its fault; False once the link is cut."""
        is_publish = packet_type(packet) == PUBLISH
        fault = self.link.proxy.fault(self.direction, self._rng) if is_publish else None
        kind, seconds = fault or ("", 0.0)
        with self._ready:
            self._ready.wait_for(lambda: self._stopped or len(self._queue) < QUEUED)
            if self._stopped:
                return False
            now = self.clock()
            if kind == "reorder" and self._held is None:
                self._held = (now + HOLD, packet)
            else:
                at = max(now + seconds, self._last)
                self._queue.append((at, packet))
                if kind == "duplicate":
                    self._queue.append((at, as_copy(packet)))
                if is_publish and self._held is not None:
                    self._queue.append((at, self._held[1]))  # right after the one it let pass
                    self._held = None
                self._last = at
            self._ready.notify_all()
        return True

    def _write(self) -> None:
        while (packet := self._next()) is not None:
            try:
                self._sink.sendall(packet)
            except OSError:
                self.link.cut()
                return

    def _next(self) -> bytes | None:
        """The next packet whose time has come; ``None`` once stopped."""
        with self._ready:
            while not self._stopped:
                now = self.clock()
                if self._held is not None and self._held[0] <= now:
                    self._queue.append((max(now, self._last), self._held[1]))
                    self._held = None
                if self._queue and self._queue[0][0] <= now:
                    packet = self._queue.popleft()[1]
                    self._ready.notify_all()  # room for the reader
                    return packet
                deadlines = [self._queue[0][0]] if self._queue else []
                deadlines += [self._held[0]] if self._held is not None else []
                self._ready.wait(min(deadlines) - now if deadlines else None)
            return None
