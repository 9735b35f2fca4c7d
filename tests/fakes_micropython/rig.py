"""Run the sensor board's firmware under CPython, wired to a real pty.

:class:`Firmware` loads ``firmware/*.py`` (and ``hardware/wire.py`` as the
board's ``wire``) with this directory's stand-ins for ``machine``,
``neopixel`` and ``micropython``, and connects the board's stream to the
master end of ``os.openpty()``. The host opens the slave end *by name*, via a
symlink that a replug re-points, like a udev ``/dev/serial/by-id`` link.

:class:`Pair` drives a firmware and a :class:`~hardware.serial_backend.SerialBackend`
in lock step, one simulated millisecond per :meth:`Pair.tick`, waiting for
bytes to cross the pty (``select`` and an event, with timeouts; never sleeps).

Example::

    with Firmware(tmp_path) as fw:
        pair = Pair(fw, columns=7)
        pair.run_until(lambda: pair.backend.connected, ms=1000)
        fw.wires.beam(Beam.ENTRY, 3, True)
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import select
import sys
import threading
import tty
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, ClassVar

from engine.colour import Colour
from hardware.clock import FakeClock
from hardware.events import Event
from hardware.serial_backend import SerialBackend
from hardware.serial_config import SerialConfig
from hardware.simwires import Beam, ShownLights

from .ticks import FakeTicks

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FIRMWARE = ROOT / "firmware"
WIRE = ROOT / "hardware" / "wire.py"
FAKES = ("machine", "neopixel", "micropython")
FIRMWARE_MODULES = ("wire", "main", "board", "lights", "link", "outputs", "sensors", "pinmap")
SYNC_TIMEOUT = 5.0

Filter = Callable[[bytes], bytes]


class PtyStream:
    """The board's end of the USB line: the master side of a pty.

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
            self.sent += n
            view = view[n:]

    def wait_readable(self, timeout: float) -> bool:
        if self.fd is None:
            return False
        ready, _, _ = select.select([self.fd], [], [], timeout)
        return bool(ready)


class FirmwareWires:
    """:class:`hardware.simwires.SensorWires` for the firmware's stand-in pins."""

    def __init__(self, firmware: Firmware) -> None:
        self._fw = firmware

    def beam(self, beam: Beam, column: int, blocked: bool) -> None:
        pinmap = self._fw.module("pinmap")
        pins = pinmap.ENTRY_PINS if beam is Beam.ENTRY else pinmap.EXIT_PINS
        level = blocked == pinmap.BEAM_BLOCKED_HIGH
        self._fw.pin(pins[column - 1]).drive(1 if level else 0)

    def disc_colour(self, column: int, colour: Colour | None) -> None:
        pass  # the sensor board does not sense colour

    def slider(self, open: bool) -> None:
        pinmap = self._fw.module("pinmap")
        self._fw.pin(pinmap.SLIDER_PIN).drive(1 if open == pinmap.SLIDER_OPEN_HIGH else 0)

    def button(self, pressed: bool) -> None:
        self._fw.pin(self._fw.module("pinmap").BUTTON_PIN).drive(0 if pressed else 1)


