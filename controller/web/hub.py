"""The latest state, handed to any number of event-stream clients.

The daemon's loop publishes; each client's own thread waits for a newer
version than the one it sent last. Publishing never waits for a client, so a
slow phone (or one that stopped reading) can delay nobody but itself; a
client that falls behind skips to the newest state, which is all a display
needs.

The streams are capped, and so are those of one address
(:data:`PER_ADDRESS`; a follower whose ``address`` is ``None`` is no
one's). A new stream is never turned away: past a cap, the stream least
worth keeping gives its place up (:meth:`StateHub.join`), so a page that
reads always gets its updates, however many streams someone else holds.

>>> hub = StateHub(max_clients=2)
>>> hub.publish({"status": "Red to move."})
>>> hub.wait(0, timeout=0.0)
(1, b'{"status": "Red to move."}')
>>> hub.wait(1, timeout=0.0)
(1, None)
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any, Protocol

from controller.i18n.text import ENGLISH, localized

PER_ADDRESS = 8  # event streams of one address: a household's pages behind one NAT
BEHIND = -2  # what a stream has sent, while its client is behind


class Follower(Protocol):
    """An event stream's connection (:class:`controller.web.connections.Connection`)."""

    address: str | None  # whose it is for the per-address cap; None: no one's

    def evict(self) -> None:
        """End its reads and writes: its place went to another."""

    def unsent(self) -> int:
        """Bytes sent that its client has not taken yet."""


class StateHub:
    """One published state (as JSON bytes) and the clients following it."""

    def __init__(self, max_clients: int, per_address: int = PER_ADDRESS) -> None:
        self.max_clients = max_clients
        self.per_address = per_address
        lock = threading.RLock()
        self._changed = threading.Condition(lock)  # a new version, or a stream dropped
        self._caught_up = threading.Condition(lock)  # a stream sent a version, or left
        self._version = 0
        self._data = b"{}"
        self._state: dict[str, Any] = {}
        # the state in each reader's language, made once per version when asked
        self._localized: dict[str, bytes] = {}
        # each stream, oldest first, and the version it sent last
        self._followers: dict[Follower, int] = {}
        self.closed = False

    def publish(self, state: dict[str, Any]) -> None:
        """A new state; safe from any thread, never blocks on a client."""
        data = json.dumps(state).encode()
        with self._changed:
            self._state = state
            self._data = data
            self._localized = {}
            self._version += 1
            self._changed.notify_all()

    def current(self, language: str = ENGLISH) -> tuple[int, bytes]:
        """The latest version and its data, with the sentences in ``language``."""
        with self._changed:
            version = self._version
        return version, self._data_in(version, language)

    def _data_in(self, version: int, language: str) -> bytes:
        """The data of ``version`` (or a newer one) in ``language``; the
        translation is made outside the lock, so publishing never waits for it."""
        with self._changed:
            if language == ENGLISH:
                return self._data
            cached = self._localized.get(language)
            if cached is not None:
                return cached
            version, state = self._version, self._state
        data = json.dumps(localized(state, language)).encode()
        with self._changed:
            if self._version == version:
                self._localized[language] = data
        return data

    def state(self) -> dict[str, Any]:
        """The latest state object (do not mutate)."""
        with self._changed:
            return self._state

    def wait(
        self,
        seen: int,
        timeout: float,
        language: str = ENGLISH,
        follower: Follower | None = None,
    ) -> tuple[int, bytes | None]:
        """The version and data (sentences in ``language``) newer than
        ``seen``, or ``(seen, None)`` after ``timeout`` seconds (or once the hub
        closes, or ``follower`` has given its place up) without one."""
        with self._changed:
            if follower in self._followers:
                assert follower is not None
                self._followers[follower] = seen
                self._caught_up.notify_all()
            self._changed.wait_for(
                lambda: self._version != seen or not self.follows(follower), timeout
            )
            version = self._version
            if version == seen or not self.follows(follower):
                return seen, None
            if language == ENGLISH:
                return version, self._data
        return version, self._data_in(version, language)

    def join(self, follower: Follower) -> bool:
        """Take a stream's place for ``follower``; ``False`` only once the hub
        is closed. Past :attr:`per_address` streams of its address, or
        :attr:`max_clients` in all, one gives its place up: one whose client
        has not taken all that was sent it (it does not read, or not yet),
        else the oldest of the address holding the most, else the oldest."""
        with self._changed:
            if self.closed:
                return False
            if follower.address is not None:
                mine = [f for f in self._followers if f.address == follower.address]
                if len(mine) >= self.per_address:
                    self._drop(self._least(mine))
            if len(self._followers) >= self.max_clients > 0:
                self._drop(self._least(list(self._followers)))
            self._followers[follower] = -1
            return True

    @staticmethod
    def _least(among: list[Follower]) -> Follower:
        """Of ``among`` (oldest first), the stream least worth keeping."""
        for follower in among:
            if follower.unsent() > 0:
                return follower
        held = Counter(f.address for f in among if f.address is not None)
        if held:
            address, most = held.most_common(1)[0]
            if most > 1:
                return next(f for f in among if f.address == address)
        return among[0]

    def _drop(self, follower: Follower) -> None:
        del self._followers[follower]
        follower.evict()
        self._changed.notify_all()
        self._caught_up.notify_all()

    def pause(self, follower: Follower, timeout: float) -> None:
        """``follower`` sends nothing for up to ``timeout`` seconds (its client
        is behind): it counts as caught up meanwhile."""
        with self._changed:
            if follower in self._followers:
                self._followers[follower] = BEHIND
                self._caught_up.notify_all()
            self._changed.wait_for(lambda: not self.follows(follower), timeout)

    def follows(self, follower: Follower | None) -> bool:
        """Whether ``follower`` (``None``: anyone) still has its place."""
        with self._changed:
            return not self.closed and (follower is None or follower in self._followers)

    def leave(self, follower: Follower) -> None:
        with self._changed:
            self._followers.pop(follower, None)
            self._caught_up.notify_all()

    @property
    def clients(self) -> int:
        with self._changed:
            return len(self._followers)

    def caught_up(self, timeout: float) -> bool:
        """Wait until every stream has sent the latest version, or waits
        for its client to take what it sent (or left); whether that came
        within ``timeout`` seconds."""
        with self._changed:
            return self._caught_up.wait_for(
                lambda: all(seen in (self._version, BEHIND) for seen in self._followers.values()),
                timeout,
            )

    def wait_clients(self, clients: int, timeout: float) -> bool:
        """Wait until ``clients`` streams follow; whether that came in time."""
        with self._changed:
            return self._caught_up.wait_for(lambda: len(self._followers) == clients, timeout)

    def behind(self) -> int:
        """How many streams wait for their client to take what they sent."""
        with self._changed:
            return sum(seen == BEHIND for seen in self._followers.values())

    def close(self) -> None:
        """Wake every waiting client so its stream ends."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()
            self._caught_up.notify_all()
