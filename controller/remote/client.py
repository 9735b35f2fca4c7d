"""The remote player's end of the link: follows the board's signed messages
and sends signed requests (``popref play`` and the tests and benchmarks drive
it; the remote page does the same in the browser).

Board messages are taken only when signed with the link's secret, for its
game, and numbered above the last one taken on the same topic (the broker
keeps the order of one topic, not across topics): a replayed or forged state
never moves the picture back.

A request is sent again, the very same message, every :data:`RESEND`
seconds until the board answers it or its state shows it taken
(``remote_seq``): a broker that drops it under load loses nothing, and the
board answers a number it already took with the same reply, never taking the
move twice.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.remote.address import BROWSER, TERMINAL, broker_address
from controller.remote.connection import Connection
from controller.remote.link import Link
from controller.remote.message import BOARD, REMOTE, Message, Refused, body, seal, topics, unseal
from controller.remote.presence import Presence
from controller.remote.settings import Account

log = logging.getLogger("popref")

EVENTS = 256  # board messages waiting to be read; the retained state heals a drop
RESEND = 1.0  # seconds between copies of a request the board has not answered
# A request unanswered this long with nothing at all from the broker (no state,
# reply or presence) meanwhile: the connection may be up but deaf (the board's
# side of it is watched by controller/remote/echo.py), so it is made anew.
DEAF = 15.0


class RemoteClient:
    """One remote player's connection. ``state`` is the board's last state
    (``None`` until the first arrives), ``replies`` the board's answers to
    this player's requests by their number."""

    def __init__(
        self,
        link: Link,
        name: str = "popref-play",
        wall: Callable[[], float] = time.time,
        clock: Callable[[], float] = time.monotonic,
        announce: bool = False,
        here: bool = False,
    ) -> None:
        self.link = link
        if link.broker:
            address = broker_address(link.broker, TERMINAL)
        else:
            assert link.web_broker is not None  # parse_link wants one of them
            address = broker_address(link.web_broker, BROWSER)
        self.topics = topics(link.game)
        self._wall = wall
        self._clock = clock
        # requests not yet answered: their sealed message, when it was last sent,
        # and the number of moves in the position it was for
        self._unanswered: dict[int, tuple[bytes, float, int]] = {}
        self._heard_at = clock()  # when the broker last passed this side anything
        self._waiting_since: float | None = None  # the oldest unanswered request's first copy
        self._events: queue.Queue[tuple[float, Message]] = queue.Queue(EVENTS)
        self._high = {self.topics.state: 0, self.topics.board: 0}
        self._seq = 0
        self._seq_lock = threading.Lock()
        self.state: dict[str, Any] | None = None
        self.state_seq = 0  # the number of the board's message that said ``state``
        self.replies: dict[int, dict[str, Any]] = {}
        self.moves: list[dict[str, Any]] = []  # the board's move messages, as they came
        # told each message as it is taken, with when it arrived (the benchmark)
        self.on_taken: Callable[[Message, float], None] | None = None
        # told, on the network thread, when a board message waits to be taken
        self.on_arrival: Callable[[], None] = lambda: None
        # the board's presence (a linked grid's); ``announce``: this side says
        # its own (a linked grid does); ``here``: a person's client says it is
        # open, as the friend's page does (``popref play``), which the owner sees
        self.presence = Presence()
        self._word = "presence" if announce else "here" if here else None
        self.connection = Connection(
            address,
            name,
            self._arrived,
            self._connected,
            Account(link.user, link.password),
            will=self._will if self._word is not None else None,
            retain_will=self._word == "presence",
        )

    def start(self) -> None:
        self.connection.subscribe([self.topics.state, self.topics.board])
        self.connection.start()

    def close(self) -> None:
        if self._word is not None and self.connection.connected.is_set():
            self.say_present(up=False)  # a goodbye leaves no will behind
        self.connection.close()

    # -- sending -----------------------------------------------------------------------------

    def _connected(self) -> None:
        self._heard_at = self._clock()  # a new connection: its silence counts from now
        if self._word is not None:
            self.say_present()
        self.hello()

    def say_present(self, up: bool = True) -> None:
        """Tell the board this connection is here (or leaving): a grid's
        presence is retained (docs/remote.md), a person's ``here`` is not."""
        assert self._word is not None
        value = {"up": up, "conn": self.connection.conn}
        self.send(self._word, value, retain=self._word == "presence")

    def _will(self, conn: str) -> tuple[str, bytes]:
        assert self._word is not None
        seq = self.next_seq()
        gone = Message(self.link.game, REMOTE, seq, self._word, body({"up": False, "conn": conn}))
        return self.topics.remote, seal(self.link.key, gone)

    def hello(self) -> None:
        """Ask the board for its state (also sent at each connection)."""
        self.send("hello", {"client": "popref play"})

    def request(self, move: str, ply: int) -> int:
        """Ask for ``move`` in the position after ``ply`` moves; its number.
        It is sent again until answered (:meth:`resend`)."""
        return self.send("request", {"ply": ply, "move": move})

    def send(self, kind: str, value: dict[str, Any], retain: bool = False) -> int:
        seq = self.next_seq()
        message = Message(self.link.game, REMOTE, seq, kind, body(value))
        sealed = seal(self.link.key, message)
        if kind == "request":
            if not self._unanswered:
                self._waiting_since = self._clock()
            self._unanswered[seq] = (sealed, self._clock(), value["ply"])
        self.connection.publish(self.topics.remote, sealed, retain=retain)
        return seq

    def answered(self, seq: int) -> bool:
        """Whether the board answered request ``seq``, or its state shows it
        taken: its move waits to be made, or the game moved on since (the
        reply lost, and not kept by a board that restarted since)."""
        if seq in self.replies:
            return True
        state = self.state or {}
        taken = state.get("remote_seq")
        if not isinstance(taken, int) or taken < seq or seq not in self._unanswered:
            return False
        return state.get("remote") is not None or state.get("ply") != self._unanswered[seq][2]

    def unanswered(self) -> bool:
        """Whether a request waits for the board's answer."""
        return bool(self._unanswered)

    def resend(self) -> None:
        """Send again each request unanswered for :data:`RESEND` seconds,
        while the broker is there: copies made while it is away would only
        wait in the connection's queue, and a long outage filled it (a copy
        a second), so that the presence and hello this side says as it
        connects again were dropped and the link stayed down. The first
        call after a reconnection sends every one of them."""
        if not self.connection.connected.is_set():
            return
        now = self._clock()
        for seq, (sealed, sent, ply) in list(self._unanswered.items()):
            if self.answered(seq):
                del self._unanswered[seq]
            elif now - sent >= RESEND:
                self._unanswered[seq] = (sealed, now, ply)
                self.connection.publish(self.topics.remote, sealed)
        if not self._unanswered:
            self._waiting_since = None
            return
        waiting = now if self._waiting_since is None else self._waiting_since
        if now - max(self._heard_at, waiting) >= DEAF:
            log.warning(
                "Nothing from the broker at %s for %d s while a request waits; connecting again.",
                self.connection.address.url,
                round(now - self._heard_at),
            )
            self.connection.reconnect()
            self._heard_at = now

    def next_seq(self) -> int:
        """Above every number this player used, here or in an earlier run
        (the board's state says the last it took; the clock's milliseconds
        carry over runs that sent nothing it took)."""
        state = self.state or {}
        taken = state.get("remote_seq")
        floor = taken + 1 if isinstance(taken, int) else 1
        with self._seq_lock:
            self._seq = max(self._seq + 1, floor, int(self._wall() * 1000))
            return self._seq

    # -- receiving -----------------------------------------------------------------------------

    def _arrived(self, topic: str, payload: bytes) -> None:
        """On the network thread: check and enqueue."""
        self._heard_at = self._clock()  # the broker passes messages, whatever this one is
        if topic not in self._high:
            return
        try:
            message = unseal(self.link.key, self.link.game, BOARD, payload)
        except Refused:
            return
        if message.kind == "presence":
            # not ordered by number: a will is numbered when it is left (Presence)
            if self.presence.take(message.seq, message.fields()):
                self.on_arrival()
            return
        if message.seq <= self._high[topic]:
            return
        self._high[topic] = message.seq
        try:
            self._events.put_nowait((time.monotonic(), message))
        except queue.Full:
            return
        self.on_arrival()

    def take(self, timeout: float) -> Message | None:
        """The next board message within ``timeout`` seconds, applied."""
        try:
            arrived, message = self._events.get(timeout=timeout)
        except queue.Empty:
            return None
        fields = message.fields()
        if message.kind == "state":
            self.state = fields
            self.state_seq = message.seq
        elif message.kind == "reply" and isinstance(fields.get("request_seq"), int):
            self.replies[fields["request_seq"]] = fields
        elif message.kind == "move":
            self.moves.append(fields)
        if self.on_taken is not None:
            self.on_taken(message, arrived)
        return message

    def wait(self, done: Callable[[], bool], timeout: float | None) -> bool:
        """Take board messages until ``done()`` holds (True) or ``timeout``
        seconds pass (False; ``None``: no limit), sending unanswered requests
        again meanwhile."""
        end = None if timeout is None else time.monotonic() + timeout
        while not done():
            self.resend()
            left = RESEND if end is None else max(0.0, min(RESEND, end - time.monotonic()))
            if self.take(left) is None and left == 0.0:
                return False  # what had come is taken, and the time is up
        return True
