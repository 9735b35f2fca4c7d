"""Broken parts of a simulated board, whichever way it is wired: a lamp
that shows nothing whatever drives it, a sensor whose wire is cut. They wrap
the seam (:class:`~hardware.sim.seam.LightReader`,
:class:`~hardware.sim.seam.SensorWires`), so the GPIO board on mock pins and
the simulated sensor board break the same way (``check-wiring --sim-fault``,
the simulated player's broken turn lamps).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Any

from engine.colour import Colour
from hardware.sim.seam import Beam, LightReader, SensorWires, ShownLights


class BrokenLights:
    """A :class:`~hardware.sim.seam.LightReader` whose ``dead`` outputs
    (``"light 3"``, ``"turn red"``, ``"score yellow"``, ``"buzzer"``) show
    nothing, whatever drives them: ``--sim-fault``'s dead lamps."""

    def __init__(self, reader: LightReader, dead: Collection[str]) -> None:
        self.reader, self.dead = reader, frozenset(dead)

    def shown(self) -> ShownLights:
        shown = self.reader.shown()
        dead = self.dead
        columns = tuple(
            None if f"light {c}" in dead else look for c, look in enumerate(shown.columns, 1)
        )
        scores = shown.scores
        if scores is not None:
            scores = (
                0 if "score red" in dead else scores[0],
                0 if "score yellow" in dead else scores[1],
            )
        return dataclasses.replace(
            shown,
            columns=columns,
            blinking=frozenset(c for c in shown.blinking if f"light {c}" not in dead),
            turn_red=shown.turn_red and "turn red" not in dead,
            turn_yellow=shown.turn_yellow and "turn yellow" not in dead,
            scores=scores,
            buzzer=shown.buzzer and "buzzer" not in dead,
        )

    def fast_blinking(self) -> frozenset[int]:
        return frozenset(c for c in self.reader.fast_blinking() if f"light {c}" not in self.dead)


class CutWires:
    """:class:`~hardware.sim.seam.SensorWires` with the wires of ``cut``
    sensors (``"entry 3"``, ``"slider"``, ``"button"``) cut: their level
    never changes. ``--sim-fault``'s cut wires."""

    def __init__(self, wires: SensorWires, cut: Collection[str]) -> None:
        self.wires, self.cut = wires, frozenset(cut)

    def beam(self, beam: Beam, column: int, blocked: bool, **how: Any) -> None:
        if f"{beam.value} {column}" not in self.cut:
            self.wires.beam(beam, column, blocked, **how)

    def disc_colour(self, column: int, colour: Colour | None) -> None:
        if f"colour {column}" not in self.cut:
            self.wires.disc_colour(column, colour)

    def slider(self, open: bool) -> None:
        if "slider" not in self.cut:
            self.wires.slider(open)

    def button(self, pressed: bool) -> None:
        if "button" not in self.cut:
            self.wires.button(pressed)
