"""Each client connection's bounds, and the cap on them all.

A request must arrive whole (its line, headers and body) within
:data:`REQUEST_TIME` of when the server began to wait for it, in at most
:data:`REQUEST_BYTES`; an answer must leave within the time its writer
allows. These bound the request, not each read: a client sending one byte
every few seconds runs out of time all the same.

The connections are capped, one thread each. When every place is taken, a
new connection takes the place of the one that has been sending its request
the longest (an idle keep-alive connection waits for its next request, so it
counts too): clients that send their request at once get in, however many
slow ones there are, and the slow ones cannot hold the page.

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

import contextlib
import io
import socket
import threading
from http import HTTPStatus
from typing import Any

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


class Connection(io.RawIOBase):
    """One client's socket, read and written within deadlines on ``clock``."""

    def __init__(self, sock: socket.socket | None, clock: Clock) -> None:
        super().__init__()
        self.sock = sock
        self._clock = clock
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
        """All of ``data``, or :class:`TimeoutError` past the deadline."""
        self._timed().sendall(data)
        return len(data)

    def _timed(self) -> socket.socket:
        """The socket, its timeout what is left until the deadline: sendall's
        timeout bounds the whole call, recv's each call, and each call asks
        again how much time is left."""
        assert self.sock is not None
        remaining = self._deadline - self._clock()
        if remaining <= 0:
            raise TimeoutError("out of time")
        self.sock.settimeout(remaining)
        return self.sock


class Connections:
    """The open connections, at most ``cap`` (plus those given up and still
    ending); those still sending a request, oldest first."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._changed = threading.Condition()
        self._open: set[Connection] = set()
        self._sending: dict[Connection, None] = {}  # insertion order: oldest first
        self._ending: set[Connection] = set()

    def admit(self, connection: Connection) -> bool:
        """Take a place for ``connection``, evicting the connection that has
        been sending the longest if every place is taken; ``False`` when none
        can be had (every place is answering, or too many are still ending)."""
        with self._changed:
            if len(self._open) - len(self._ending) >= self.cap:
                if not self._sending or len(self._ending) >= self.cap:
                    return False
                oldest = next(iter(self._sending))
                del self._sending[oldest]
                self._ending.add(oldest)
                oldest.evict()
            self._open.add(connection)
            self._sending[connection] = None
            return True

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

    def wait(self, *, open: int | None = None, sending: int | None = None, timeout: float) -> bool:
        """Wait until ``open`` connections are open and ``sending`` of them
        are still sending (either ``None``: any); whether that came in time."""

        def reached() -> bool:
            return (open is None or len(self._open) == open) and (
                sending is None or len(self._sending) == sending
            )

        with self._changed:
            return self._changed.wait_for(reached, timeout)
