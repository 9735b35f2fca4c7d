"""Each client connection's bounds, and the caps on them all.

A request must arrive whole (its line, headers and body) within
:data:`REQUEST_TIME` of when the server began to wait for it, in at most
:data:`REQUEST_BYTES`; an answer must leave within the time its writer
allows. These bound the request, not each read: a client sending one byte
every few seconds runs out of time all the same.

The connections are capped, one thread each, and so are those of one
address (:data:`PER_ADDRESS`; a loopback address is no one's: behind a
local proxy every client has it). When every place is taken, a new
connection takes the place of the one that has been sending its request the
longest (an idle keep-alive connection waits for its next request, so it
counts too), else of the one whose answer the client has taken nothing of
for :data:`WRITE_GRACE` (it does not read): clients that send their request
at once and read their answer get in, however many slow ones there are, and
the slow ones cannot hold the page. Past its address's cap, a connection
takes the place of its own address's first such one.

>>> from hardware.clock import FakeClock
>>> clock = FakeClock()
>>> places = Connections(cap=1)
>>> a, b = Connection(None, clock), Connection(None, clock)
>>> places.admit(a), places.admit(b), a.evicted, places.open
(True, True, True, 2)
>>> places.closed(a); places.open
1
"""

from __future__ import annotations

import collections
import contextlib
import io
import ipaddress
import math
import socket
import struct
import threading
from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

try:
    import fcntl
    import termios

    OUTQ: int | None = termios.TIOCOUTQ  # on a socket, Linux's SIOCOUTQ
except (ImportError, AttributeError):  # pragma: no cover - not Linux
    OUTQ = None

from controller.web.checks import MAX_BODY, Refused
from hardware.clock import Clock

REQUEST_TIME = 10.0  # seconds for a whole request, from when the server waits for it
REQUEST_BYTES = 16384 + MAX_BODY  # its line, headers and body
ANSWER_TIME = 10.0  # seconds for an answer to leave (a client must read it)
# after a refusal, what the client is still sending is read and dropped, for
# at most this long, before the socket closes: closed with unread input, it
# would be reset, and the client could lose the answer that says why
LINGER_TIME = 2.0
LINGER_BYTES = 65536
# a write the client has taken nothing of for this long gives its place up
# to a new connection when every place is taken (a client reading on any
# network takes something within it)
WRITE_GRACE = 2.0
PER_ADDRESS = 16  # connections of one address (a household behind one NAT)
# when every place is taken, how long a new connection waits for one (real
# seconds; the server takes no other connection meanwhile, they queue), and
# how often it looks again
ADMIT_WAIT = WRITE_GRACE + 0.5
ADMIT_POLL = 0.1
# an event stream whose client has not taken a message whole this long after
# it was sent is dropped: it does not read
STALLED = 10.0
# past this many bytes its client has not taken (its own buffers full), an
# event stream sends nothing more until it takes some, then the newest state
STREAM_BACKLOG = 65536
STREAM_BUFFER = 262144  # an event stream's send buffer: the backlog is seen before a write blocks


def address_key(client_address: Any) -> str | None:
    """Whose a connection from ``client_address`` is for the per-address
    caps: its IP address (an IPv4-mapped one as IPv4); ``None``, no one's,
    for loopback, which every client has behind a local TLS proxy, and for
    anything else (a Unix socket)."""
    try:
        address = ipaddress.ip_address(str(client_address[0]).partition("%")[0])
    except (ValueError, IndexError, TypeError):
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return None if address.is_loopback else str(address)


