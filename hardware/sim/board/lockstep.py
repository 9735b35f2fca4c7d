"""A simulated board and the host's serial backend in lock step.

Before each pass of the board's main loop, every byte the host has written
has reached the board; after it, every byte the board wrote has reached the
host's reader thread. :class:`Lockstep` waits for bytes to cross the pty
(``select`` and an event, with timeouts), never sleeps, so a run in
simulated time is exactly repeatable. It is the one lock step under both
:class:`~hardware.sim.board.pair.Pair` (a pass per hand-moved millisecond)
and :class:`~hardware.sim.board.timeline.BoardTimeline` (a pass when the
firmware has something due, on the daemon's clock).

Example::

    lockstep = Lockstep(firmware, ObservedSerialBackend(config))
    lockstep.run_pass(firmware.step_now)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from hardware.serial_backend import SerialBackend
from hardware.serial_config import SerialConfig
from hardware.serial_port import PortLink
from hardware.sim.board.stream import SYNC_TIMEOUT

if TYPE_CHECKING:
    from hardware.sim.board.firmware import Firmware


class ObservedSerialBackend(SerialBackend):
    """The real :class:`SerialBackend`; its reader's wake-ups also set
    :attr:`woken`, so the simulated board can wait for its bytes to arrive."""

    def __init__(self, config: SerialConfig, columns: int = 7, rows: int = 6) -> None:
        super().__init__(config, columns=columns, rows=rows)
        self.woken = threading.Event()

    def open(self, wake: Callable[[], None]) -> None:
        def tee() -> None:
            wake()
            self.woken.set()

        super().open(tee)


class Lockstep:
    """The bytes between ``firmware`` and ``backend``, delivered around each
    of the board's passes."""

    def __init__(self, firmware: Firmware, backend: ObservedSerialBackend) -> None:
        self.firmware = firmware
        self.backend = backend
        self._link: PortLink | None = None

    def host_link(self) -> PortLink | None:
        """The host's open port, raising DTR on the board when it is new
        (like the Pico's USB CDC, the board drops what it writes while no
        host has the port open)."""
        link = self.backend.port_link
        stream = self.firmware.stream
        if link is not self._link:
            self._link = link
            stream.connected = link is not None and stream.fd is not None
            stream.reconnected()
        if link is None or not stream.connected or stream.fd is None or link.ended.is_set():
            return None
        return link

    def host_waiting(self) -> bool:
        """Whether the host has written bytes the board has not read yet."""
        link = self.host_link()
        return link is not None and link.bytes_out > self.firmware.stream.received

    def run_pass(self, step: Callable[[], None]) -> None:
        """Deliver the host's bytes, run one pass (``step``), and wait until
        the board's bytes have reached the host."""
        stream = self.firmware.stream
        link = self.host_link()
        if link is not None:
            while stream.received < link.bytes_out:
                if not stream.wait_readable(SYNC_TIMEOUT):
                    raise TimeoutError("the host's bytes never reached the simulated board")
                stream.pull()
        step()
        if link is not None:
            woken = self.backend.woken
            while link.bytes_in < stream.sent and not link.ended.is_set():
                woken.clear()
                if link.bytes_in >= stream.sent or link.ended.is_set():
                    break
                if not woken.wait(SYNC_TIMEOUT):
                    raise TimeoutError("the simulated board's bytes never reached the host")

    def unplug(self) -> None:
        """Pull the cable: the board's port goes away. Returns once the
        host's reader has noticed."""
        link = self.backend.port_link
        self.firmware.unplug()
        if link is not None and not link.ended.wait(SYNC_TIMEOUT):
            raise TimeoutError("the host never noticed the unplug")