class FirmwareLights:
    """:class:`hardware.simwires.LightReader` over the strip's recent writes:
    a column blinks when it was both dark and lit within the last second."""

    NAMES: ClassVar[dict[tuple[int, int, int], str]] = {
        (64, 0, 0): "red",
        (64, 40, 0): "yellow",
        (0, 64, 0): "green",
        (40, 40, 40): "white",
    }

    def __init__(self, firmware: Firmware) -> None:
        self._fw = firmware

    def shown(self) -> ShownLights:
        board = self._fw.board
        lights = board.lights
        now = self._fw.ticks.now
        current = tuple(lights.strip[i] for i in range(lights.strip.n))
        since = lights.changed_at
        diff = self._fw.ticks.ticks_diff
        recent = [
            buf for at, buf in lights.strip.writes if diff(now, at) <= 600 and diff(at, since) >= 0
        ] or [current]
        columns: list[str | None] = []
        blinking: set[int] = set()
        for c in range(lights.columns):
            cells = range(c * lights.cells, (c + 1) * lights.cells)
            looks = [{buf[i] for i in cells} - {(0, 0, 0)} for buf in recent]
            lit = [look for look in looks if look]
            if not lit:
                columns.append(None)
                continue
            columns.append(self.NAMES.get(next(iter(lit[-1])), "white"))
            if len(lit) < len(looks):
                blinking.add(c + 1)
        red, yellow = (
            sum(
                1
                for k in range(lights.score_leds)
                if current[lights.score_at + i * lights.score_leds + k] != (0, 0, 0)
            )
            for i in range(2)
        )
        has_scores = lights.score_leds > 0 and board.shown != self._fw.module("wire").NO_DISPLAY
        return ShownLights(
            columns=tuple(columns),
            blinking=frozenset(blinking),
            turn_red=current[lights.turn_at] != (0, 0, 0),
            turn_yellow=current[lights.turn_at + 1] != (0, 0, 0),
            scores=(red, yellow) if has_scores and (red or yellow) else None,
            buzzer=board.buzzer is not None and board.buzzer.sounding,
        )


class Firmware:
    """The firmware's own modules, loaded in isolation, running on a fake clock."""

    def __init__(
        self,
        directory: Path,
        boot_id: int = 0x1234,
        columns: int = 7,
        cells: int = 1,
        ticks_start: int = 0,
    ) -> None:
        self.port = str(directory / "ttyPOPREF")
        self.boot_id = boot_id
        self.columns = columns
        self.cells = cells
        self.ticks = FakeTicks(ticks_start)
        self.stream = PtyStream()
        self.wires = FirmwareWires(self)
        self.lights = FirmwareLights(self)
        self._modules: dict[str, ModuleType] = {}
        self._saved: dict[str, ModuleType] = {}
        self._uninstall: Callable[[], None] | None = None
        self.board: Any = None

    def __enter__(self) -> Firmware:
        for name in (*FAKES, *FIRMWARE_MODULES):
            if name in sys.modules:
                self._saved[name] = sys.modules.pop(name)
        self._uninstall = self.ticks.install()
        sys.path[:0] = [str(FIRMWARE), str(HERE)]
        try:
            spec = importlib.util.spec_from_file_location("wire", WIRE)
            assert spec is not None and spec.loader is not None
            wire = importlib.util.module_from_spec(spec)
            sys.modules["wire"] = wire
            spec.loader.exec_module(wire)
            for name in (*FAKES, *FIRMWARE_MODULES):
                self._modules[name] = importlib.import_module(name)
        finally:
            for entry in (str(FIRMWARE), str(HERE)):
                sys.path.remove(entry)
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
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.unplug()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)
        if self._uninstall is not None:
            self._uninstall()
        for name in (*FAKES, *FIRMWARE_MODULES):
            sys.modules.pop(name, None)
        sys.modules.update(self._saved)

    def module(self, name: str) -> Any:
        return self._modules[name]

    def pin(self, number: int) -> Any:
        return self._modules["machine"].Pin(number)

    # -- the board's life -----------------------------------------------------

    def step(self, ms: int = 1) -> None:
        """Let ``ms`` milliseconds pass on the board, then run its main loop once."""
        self.ticks.advance(ms)
        self.board.step()

    def reset(self, boot_id: int) -> None:
        """A reset mid-game: the same pins, a fresh program, counters at zero."""
        self.boot_id = boot_id
        self.board = self._modules["main"].build(self.stream, boot_id)

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
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
        os.symlink(name, link)
        os.replace(link, self.port)

    def unplug(self) -> None:
        if self.stream.fd is not None:
            os.close(self.stream.fd)
            self.stream.fd = None
        self.stream.connected = False


class Pair:
    """A firmware and the host's backend, stepped together on fake clocks."""

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
                stream.sent = 0
                stream.received = 0
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
