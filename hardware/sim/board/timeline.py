"""A simulated grid wired to a simulated sensor board, under the real serial
backend: the daemon's ``sim`` backend with ``[sim] link = "serial"``.

:class:`BoardTimeline` is the daemon's one timeline: the simulated grid's
wire changes and the board's main-loop passes (:func:`~hardware.sim.board.schedule.due_in`),
in time order on the daemon's clock, each pass in lock step with the host
(:class:`~hardware.sim.board.lockstep.Lockstep`), so a run in simulated time
is exactly repeatable. The host side is the real
:class:`~hardware.serial_backend.SerialBackend` with pyserial on a real pty.

>>> import tempfile, pathlib
>>> from hardware.clock import FakeClock
>>> from engine.colour import Colour
>>> clock = FakeClock()
>>> backend, grid, lights, timeline = build_simulated_serial(7, 6, clock,
...     directory=pathlib.Path(tempfile.mkdtemp()))
>>> backend.open(lambda: None)
>>> def run(until: float) -> list[object]:
...     events = []
...     while (due := max(clock(), min(timeline.next_time(), backend.next_deadline()))) <= until:
...         clock.set(due)
...         timeline.run_until(due)
...         events += backend.poll(due)
...     return events
>>> _ = run(1.0)
>>> backend.connected
True
>>> grid.drop(4, Colour.RED)
>>> run(2.0)
[DiscEntered(column=4, at=1.061, colour=None)]
>>> backend.close(); timeline.close()
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path

from hardware.clock import Clock, FakeClock
from hardware.serial_config import SerialConfig
from hardware.sim.board.firmware import Firmware
from hardware.sim.board.lockstep import Lockstep, ObservedSerialBackend
from hardware.sim.board.pins import FirmwareLights, FirmwareWires
from hardware.sim.board.schedule import due_in
from hardware.sim.board.ticks import ClockTicks
from hardware.sim.grid import Physics, SimGrid


class BoardTimeline:
    """The simulated grid and the simulated board's main loop on one clock,
    with the bytes between board and host delivered in lock step.

    The board stands for a USB-powered Pico: :meth:`unplug` powers it off,
    :meth:`replug` boots it afresh (a new boot id), :meth:`reset` restarts it
    in place. ``firmware.stream.outgoing``/``incoming`` corrupt bytes.
    """

    def __init__(
        self, grid: SimGrid, firmware: Firmware, backend: ObservedSerialBackend, clock: Clock
    ) -> None:
        assert isinstance(firmware.ticks, ClockTicks)
        self.grid = grid
        self.firmware = firmware
        self.lockstep = Lockstep(firmware, backend)
        self.clock = clock
        self._ticks: ClockTicks = firmware.ticks
        self._last = self._ticks.elapsed()  # the board's last pass, in elapsed ms
        self.passes = 0
        self.cleanup: Callable[[], object] = firmware.close

    @property
    def backend(self) -> ObservedSerialBackend:
        """The host's backend the board's bytes go to."""
        return self.lockstep.backend

    @backend.setter
    def backend(self, backend: ObservedSerialBackend) -> None:
        self.lockstep.backend = backend

    # -- the Timeline protocol ---------------------------------------------------

    def next_time(self) -> float | None:
        times = [t for t in (self.grid.next_time(), self._board_due()) if t is not None]
        return min(times) if times else None

    def run_until(self, t: float) -> None:
        """Run the grid's changes and the board's passes due up to ``t``, in
        time order (a wire change at the same moment as a pass comes first)."""
        while True:
            grid_at = self.grid.next_time()
            board_at = self._board_due()
            if board_at is not None and board_at <= t and (grid_at is None or board_at < grid_at):
                if isinstance(self.clock, FakeClock) and board_at > self.clock():
                    self.clock.set(board_at)
                self._pass()
            elif grid_at is not None and grid_at <= t:
                self.grid.run_until(grid_at)
            else:
                break
        self.grid.run_until(t)

    # -- the board's passes ---------------------------------------------------------

    def _board_due(self) -> float | None:
        if not self.firmware.powered:
            return None
        at = self._last + due_in(self.firmware, self._ticks.ticks_at(self._last))
        if self.lockstep.host_waiting():
            # bytes from the host end the board's poll(): it reads them at once
            at = min(at, max(self._last, self._ticks.elapsed()))
        return self._ticks.time_of(at)

    def _pass(self) -> None:
        self.lockstep.run_pass(self.firmware.step_now)
        self._last = self._ticks.elapsed()
        self.passes += 1

    # -- the board's life ----------------------------------------------------------

    def reset(self, boot_id: int) -> None:
        """The board restarts where it is (a watchdog, a brown-out)."""
        self.firmware.reset(boot_id)
        self._last = self._ticks.elapsed()

    def unplug(self) -> None:
        """Pull the USB cable: the board loses power and its port goes away.
        Returns once the host's reader has noticed."""
        self.lockstep.unplug()
        self.firmware.powered = False

    def replug(self, boot_id: int) -> None:
        """Plug the cable back in: a new port, a board booting afresh."""
        self.firmware.plug()
        self.reset(boot_id)

    def close(self) -> None:
        """Unplug for good (and remove the port's directory if it was made
        for this board)."""
        self.cleanup()


def build_simulated_serial(
    columns: int,
    rows: int,
    clock: Clock,
    physics: Physics | None = None,
    seed: int = 0,
    colour_sensing: bool = False,
    *,
    directory: Path | None = None,
    serial: SerialConfig | None = None,
    boot_id: int | None = None,
) -> tuple[ObservedSerialBackend, SimGrid, FirmwareLights, BoardTimeline]:
    """A whole simulated sensor board: the backend the daemon uses, the grid
    that drives the firmware's pins, a reader of its LED strip, and the
    timeline the daemon's loop must run (grid and board together).

    ``directory`` holds the board's port name (a temporary directory,
    removed with the timeline, by default). ``serial`` holds the host's
    ``[serial]`` timings; its ``port`` is replaced by the simulated board's.
    The sensor board does not sense colour, so ``colour_sensing`` must be
    false.
    """
    if colour_sensing:
        raise ValueError("the sensor board does not sense disc colour")
    owned = directory is None
    where = Path(tempfile.mkdtemp(prefix="popref-board-")) if directory is None else directory
    port = str(where / "ttyPOPREF")
    config = dataclasses.replace(serial, port=port) if serial else SerialConfig(port)
    if boot_id is None:
        # a real board picks a random boot id at power-up; so does this one,
        # so a board simulated again after a restart is a board that rebooted
        boot_id = int.from_bytes(os.urandom(4), "big")
    firmware = Firmware(where, boot_id=boot_id, columns=columns, clock=clock)
    firmware.start()
    backend = ObservedSerialBackend(config, columns=columns, rows=rows)
    grid = SimGrid(columns, rows, FirmwareWires(firmware), clock, physics, seed)
    timeline = BoardTimeline(grid, firmware, backend, clock)
    if owned:
        # the port's directory goes with the board, even if nobody closes it
        timeline.cleanup = weakref.finalize(timeline, _remove, firmware, where)
    return backend, grid, FirmwareLights(firmware), timeline


def _remove(firmware: Firmware, where: Path) -> None:
    with contextlib.suppress(OSError):
        firmware.close()
    shutil.rmtree(where, ignore_errors=True)