class Connection(io.RawIOBase):
    """One client's socket, read and written within deadlines on ``clock``."""

    def __init__(
        self, sock: socket.socket | None, clock: Clock, address: str | None = None
    ) -> None:
        super().__init__()
        self.sock = sock
        self.address = address  # for the per-address caps (address_key)
        self.places: Connections | None = None  # told when a write blocks
        self.blocked_since: float | None = None  # when a write began to wait for the client
        self._clock = clock
        self._written = 0  # bytes sent, in all
        # on an event stream, how many bytes had been sent at the end of each
        # write and when, until the client has taken them
        self._sent: collections.deque[tuple[int, float]] | None = None
        self._deadline = clock() + REQUEST_TIME
        self._left = REQUEST_BYTES
        self._first = True  # the first request is timed from the connection's admission
        self.evicted = False
        self.refused = False  # answered without reading the whole request

    def begin_request(self) -> None:
        """The server waits for the next request from now on."""
        if self._first:
            self._first = False
            return
        self._deadline = self._clock() + REQUEST_TIME
        self._left = REQUEST_BYTES

    def begin_answer(self, seconds: float = ANSWER_TIME) -> None:
        """What is written from now on must leave within ``seconds``."""
        self._deadline = self._clock() + seconds

    def evict(self) -> None:
        """Give this connection's place to a newer one: its reads end."""
        self.evicted = True
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)

    def linger(self) -> None:
        """Done sending; after a refusal, drop what the client still sends
        (bounded) so that closing does not reset the connection."""
        assert self.sock is not None
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)
            if not self.refused or self.evicted:
                return
            self.begin_answer(LINGER_TIME)
            left = LINGER_BYTES
            while left > 0 and (chunk := self._timed().recv(min(left, 8192))):
                left -= len(chunk)

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.evicted:
            raise ConnectionAbortedError("its place went to a newer connection")
        if self._left <= 0:
            raise Refused(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "the request is too large")
        try:
            count = self._timed().recv_into(memoryview(buffer)[: self._left])
        except TimeoutError:
            raise Refused(HTTPStatus.REQUEST_TIMEOUT, "send the whole request at once") from None
        self._left -= count
        return count

    def write(self, data: Any) -> int:
        """All of ``data``, or :class:`TimeoutError` past the deadline;
        while the client takes nothing, :attr:`blocked_since` says since when."""
        assert self.sock is not None
        view = memoryview(data).cast("B")
        while view:
            self.sock.settimeout(0)
            try:
                sent = self.sock.send(view)
            except BlockingIOError:
                self._blocked(self._clock())
                try:
                    sent = self._timed().send(view)
                finally:
                    self._blocked(None)
            self._written += sent
            view = view[sent:]
        if self._sent is not None:
            self._sent.append((self._written, self._clock()))
        return len(data)

    def _blocked(self, since: float | None) -> None:
        self.blocked_since = since
        if self.places is not None:
            self.places.changed()

    def now(self) -> float:
        return self._clock()

    def stream(self) -> None:
        """This connection carries an event stream from now on: a send buffer
        large enough that :meth:`taking` sees a backlog before a write blocks."""
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_BUFFER)
        self._sent = collections.deque()

    def unsent(self) -> int:
        """Bytes sent that the client has not acknowledged yet (its own
        buffers full, or still on their way); 0 where the kernel cannot say."""
        if self.sock is None or OUTQ is None:
            return 0
        try:
            raw = fcntl.ioctl(self.sock.fileno(), OUTQ, b"\0\0\0\0")
        except (OSError, ValueError):
            return 0
        count: int = struct.unpack("i", raw)[0]
        return count

    def behind(self) -> bool:
        """More than :data:`STREAM_BACKLOG` bytes wait for the client: an
        event stream sends nothing more until it takes some."""
        return self.unsent() > STREAM_BACKLOG

    def taking(self) -> bool:
        """Whether an event stream's client still takes what is sent: none
        of it has waited :data:`STALLED` seconds without being taken whole.
        (A client that reads nothing may still take a little now and then,
        as its kernel's buffer opens up: that is no reading.)"""
        taken = self._written - self.unsent()
        while self._sent and self._sent[0][0] <= taken:
            self._sent.popleft()
        return not self._sent or self._clock() - self._sent[0][1] < STALLED

    def _timed(self) -> socket.socket:
        """The socket, its timeout what is left until the deadline: recv's
        and send's timeout bound each call, and each call asks again how
        much time is left."""
        assert self.sock is not None
        remaining = self._deadline - self._clock()
        if remaining <= 0:
            raise TimeoutError("out of time")
        self.sock.settimeout(remaining)
        return self.sock


