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

The sensor board's RGB strip (``[sim] link = "serial"``) speaks a little
differently (``firmware/lights.py``): play columns are lit in the mover's
colour, and a column where the mover can only pop *blinks* in that colour;
a repair drop blinks in the colour to drop; a pop repair or a sensor fault
blinks blue (``hardware/looks.py``). :func:`read_strip` reads that. One picture is ambiguous on the
strip: a single column blinking in the mover's colour with everything else
dark is both "drop this colour here" and "your only move is a pop here"; a
person tells them apart by looking at the grid (see the soak's table).

>>> from hardware.sim.seam import ShownLights
>>> read_lights(ShownLights(columns=(None, "on", None), blinking=frozenset({2}),
...                         turn_red=False, turn_yellow=True, scores=None, buzzer=False))
Reading(kind='drop', columns=(2,), colour=<Colour.YELLOW: 'yellow'>)
>>> read_strip(ShownLights(columns=("red", "red", None), blinking=frozenset({2}),
...                        turn_red=True, turn_yellow=False, scores=None, buzzer=False))
Reading(kind='steady', columns=(1, 2), colour=<Colour.RED: 'red'>)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.colour import Colour
from hardware import looks
from hardware.display import Display, Lamp
from hardware.sim.seam import ShownLights


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


def _glance(shown: ShownLights) -> tuple[tuple[int, ...], tuple[int, ...], Colour | None]:
    """The lit columns, the blinking ones (1-based) and the lit turn light."""
    lit = tuple(i for i, c in enumerate(shown.columns, 1) if c is not None)
    return lit, tuple(sorted(shown.blinking)), _turn(shown)


def read_lights(shown: ShownLights, fast: frozenset[int] = frozenset()) -> Reading:
    """What the pin readback ``shown`` asks a person to do; ``fast``: the
    columns that blink fast (``LightReader.fast_blinking``). One column
    blinking beside a turn light is a drop of that colour when it blinks
    slowly (a repair step, or the move of the computer or a remote player),
    a pop for that colour's seat when it blinks fast."""
    lit, blinking, turn = _glance(shown)
    if not blinking:
        return Reading("steady", lit, turn) if lit else Reading("dark", (), turn)
    if len(blinking) == len(shown.columns):
        return Reading("slider", blinking) if turn is None else Reading("unclear", blinking, turn)
    if len(blinking) == 1 and lit == blinking:
        if turn is None:
            return Reading("pop", blinking)
        return Reading("pop" if blinking[0] in fast else "drop", blinking, turn)
    return Reading("unclear", blinking, turn)


# the lamps of a move chosen away from the grid, as a person reads them
_PROXIED = {Lamp.COMPUTER_DROP: "drop", Lamp.COMPUTER_POP: "pop"}


def expected_reading(display: Display) -> Reading:
    """The reading a correct board gives for ``display``: the soak checks the
    pins against it, so a lamp that shows the wrong thing is caught."""
    lamps = [light.lamp for light in display.columns]
    errors = tuple(i for i, lamp in enumerate(lamps, 1) if lamp is Lamp.ERROR)
    chosen = tuple(i for i, lamp in enumerate(lamps, 1) if lamp is Lamp.CHOSEN)
    # the computer's or a remote player's move: the only column lit
    proxied = [(i, lamp) for i, lamp in enumerate(lamps, 1) if lamp in _PROXIED]
    if proxied and not errors and not chosen:
        column, lamp = proxied[0]
        return Reading(_PROXIED[lamp], (column,), display.turn)
    if errors and len(errors) == len(lamps) and display.turn is None:
        return Reading("slider", errors)
    if len(errors) + len(chosen) == 1:
        if chosen:
            return Reading("drop", chosen, display.turn)
        return (
            Reading("pop", errors)
            if display.turn is None
            else Reading("unclear", errors, display.turn)
        )
    if errors or chosen:
        return Reading("unclear", tuple(sorted(errors + chosen)), display.turn)
    lit = tuple(i for i, lamp in enumerate(lamps, 1) if lamp is not Lamp.OFF)
    if not lit:
        return Reading("dark", (), display.turn)
    return Reading("steady", lit, display.turn)


_NAMED = {"red": Colour.RED, "yellow": Colour.YELLOW}
_ERROR = looks.BY_NAME[Lamp.ERROR.value][1]  # the colour of a pop repair or a fault


def read_strip(shown: ShownLights) -> Reading:
    """What the sensor board's strip ``shown`` asks a person to do."""
    lit, blinking, turn = _glance(shown)
    if not blinking:
        return Reading("steady", lit, turn) if lit else Reading("dark", (), turn)
    error = tuple(c for c in blinking if shown.columns[c - 1] == _ERROR)
    if error == blinking and len(blinking) == len(shown.columns):
        return Reading("slider", blinking) if turn is None else Reading("unclear", blinking, turn)
    if len(blinking) == 1 and lit == blinking:
        if error:
            return Reading("pop", blinking) if turn is None else Reading("unclear", blinking, turn)
        colour = _NAMED.get(shown.columns[blinking[0] - 1] or "")
        if colour is not None and turn in (None, colour):
            return Reading("drop", blinking, colour)
    if not error and turn is not None:
        return Reading("steady", lit, turn)  # play, with pop-only columns blinking
    return Reading("unclear", blinking, turn)


def strip_look(display: Display) -> ShownLights:
    """What a correct sensor board's strip shows for ``display``, in the
    terms :class:`~hardware.sim.board.FirmwareLights` reads it back."""
    columns: list[str | None] = []
    blinking: set[int] = set()
    for column, light in enumerate(display.columns, 1):
        disc = light.colour.value if light.colour is not None else None
        name, blink = looks.rgb_look(looks.CODES[light.lamp.value], disc)
        columns.append(name)
        if blink != looks.STEADY:
            blinking.add(column)
    return ShownLights(
        columns=tuple(columns),
        blinking=frozenset(blinking),
        turn_red=display.turn is Colour.RED,
        turn_yellow=display.turn is Colour.YELLOW,
        scores=None,
        buzzer=False,
    )
