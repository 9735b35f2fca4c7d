"""The systemd notify protocol, by hand: a few ``KEY=value`` lines in one datagram.

systemd passes the socket in ``$NOTIFY_SOCKET`` (a path, or an abstract name
starting with ``@``). Outside systemd the variable is unset and every call is a
no-op, so the daemon calls these unconditionally.

>>> notifier = Notifier.from_environment({})
>>> notifier.enabled, notifier.ready(), notifier.watchdog_interval()
(False, False, None)
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

__all__ = ["Notifier"]


class Notifier:
    """Tells systemd the daemon is ready, alive, what it is doing, and stopping.

    Every send returns True when the datagram went out and False otherwise
    (no socket, or a send error); it never raises, because a lost
    notification must not stop a game.

    >>> notifier = Notifier.from_environment({"NOTIFY_SOCKET": "@popref-doc-example"})
    >>> notifier.address
    '\\x00popref-doc-example'
    >>> notifier.status("Yellow to move, Pop 10 3:2")  # nobody listens on that name
    False
    """

    def __init__(self, address: str | None, watchdog_usec: int | None = None) -> None:
        self.address = address
        self._watchdog_usec = watchdog_usec
        self._socket: socket.socket | None = None

    @classmethod
    def from_environment(
        cls, env: Mapping[str, str] = os.environ, pid: int | None = None
    ) -> Notifier:
        """The notifier systemd's variables in *env* describe, for the process *pid* (ours)."""
        address = _address(env.get("NOTIFY_SOCKET", ""))
        return cls(address, _watchdog_usec(env, os.getpid() if pid is None else pid))

    @property
    def enabled(self) -> bool:
        """Whether there is a socket to notify."""
        return self.address is not None

    def ready(self) -> bool:
        """Start-up is complete: systemd marks the unit active."""
        return self.send("READY=1")

    def status(self, text: str) -> bool:
        """One line for ``systemctl status``."""
        # A newline would start a new assignment; systemd shows one line anyway.
        return self.send("STATUS=" + " ".join(text.splitlines()))

    def watchdog(self) -> bool:
        """The main loop is alive; must come more often than ``WatchdogSec``."""
        return self.send("WATCHDOG=1")

    def stopping(self) -> bool:
        """A clean stop has begun."""
        return self.send("STOPPING=1")

    def watchdog_interval(self) -> float | None:
        """Seconds between watchdog pings (half the timeout), or None if systemd wants none."""
        if self._watchdog_usec is None:
            return None
        return self._watchdog_usec / 2_000_000

    def send(self, message: str) -> bool:
        """Send raw newline-separated assignments."""
        if self.address is None:
            return False
        try:
            if self._socket is None:
                self._socket = socket.socket(
                    socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
                )
            self._socket.sendto(message.encode("utf-8", "replace"), self.address)
        except OSError:
            return False
        return True

    def close(self) -> None:
        """Release the socket; a later send opens it again."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _address(value: str) -> str | None:
    # systemd also accepts "vsock:" addresses (for VMs); a Pi never gets one.
    if value.startswith("@"):
        return "\0" + value[1:]
    if value.startswith("/"):
        return value
    return None


def _watchdog_usec(env: Mapping[str, str], pid: int) -> int | None:
    watchdog_pid = env.get("WATCHDOG_PID")
    if watchdog_pid is not None:
        try:
            meant_for = int(watchdog_pid)
        except ValueError:
            return None
        if meant_for != pid:
            return None  # the watchdog is meant for another process (our parent, say)
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec if usec > 0 else None
