"""How a column light looks in each lamp state: the one table for every light.

The GPIO outputs (:mod:`hardware.outputs`: plain or RGB LEDs) and the sensor
board's LED strip (``firmware/lights.py``) both render lamps from this table,
so a lamp looks the same whichever board shows it. Like ``wire.py``, this
module runs unchanged under CPython (``hardware.looks``) and MicroPython
(copied to the board as ``looks.py``): plain tuples and dicts, no imports.

A row per lamp, in the order of ``wire.py``'s lamp codes (``LAMP_OFF`` = 0 to
``LAMP_COMPUTER_POP`` = 8), named as :class:`hardware.display.Lamp` names them:

=============  ===========  =========================================
lamp           plain LED    RGB LED or strip
=============  ===========  =========================================
off            off          dark
drop           on           disc colour (white if none), steady
drop-or-pop    on           disc colour (white if none), steady
pop            on           disc colour (white if none), slow blink
chosen         slow blink   disc colour (white if none), fast blink
error          fast blink   blue, fast blink
winning        on           green, steady
computer-drop  slow blink   disc colour (the computer's), fast blink
computer-pop   fast blink   disc colour (the computer's), slow blink
=============  ===========  =========================================

Blue is no disc's colour, so an error column is never mistaken for a column
to play; plain LEDs have only their blink rate to say the same. The
computer's move (or a hint, in the mover's colour) is the only column lit: a
drop blinks as a repair drop does, a pop as a column to pop.

>>> rgb_look(CODES["pop"], "red")
('red', 1)
>>> rgb_look(5, None), plain_look(5)
(('blue', 2), (True, 2))
"""

STEADY = 0
SLOW = 1
FAST = 2
# Half periods (on, then off) of the two blink rates, in milliseconds.
SLOW_MS = 250
FAST_MS = 125

DISC = "disc"  # the disc colour the display gives the lamp; white when none

# (name, RGB colour, RGB blink, plain LED lit, plain LED blink)
LOOKS: tuple[tuple[str, str | None, int, bool, int], ...] = (
    ("off", None, STEADY, False, STEADY),
    ("drop", DISC, STEADY, True, STEADY),
    ("pop", DISC, SLOW, True, STEADY),
    ("drop-or-pop", DISC, STEADY, True, STEADY),
    ("chosen", DISC, FAST, True, SLOW),
    ("error", "blue", FAST, True, FAST),
    ("winning", "green", STEADY, True, STEADY),
    ("computer-drop", DISC, FAST, True, SLOW),
    ("computer-pop", DISC, SLOW, True, FAST),
)
BY_NAME = {row[0]: row for row in LOOKS}
CODES = {row[0]: code for code, row in enumerate(LOOKS)}  # name -> wire.py's lamp code

# wire.py's colour codes (COLOUR_NONE, COLOUR_RED, COLOUR_YELLOW) by name.
DISC_NAMES: tuple[str | None, ...] = (None, "red", "yellow")

# Strip brightness, dim on purpose: a Pico's USB supply feeds the whole strip.
# On/off GPIO RGB LEDs light each channel that is not zero.
PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (64, 0, 0),
    "yellow": (64, 40, 0),
    "green": (0, 64, 0),
    "white": (40, 40, 40),
    "blue": (0, 0, 64),
}


def rgb_look(lamp: int, disc: str | None) -> tuple[str | None, int]:
    """``(colour name or None for dark, blink)`` of lamp code ``lamp`` on an
    RGB light for a disc colour name (``"red"``, ``"yellow"`` or None)."""
    row = LOOKS[lamp] if 0 <= lamp < len(LOOKS) else LOOKS[0]
    colour = row[1]
    if colour == DISC:
        colour = disc or "white"
    return colour, row[2]


def plain_look(lamp: int) -> tuple[bool, int]:
    """``(lit, blink)`` of lamp code ``lamp`` on a single-colour LED."""
    row = LOOKS[lamp] if 0 <= lamp < len(LOOKS) else LOOKS[0]
    return row[3], row[4]
