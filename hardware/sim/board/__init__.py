"""A simulated sensor board: the real firmware under CPython on a real pty.

- :class:`Firmware`: the firmware's own modules on stand-in pins
  (:mod:`hardware.sim.board.standins`), a tick source and the master end of a
  pty whose slave the host opens by name.
- :class:`FirmwareWires`/:class:`FirmwareLights`: the simulated grid's seam
  (:mod:`hardware.sim.seam`) on the board's pins and LED strip.
- :func:`build_simulated_serial`: the daemon's ``sim`` backend over the
  serial link: the real :class:`~hardware.serial_backend.SerialBackend`, a
  :class:`~hardware.sim.grid.SimGrid` on the board's pins, the strip reader and
  the :class:`BoardTimeline` that runs grid and board together.
- :class:`Lockstep`: the bytes between board and host delivered around each
  of the board's passes, under both of these:
- :class:`Pair`: a board and a backend in millisecond lock step (tests, bench).

Example::

    backend, grid, lights, timeline = build_simulated_serial(7, 6, FakeClock())
"""

from hardware.sim.board.firmware import Firmware
from hardware.sim.board.lockstep import Lockstep, ObservedSerialBackend
from hardware.sim.board.pair import Pair
from hardware.sim.board.pins import FirmwareLights, FirmwareWires
from hardware.sim.board.stream import PtyStream
from hardware.sim.board.ticks import ClockTicks, FakeTicks
from hardware.sim.board.timeline import BoardTimeline, build_simulated_serial

__all__ = [
    "BoardTimeline",
    "ClockTicks",
    "FakeTicks",
    "Firmware",
    "FirmwareLights",
    "FirmwareWires",
    "Lockstep",
    "ObservedSerialBackend",
    "Pair",
    "PtyStream",
    "build_simulated_serial",
]
