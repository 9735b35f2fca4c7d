"""The board's end of the USB line: the master side of a pseudo-terminal.

The host opens the slave end *by name* with pyserial, through a symlink that
:class:`~hardware.sim.board.firmware.Firmware` re-points on every plug, like a
udev ``/dev/serial/by-id`` link (and removes on unplug, as udev does).

Example::

    stream = PtyStream()
    stream.fd = master_fd
    stream.connected = True      # the host opened the port: DTR is up
    stream.write(frame)
    data = stream.read()
    stream.wait(5)               # the firmware's loop: until bytes arrive, or 5 ms
"""

from __future__ import annotations

import os
import select
from collections.abc import Callable

SYNC_TIMEOUT = 5.0  # seconds: bytes that take longer to cross a pty are a bug

Filter = Callable[[bytes], bytes]


class PtyStream:
    """The firmware's ``read()``/``write()`` stream over a pty master.

    ``connected`` models DTR: like the Pico's USB CDC, bytes the board writes
    while no host has the port open are dropped. ``outgoing``/``incoming``
    filters corrupt or drop bytes on the way out of or into the board.
    """

    def __init__(self) -> None:
        self.fd: int | None = None
        self.connected = False
        self.sent = 0  # bytes put into the pty since the host connected
        self.received = 0  # bytes read from the pty since the host connected (before filters)
        self.outgoing: Filter | None = None
        self.incoming: Filter | None = None
        self._pending = bytearray()

    def pull(self) -> None:
        """Move what the pty holds into this stream's own buffer."""
        if self.fd is None:
            return
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # EAGAIN: nothing yet; EIO: nobody on the other end
            return
        self.received += len(data)
        self._pending += data

    def read(self) -> bytes:
        self.pull()
        data = bytes(self._pending)
        self._pending.clear()
        return self.incoming(data) if self.incoming and data else data

    def write(self, data: bytes | bytearray) -> None:
        if self.fd is None or not self.connected:
            return
        data = self.outgoing(bytes(data)) if self.outgoing else bytes(data)
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except BlockingIOError:
                select.select([], [self.fd], [], SYNC_TIMEOUT)
                continue
            except OSError:  # EIO: the host closed its end; the bytes are lost
                return
            self.sent += n
            view = view[n:]

    def wait(self, ms: int) -> None:
        """The firmware's ``Link.wait``: block until the host's bytes arrive
        or ``ms`` milliseconds pass (a board run on the real clock)."""
        if self.fd is not None and not self._pending:
            select.select([self.fd], [], [], ms / 1000)

    def wait_readable(self, timeout: float) -> bool:
        if self.fd is None:
            return False
        ready, _, _ = select.select([self.fd], [], [], timeout)
        return bool(ready)

    def reconnected(self) -> None:
        """The host opened the port afresh: count from here, forget old input."""
        self.sent = 0
        self.received = 0
        self._pending.clear()
