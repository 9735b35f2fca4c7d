"""The seam between the simulated grid and whatever it drives.

The simulated grid (a model of discs, gravity, beams and the slider) knows
only physical facts. It changes sensor levels through :class:`SensorWires`,
and learns what the players would see through :class:`LightReader`. The GPIO
backend's implementation drives gpiozero's mock pins; the sensor board's
drives the firmware's stand-in ``machine.Pin`` objects. Neither is a side
channel into the daemon: the daemon reads the same pins or serial bytes it
reads on real hardware.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from engine.colour import Colour


class Beam(str, Enum):
    ENTRY = "entry"  # at the top of a column: a disc dropped in
    EXIT = "exit"  # at the bottom: a disc left the grid


class SensorWires(Protocol):
    """Physical sensor levels, set by the simulated grid."""

    def beam(self, beam: Beam, column: int, blocked: bool) -> None:
        """Block or clear the ``beam`` of physical ``column`` (1-based)."""
        ...

    def disc_colour(self, column: int, colour: Colour | None) -> None:
        """Set the colour bit of ``column``'s entry sensor while a disc is in
        the beam (grids without colour sensing ignore it)."""
        ...

    def slider(self, open: bool) -> None:
        """Open or close the release slider switch."""
        ...

    def button(self, pressed: bool) -> None:
        """Press or release the mode button."""
        ...


@dataclass(frozen=True, slots=True)
class ShownLights:
    """What the board's outputs physically show, read back from the output
    pins (or the LED strip's buffer): for tests, the terminal and the soak
    harness, which must act only on what a person can see.

    ``columns`` holds one entry per column: ``None`` when dark, else a short
    name of what is shown (``"on"`` for a plain LED, or a colour name such as
    ``"red"`` or ``"blue"`` from ``hardware.looks.PALETTE`` for an RGB light);
    ``blinking`` marks columns that blink. ``scores`` is ``None`` on boards
    without score outputs.
    """

    columns: tuple[str | None, ...]
    blinking: frozenset[int]
    turn_red: bool
    turn_yellow: bool
    scores: tuple[int, int] | None
    buzzer: bool


class LightReader(Protocol):
    def shown(self) -> ShownLights: ...

    def fast_blinking(self) -> frozenset[int]:
        """The columns (1-based) among the blinking ones that blink fast."""
        ...