class Connections:
    """The open connections, at most ``cap`` (plus those given up and still
    ending), at most ``per_address`` of one address; those still sending a
    request, oldest first."""

    def __init__(self, cap: int, per_address: int = PER_ADDRESS) -> None:
        self.cap = cap
        self.per_address = per_address
        self._changed = threading.Condition()
        self._open: set[Connection] = set()
        self._sending: dict[Connection, None] = {}  # insertion order: oldest first
        self._ending: set[Connection] = set()

    def admit(self, connection: Connection, wait: float = 0.0) -> bool:
        """Take a place for ``connection``, in place of another (its own
        address's past :attr:`per_address`) if every place is taken;
        ``False`` when none can be had within ``wait`` seconds (every place
        is answering a client that reads, or too many are still ending).
        It waits only while some answer waits for its client: that one may
        pass :data:`WRITE_GRACE`, and a client that reads waits its turn
        rather than being turned away by one that reconnects as soon as it
        is let go."""
        with self._changed:
            for attempt in range(math.ceil(wait / ADMIT_POLL) + 1):
                if attempt:
                    if not any(c.blocked_since is not None for c in self._open - self._ending):
                        return False  # every answer is being taken: none will give way soon
                    self._changed.wait(ADMIT_POLL)
                if self._place_for(connection):
                    self._open.add(connection)
                    self._sending[connection] = None
                    connection.places = self
                    return True
            return False

    def _place_for(self, connection: Connection) -> bool:
        now = connection.now()
        if connection.address is not None:
            mine = [c for c in self._open - self._ending if c.address == connection.address]
            if len(mine) >= self.per_address and not self._give_way(mine, now):
                return False
        full = len(self._open) - len(self._ending) >= self.cap
        return not full or self._give_way(self._open - self._ending, now)

    def _give_way(self, among: Iterable[Connection], now: float) -> bool:
        """End the one of ``among`` that has been sending its request the
        longest, else the one whose client has taken nothing of its answer
        the longest, :data:`WRITE_GRACE` at least; whether there was one."""
        if len(self._ending) >= self.cap:
            return False
        among = set(among)
        sending = [c for c in self._sending if c in among]  # oldest first
        blocked = {c: c.blocked_since for c in among}  # read once: their threads change it
        stuck = sorted(
            (since, id(c), c)
            for c, since in blocked.items()
            if since is not None and now - since >= WRITE_GRACE
        )
        if not sending and not stuck:
            return False
        oldest = sending[0] if sending else stuck[0][2]
        self._sending.pop(oldest, None)
        self._ending.add(oldest)
        oldest.evict()
        return True

    def changed(self) -> None:
        """A connection's state changed (a write began or stopped waiting)."""
        with self._changed:
            self._changed.notify_all()

    def sending(self, connection: Connection) -> None:
        """``connection`` waits for its next request."""
        with self._changed:
            if connection in self._open and connection not in self._ending:
                self._sending.pop(connection, None)
                self._sending[connection] = None
                self._changed.notify_all()

    def answering(self, connection: Connection) -> None:
        """``connection``'s request has arrived whole."""
        with self._changed:
            self._sending.pop(connection, None)
            self._changed.notify_all()

    def closed(self, connection: Connection) -> None:
        with self._changed:
            self._open.discard(connection)
            self._sending.pop(connection, None)
            self._ending.discard(connection)
            self._changed.notify_all()

    def end_all(self, timeout: float) -> bool:
        """End every connection's reads and writes (the server is closing), and
        wait up to ``timeout`` for their threads to let go; whether they did.
        A client waiting to send its next request would otherwise hold its
        thread until the request's time ran out, long after the server."""
        with self._changed:
            for connection in self._open:
                connection.evict()
            return self._changed.wait_for(lambda: not self._open, timeout)

    @property
    def open(self) -> int:
        with self._changed:
            return len(self._open)

    def wait(
        self,
        *,
        open: int | None = None,
        sending: int | None = None,
        blocked: int | None = None,
        timeout: float,
    ) -> bool:
        """Wait until ``open`` connections are open, ``sending`` of them are
        still sending and ``blocked`` of them wait for their client to take
        an answer (any ``None``: any); whether that came in time."""

        def reached() -> bool:
            stuck = sum(c.blocked_since is not None for c in self._open - self._ending)
            return (
                (open is None or len(self._open) == open)
                and (sending is None or len(self._sending) == sending)
                and (blocked is None or stuck == blocked)
            )

        with self._changed:
            return self._changed.wait_for(reached, timeout)
