"""The latest state, handed to any number of event-stream clients.

The daemon's loop publishes; each client's own thread waits for a newer
version than the one it sent last. Publishing never waits for a client, so a
slow phone (or one that stopped reading) can delay nobody but itself; a
client that falls behind skips to the newest state, which is all a display
needs.

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
from typing import Any

from controller.i18n.text import ENGLISH, localized


class StateHub:
    """One published state (as JSON bytes) and the clients following it."""

    def __init__(self, max_clients: int) -> None:
        self.max_clients = max_clients
        self._changed = threading.Condition()
        self._version = 0
        self._data = b"{}"
        self._state: dict[str, Any] = {}
        # the state in each reader's language, made once per version when asked
        self._localized: dict[str, bytes] = {}
        self._clients = 0
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

    def wait(self, seen: int, timeout: float, language: str = ENGLISH) -> tuple[int, bytes | None]:
        """The version and data (sentences in ``language``) newer than
        ``seen``, or ``(seen, None)`` after ``timeout`` seconds (or once the hub
        closes) without one."""
        with self._changed:
            self._changed.wait_for(lambda: self._version != seen or self.closed, timeout)
            version = self._version
            if version == seen:
                return seen, None
            if language == ENGLISH:
                return version, self._data
        return version, self._data_in(version, language)

    def join(self) -> bool:
        """Take a client slot; ``False`` when all :attr:`max_clients` are taken."""
        with self._changed:
            if self._clients >= self.max_clients or self.closed:
                return False
            self._clients += 1
            return True

    def leave(self) -> None:
        with self._changed:
            self._clients -= 1

    @property
    def clients(self) -> int:
        with self._changed:
            return self._clients

    def close(self) -> None:
        """Wake every waiting client so its stream ends."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()
