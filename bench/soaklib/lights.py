"""What a person at the table makes of the lights.

The simulated board has plain column LEDs and two turn lights (see
``PinMap.simulated``), so a person sees, per column, dark, steady or
blinking, plus which turn light is lit. That is enough for every repair
instruction: the board asks for one drop by blinking one column *and*
lighting the turn light of the colour to drop (``CHOSEN``); it asks for a pop
by blinking one column with both turn lights dark (``ERROR``); it asks for the
slider by blinking every column. It is not enough to tell a drop column from a
pop column in play (``DROP``/``POP``/``DROP_OR_POP`` all show as steady): a
person knows the rules for that, and so do the soak's players.

>>> from hardware.simwires import ShownLights
>>> read_lights(ShownLights(columns=(None, "on", None), blinking=frozenset({2}),
...                         turn_red=False, turn_yellow=True, scores=None, buzzer=False))
Reading(kind='drop', columns=(2,), colour=<Colour.YELLOW: 'yellow'>)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.colour import Colour
from hardware.display import Display, Lamp
from hardware.simwires import ShownLights


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading of the board.

    ``kind``: ``"steady"`` (play, or a finished game's winning line: the lit
    columns), ``"dark"`` (every column dark), ``"drop"`` (drop a disc of
    ``colour`` into the one column), ``"pop"`` (pop the bottom disc of the
    one column), ``"slider"`` (open the slider, then close it), or
    ``"unclear"`` (anything else, such as a sensor fault shown on top).
    """

    kind: str
    columns: tuple[int, ...] = ()
    colour: Colour | None = None


def _turn(shown: ShownLights) -> Colour | None:
    if shown.turn_red and not shown.turn_yellow:
        return Colour.RED
    if shown.turn_yellow and not shown.turn_red:
        return Colour.YELLOW
    return None


def read_lights(shown: ShownLights) -> Reading:
    """What the pin readback ``shown`` asks a person to do."""
    lit = tuple(i for i, c in enumerate(shown.columns, 1) if c is not None)
    blinking = tuple(sorted(shown.blinking))
    turn = _turn(shown)
    if not blinking:
        return Reading("steady", lit, turn) if lit else Reading("dark", (), turn)
    if len(blinking) == len(shown.columns):
        return Reading("slider", blinking) if turn is None else Reading("unclear", blinking, turn)
    if len(blinking) == 1 and lit == blinking:
        return Reading("drop", blinking, turn) if turn is not None else Reading("pop", blinking)
    return Reading("unclear", blinking, turn)


def expected_reading(display: Display) -> Reading:
    """The reading a correct board gives for ``display``: the soak checks the
    pins against it, so a lamp that shows the wrong thing is caught."""
    lamps = [light.lamp for light in display.columns]
    errors = tuple(i for i, lamp in enumerate(lamps, 1) if lamp is Lamp.ERROR)
    chosen = tuple(i for i, lamp in enumerate(lamps, 1) if lamp is Lamp.CHOSEN)
    if errors and len(errors) == len(lamps) and display.turn is None:
        return Reading("slider", errors)
    if len(errors) + len(chosen) == 1:
        if chosen:
            return Reading("drop", chosen, display.turn)
        return Reading("pop", errors) if display.turn is None else Reading("unclear", errors,
                                                                            display.turn)
    if errors or chosen:
        return Reading("unclear", tuple(sorted(errors + chosen)), display.turn)
    lit = tuple(i for i, lamp in enumerate(lamps, 1) if lamp is not Lamp.OFF)
    if not lit:
        return Reading("dark", (), display.turn)
    return Reading("steady", lit, display.turn)
