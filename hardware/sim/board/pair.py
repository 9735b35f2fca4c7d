"""A firmware and the host's backend stepped together, one simulated
millisecond per :meth:`Pair.tick`, for tests and ``bench/serial.py``.

It waits for bytes to cross the pty (``select`` and an event, with
timeouts), never sleeps.

Example::

    with Firmware(tmp_path) as fw:
        pair = Pair(fw, columns=7)
        pair.run_until(lambda: pair.backend.connected, ms=1000)
        fw.wires.beam(Beam.ENTRY, 3, True)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from hardware.clock import FakeClock
from hardware.events import Event
from hardware.serial_backend import SerialBackend
from hardware.serial_config import SerialConfig
from hardware.sim.board.firmware import Firmware
from hardware.sim.board.stream import SYNC_TIMEOUT


class Pair:
    """A firmware on hand-moved ticks and a :class:`SerialBackend` on a
    :class:`FakeClock`, in lock step."""

    def __init__(self, firmware: Firmware, columns: int | None = None, **config: Any) -> None:
        self.fw = firmware
        self.clock = FakeClock(100.0)
        self.config = SerialConfig(port=firmware.port, **config)
        self.backend = SerialBackend(self.config, columns=columns or firmware.columns, rows=6)
        self._woken = threading.Event()
        self.events: list[Event] = []
        self._link: Any = None
        self.backend.open(self._woken.set)

    def tick(self, ms: int = 1) -> list[Event]:
        fw, stream = self.fw, self.fw.stream
        link: Any = self.backend.port_link
        if link is not self._link:
            self._link = link
            if link is not None and stream.fd is not None:
                # The host has just opened this pty: DTR goes up on the board.
                stream.connected = True
                stream.reconnected()
        live = link is not None and stream.connected and stream.fd is not None
        if live:
            while stream.received < link.bytes_out:
                if not stream.wait_readable(SYNC_TIMEOUT):
                    raise TimeoutError("the host's bytes never reached the board")
                stream.pull()
        fw.step(ms)
        self.clock.advance(ms / 1000)
        if live:
            while link.bytes_in < stream.sent:
                self._woken.clear()
                if link.bytes_in >= stream.sent:
                    break
                if not self._woken.wait(SYNC_TIMEOUT):
                    raise TimeoutError("the board's bytes never reached the host")
        new = self.backend.poll(self.clock())
        self.events += new
        return new

    def run(self, ms: int) -> list[Event]:
        out: list[Event] = []
        for _ in range(ms):
            out += self.tick()
        return out

    def run_until(self, done: Callable[[], bool], ms: int) -> bool:
        for _ in range(ms):
            if done():
                return True
            self.tick()
        return done()

    def unplug(self) -> None:
        """Pull the cable, and wait until the host's reader has noticed."""
        link = self.backend.port_link
        self.fw.unplug()
        if link is not None and not link.ended.wait(SYNC_TIMEOUT):
            raise TimeoutError("the host never noticed the unplug")

    def close(self) -> None:
        self.backend.close()
