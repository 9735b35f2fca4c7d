"""The sensor board's firmware, run under CPython on stand-in pins and a pty.

:class:`Firmware` loads ``firmware/*.py`` (and the shared ``hardware/wire.py``,
``hardware/timing.py`` and ``hardware/looks.py`` as the board's ``wire``,
``timing`` and ``looks``) with the stand-ins in :mod:`hardware.sim.board.standins`
for ``machine``, ``neopixel`` and ``micropython``, and connects the board's stream
to the master end of ``os.openpty()``. The stand-ins and the firmware's
modules are importable under their MicroPython names only while one board
loads them (under a lock, and ``sys.modules`` is put back at once), so every
board has its own copies and nothing else in the process sees them. Each
board's ``time`` is its own tick source: :class:`FakeTicks` moved by hand, or
:class:`ClockTicks` on the daemon's clock.

Example::

    with Firmware(tmp_path) as fw:
        fw.wires.beam(Beam.ENTRY, 3, True)
        fw.step(10)
        fw.board.drops
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
import threading
import tty
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from hardware.clock import Clock
from hardware.errors import HardwareError
from hardware.sim.board.pins import FirmwareLights, FirmwareWires
from hardware.sim.board.stream import PtyStream
from hardware.sim.board.ticks import ClockTicks, FakeTicks, Ticks
from hardware.sim.seam import Beam

HERE = Path(__file__).resolve().parent
STANDINS = HERE / "standins"
ROOT = HERE.parents[2]  # hardware/sim/board -> the checkout
FIRMWARE = ROOT / "firmware"
SHARED = ("wire", "timing", "looks")  # hardware/NAME.py, deployed to the board as NAME.py
FAKES = ("machine", "neopixel", "micropython")
FIRMWARE_MODULES = (*SHARED, "main", "board", "lights", "link", "outputs", "sensors", "pinmap")

_loading = threading.Lock()  # sys.path and sys.modules are shared by every thread


def _load_modules() -> dict[str, ModuleType]:
    """Fresh copies of the stand-ins and the firmware's modules."""
    if not (FIRMWARE / "main.py").is_file():
        raise HardwareError(
            f"{FIRMWARE}: the firmware is not there; the simulated sensor board runs it "
            'from a source checkout of popref (or use [sim] link = "gpio")'
        )
    names = (*FAKES, *FIRMWARE_MODULES)
    modules: dict[str, ModuleType] = {}
    with _loading:
        saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
        sys.path[:0] = [str(FIRMWARE), str(STANDINS)]
        try:
            for name in SHARED:
                path = ROOT / "hardware" / (name + ".py")
                spec = importlib.util.spec_from_file_location(name, path)
                assert spec is not None and spec.loader is not None
                shared = importlib.util.module_from_spec(spec)
                sys.modules[name] = shared
                spec.loader.exec_module(shared)
            for name in names:
                modules[name] = importlib.import_module(name)
        finally:
            for entry in (str(FIRMWARE), str(STANDINS)):
                sys.path.remove(entry)
            for name in names:
                sys.modules.pop(name, None)
            sys.modules.update(saved)
    return modules


class Firmware:
    """One simulated board: its own modules, pins, tick source and pty.

    ``clock``: read the board's ticks from this clock (the daemon's) instead
    of moving them by hand with :meth:`step`.
    """

    def __init__(
        self,
        directory: Path,
        boot_id: int = 0x1234,
        columns: int = 7,
        cells: int = 1,
        ticks_start: int = 0,
        clock: Clock | None = None,
    ) -> None:
        self.port = str(directory / "ttyPOPREF")
        self.boot_id = boot_id
        self.columns = columns
        self.cells = cells
        self.ticks: Ticks = ClockTicks(clock, ticks_start) if clock else FakeTicks(ticks_start)
        self.stream = PtyStream()
        self.wires = FirmwareWires(self)
        self.lights = FirmwareLights(self)
        self.powered = False
        self._modules: dict[str, ModuleType] = {}
        self.board: Any = None

    def __enter__(self) -> Firmware:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        """Load the firmware, plug the board in and boot it."""
        self._modules = _load_modules()
        timing = self.ticks.module()
        for module in self._modules.values():
            if hasattr(module, "time"):
                module.time = timing  # type: ignore[attr-defined]
        pinmap: Any = self._modules["pinmap"]
        if self.columns != pinmap.COLUMNS:
            pinmap.COLUMNS = self.columns
            pinmap.ENTRY_PINS = tuple(100 + c for c in range(self.columns))
            pinmap.EXIT_PINS = tuple(200 + c for c in range(self.columns))
        pinmap.CELLS = self.cells
        self.plug()
        # The wires at rest before the board boots: beams clear, slider closed,
        # button up. Set through the pins so the firmware's pull-ups do not win.
        for column in range(1, self.columns + 1):
            self.wires.beam(Beam.ENTRY, column, False)
            self.wires.beam(Beam.EXIT, column, False)
        self.wires.slider(False)
        self.wires.button(False)
        self.board = self._modules["main"].build(self.stream, self.boot_id)
        self.powered = True

    def close(self) -> None:
        self.unplug()

    def module(self, name: str) -> Any:
        return self._modules[name]

    def pin(self, number: int) -> Any:
        return self._modules["machine"].Pin(number)

    # -- the board's life -----------------------------------------------------

    def step(self, ms: int = 1) -> None:
        """Let ``ms`` milliseconds pass on hand-moved ticks, then run the main
        loop once."""
        if not isinstance(self.ticks, FakeTicks):
            raise TypeError("this board's ticks follow a clock: call step_now()")
        self.ticks.advance(ms)
        self.board.step()

    def step_now(self) -> None:
        """One pass of the board's main loop at the current tick."""
        self.board.step()

    def reset(self, boot_id: int) -> None:
        """A reset mid-game: the same pins, a fresh program, counters at zero."""
        self.boot_id = boot_id
        self.board = self._modules["main"].build(self.stream, boot_id)
        self.powered = True

    def plug(self) -> None:
        """Plug the board in: a new pty, and the port's name pointing at it."""
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        name = os.ttyname(slave)
        os.close(slave)
        self.stream.fd = master
        self.stream.connected = False
        link = self.port + ".new"
        Path(self.port).parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
        os.symlink(name, link)
        os.replace(link, self.port)

    def unplug(self) -> None:
        """Pull the cable: the pty goes, and so does the port's name (a freed
        pty number may be handed to another board before this one returns)."""
        if self.stream.fd is not None:
            os.close(self.stream.fd)
            self.stream.fd = None
        self.stream.connected = False
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)
