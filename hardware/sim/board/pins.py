"""The simulated grid's seam to the firmware: stand-in pins in, LED strip out.

:class:`FirmwareWires` is :class:`hardware.sim.seam.SensorWires` on the
firmware's stand-in ``machine.Pin`` objects; :class:`FirmwareLights` is
:class:`hardware.sim.seam.LightReader` over the strip's recent writes. Neither
talks to the host: it sees only the serial bytes the firmware sends.

Example::

    wires = FirmwareWires(firmware)
    wires.beam(Beam.ENTRY, 3, True)
    FirmwareLights(firmware).shown().columns
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from engine.colour import Colour
from hardware import looks
from hardware.sim.seam import Beam, ShownLights

RGB = tuple[int, int, int]

if TYPE_CHECKING:
    from hardware.sim.board.ticks import Ticks


class Running(Protocol):
    """What the stand-in pins read of the firmware running under CPython
    (:class:`hardware.sim.board.firmware.Firmware`): its modules, its pins,
    its board object and its tick counter."""

    ticks: Ticks
    powered: bool
    board: Any

    def module(self, name: str) -> Any: ...
    def pin(self, number: int) -> Any: ...


BLINK_WINDOW_MS = 600  # a column dark and lit within this window blinks


class FirmwareWires:
    """:class:`hardware.sim.seam.SensorWires` for the firmware's stand-in pins."""

    def __init__(self, firmware: Running) -> None:
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
    """:class:`hardware.sim.seam.LightReader` over the strip's recent writes:
    a column blinks when it was both dark and lit within the last 600 ms
    since the board last changed what it shows. An unpowered board shows
    nothing. :meth:`fast_blinking` tells a ``CHOSEN`` or ``ERROR`` column
    (fast blink) from a ``POP`` one (slow blink)."""

    NAMES: ClassVar[dict[tuple[int, int, int], str]] = {
        rgb: name for name, rgb in looks.PALETTE.items()
    }

    def __init__(self, firmware: Running) -> None:
        self._fw = firmware

    def _recent(self) -> list[tuple[int, tuple[RGB, ...]]]:
        """The strip's writes in the blink window since the display last
        changed, with their ticks; at least the current picture."""
        lights = self._fw.board.lights
        now = self._fw.ticks.now
        current = tuple(lights.strip[i] for i in range(lights.strip.n))
        if not self._fw.powered:
            return [(now, ((0, 0, 0),) * lights.strip.n)]
        since = lights.changed_at
        diff = self._fw.ticks.ticks_diff
        recent = [
            (at, buf)
            for at, buf in lights.strip.writes
            if diff(now, at) <= BLINK_WINDOW_MS and diff(at, since) >= 0
        ]
        return recent or [(now, current)]

    def fast_blinking(self) -> frozenset[int]:
        """The columns (1-based) that blink fast: lit or dark for less than
        the slow blink's half period between two changes."""
        lights = self._fw.board.lights
        slow = self._fw.module("lights").BLINK_MS
        diff = self._fw.ticks.ticks_diff
        recent = self._recent()
        fast: set[int] = set()
        for c in range(lights.columns):
            cells = range(c * lights.cells, (c + 1) * lights.cells)
            changes = [
                at
                for (_, before), (at, buf) in itertools.pairwise(recent)
                if any((buf[i] == (0, 0, 0)) != (before[i] == (0, 0, 0)) for i in cells)
            ]
            if any(diff(b, a) < slow for a, b in itertools.pairwise(changes)):
                fast.add(c + 1)
        return frozenset(fast)

    def shown(self) -> ShownLights:
        board = self._fw.board
        lights = board.lights
        recent_writes = self._recent()
        current = recent_writes[-1][1]
        if self._fw.powered:
            current = tuple(lights.strip[i] for i in range(lights.strip.n))
        recent = [buf for _, buf in recent_writes]
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
            buzzer=self._fw.powered and board.buzzer is not None and board.buzzer.sounding,
        )
