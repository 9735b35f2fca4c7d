"""A firmware and the host's backend stepped together, one simulated
millisecond per :meth:`Pair.tick`, for tests and ``bench/serial.py``.

The bytes between them cross the pty in
:class:`~hardware.sim.board.lockstep.Lockstep`, as under the daemon's
:class:`~hardware.sim.board.timeline.BoardTimeline`.

Example::

    with Firmware(tmp_path) as fw:
        pair = Pair(fw, columns=7)
        pair.run_until(lambda: pair.backend.connected, ms=1000)
        fw.wires.beam(Beam.ENTRY, 3, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hardware.clock import FakeClock
from hardware.events import Event
from hardware.serial_config import SerialConfig
from hardware.sim.board.firmware import Firmware
from hardware.sim.board.lockstep import Lockstep, ObservedSerialBackend


class Pair:
    """A firmware on hand-moved ticks and a :class:`SerialBackend` on a
    :class:`FakeClock`, in :class:`Lockstep`."""

    def __init__(self, firmware: Firmware, columns: int | None = None, **config: Any) -> None:
        self.fw = firmware
        self.clock = FakeClock(100.0)
        self.config = SerialConfig(port=firmware.port, **config)
        self.backend = ObservedSerialBackend(
            self.config, columns=columns or firmware.columns, rows=6
        )
        self.lockstep = Lockstep(firmware, self.backend)
        self.events: list[Event] = []
        self.backend.open(lambda: None)

    def tick(self, ms: int = 1) -> list[Event]:
        self.lockstep.run_pass(lambda: self.fw.step(ms))
        self.clock.advance(ms / 1000)
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
        self.lockstep.unplug()

    def close(self) -> None:
        self.backend.close()
