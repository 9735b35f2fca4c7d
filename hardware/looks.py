"""How a column light looks in each lamp state: the one table for every light.

The GPIO outputs (:mod:`hardware.outputs`: plain or RGB LEDs), the sensor
board's LED strip (``firmware/lights.py``) and the web page (served by
``GET /api/rules``) all render lamps from this table, so a lamp looks the
same whichever board or screen shows it. Like ``wire.py``, this module runs
unchanged under CPython (``hardware.looks``) and MicroPython (copied to the
board as ``looks.py``): plain tuples and dicts, no imports.

A row per lamp, in the order of ``wire.py``'s lamp codes (``LAMP_OFF`` = 0 to
``LAMP_HINT_POP`` = 10), named as :class:`hardware.display.Lamp` names them:

=============  ===============  ===========================================
lamp           plain LED        RGB LED, strip or page
=============  ===============  ===========================================
off            off              dark
drop           on               disc colour (white if none), steady
pop            on               disc colour (white if none), slow blink
drop-or-pop    on               disc colour (white if none), steady
chosen         slow blink       disc colour (white if none), fast blink
error          fast blink       blue, fast blink
winning        on               cyan, steady
computer-drop  slow blink       disc colour (the computer's), fast blink
computer-pop   fast blink       disc colour (the computer's), slow blink
hint-drop      two flashes      disc colour (the mover's), two flashes
hint-pop       two gaps         disc colour (the mover's), two gaps
=============  ===============  ===========================================

Blue is no disc's colour, so an error column is never mistaken for a column
to play; plain LEDs have only their blink to say the same. The winning line
is cyan, not green: green looks like yellow to people with red-green colour
blindness, and a winning line is no column to play (tests/test_looks.py
checks every look under simulated protanopia, deuteranopia and tritanopia). The computer's
move and a hint are each the only column lit, and they blink in rhythms of
their own: a hint twice in quick succession, then a pause (two short flashes
for a drop; for a pop, the light stays on with two short gaps), so a hint
is never taken for the computer's move whatever colours the players see.

>>> rgb_look(CODES["pop"], "red")
('red', 1)
>>> rgb_look(5, None), plain_look(5)
(('blue', 2), (True, 2))
>>> [lit(FLASHES, step) for step in range(7)]
[True, False, True, False, False, False, True]
"""

STEADY = 0
SLOW = 1
FAST = 2
FLASHES = 3  # two short flashes, then a pause
GAPS = 4  # lit, with two short gaps, then lit again

STEP_MS = 125  # every blink pattern moves on one step this often
# Each blink's pattern, indexed by it: lit (1) or dark (0) for one step each,
# repeated. A pause never outlasts three steps, so every blink shows within
# 600 ms (what the simulated board's reader looks back over).
PATTERNS: tuple[tuple[int, ...], ...] = (
    (1,),
    (1, 1, 0, 0),
    (1, 0),
    (1, 0, 1, 0, 0, 0),
    (0, 1, 0, 1, 1, 1),
)

DISC = "disc"  # the disc colour the display gives the lamp; white when none

# (name, RGB colour, RGB blink, plain LED lit, plain LED blink)
LOOKS: tuple[tuple[str, str | None, int, bool, int], ...] = (
    ("off", None, STEADY, False, STEADY),
    ("drop", DISC, STEADY, True, STEADY),
    ("pop", DISC, SLOW, True, STEADY),
    ("drop-or-pop", DISC, STEADY, True, STEADY),
    ("chosen", DISC, FAST, True, SLOW),
    ("error", "blue", FAST, True, FAST),
    ("winning", "cyan", STEADY, True, STEADY),
    ("computer-drop", DISC, FAST, True, SLOW),
    ("computer-pop", DISC, SLOW, True, FAST),
    ("hint-drop", DISC, FLASHES, True, FLASHES),
    ("hint-pop", DISC, GAPS, True, GAPS),
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
    "cyan": (0, 48, 48),
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


def lit(blink: int, step: int) -> bool:
    """Whether a light blinking ``blink`` is lit ``step`` steps (of
    :data:`STEP_MS`) after the blink clock started."""
    pattern = PATTERNS[blink]
    return pattern[step % len(pattern)] == 1
