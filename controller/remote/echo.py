"""The board's watch on its broker. A broker may stop passing messages to a
connection that still looks alive (the fourth attack left a Mosquitto doing
this under a flood, for good: the board never heard the friend again, with
the link shown as up). After :data:`LISTEN` seconds with nothing from the
broker the board sends itself an empty message; if nothing comes within
:data:`ECHO_WAIT` it drops the connection, as a cut network would, and its
MQTT library connects again.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

log = logging.getLogger("popref")

LISTEN = 60.0
ECHO_WAIT = 15.0


class Line(Protocol):
    """What the watch needs of a connection (:class:`~controller.remote.connection.Connection`)."""

    connected: threading.Event

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None: ...

    def reconnect(self) -> None: ...


class Echo:
    """The silence on ``line``, on the loop's clock: :meth:`heard` from the
    network thread whenever anything arrives, :meth:`step` from the loop.

    >>> import threading
    >>> class Quiet:  # a connection the broker passes nothing to
    ...     connected = threading.Event()
    ...     def publish(self, topic, payload, retain=False): print("echo on", topic)
    ...     def reconnect(self): print("connecting again")
    >>> line = Quiet(); line.connected.set()
    >>> echo = Echo(line)
    >>> echo.step(0.0, "popref/1/g/remote"); echo.deadline()
    60.0
    >>> echo.step(60.0, "popref/1/g/remote"); echo.deadline()
    echo on popref/1/g/remote
    75.0
    >>> echo.step(75.0, "popref/1/g/remote")
    connecting again
    """

    def __init__(self, line: Line) -> None:
        self.line = line
        self._heard = threading.Event()  # something came from the broker since the last step
        self._silent_since: float | None = None  # None: not listening
        self._echo_at: float | None = None  # when the board sent itself an echo

    def heard(self) -> None:
        """The broker passed a message, whatever it is (the network thread)."""
        self._heard.set()

    def step(self, now: float, topic: str | None) -> None:
        """Listen on ``topic`` (the board's own request topic; ``None``:
        nothing to listen for), at ``now`` on the loop's clock."""
        if self._heard.is_set() or topic is None or not self.line.connected.is_set():
            self._heard.clear()
            self._silent_since = now if topic is not None else None
            self._echo_at = None
        elif self._silent_since is None:
            self._silent_since = now
        elif self._echo_at is None:
            if now - self._silent_since >= LISTEN:
                self.line.publish(topic, b"")  # anyone's, unsigned: only heard
                self._echo_at = now
        elif now - self._echo_at >= ECHO_WAIT:
            log.warning(
                "The broker passed nothing to this board for %d s, not even its own echo; "
                "connecting again.",
                round(now - self._silent_since),
            )
            self.line.reconnect()
            self._silent_since, self._echo_at = now, None

    def deadline(self) -> float | None:
        """When the silence is next looked at (the loop's clock), if listening."""
        if self._silent_since is None:
            return None
        return self._silent_since + LISTEN if self._echo_at is None else self._echo_at + ECHO_WAIT
