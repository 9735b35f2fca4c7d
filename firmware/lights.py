"""The WS2812 strip: column lights, turn lights and score bars, one buffer.

Layout along the strip: ``columns * cells`` column LEDs (``cells`` is 1 for a
light per column, or the row count for a light per cell, bottom cell first),
then the red and yellow turn LEDs, then ``score_leds`` LEDs for Red's score
and as many for Yellow's.

Column lamps look as the one table in ``looks.py`` (``hardware/looks.py``,
copied to the board beside ``wire.py``) says, the same table the GPIO
outputs use (see docs/sensor-board.md). A per-cell strip marks a win by
blinking the winning cells themselves.

Example::

    lights = Lights(NeoPixel(Pin(16), 7 + 2), columns=7)
    lights.show(show)            # a wire.Show
    lights.update(time.ticks_ms())
"""

import time

import looks
import wire

DARK = (0, 0, 0)
RED = looks.PALETTE["red"]
YELLOW = looks.PALETTE["yellow"]
WINNING = looks.PALETTE[looks.BY_NAME["winning"][1]]
STEP_MS = looks.STEP_MS  # every blink pattern moves on one step this often
# The slow blink's half period: a light that changes faster blinks fast (or
# in a hint's rhythm), which is how the simulated board reads the strip back.
BLINK_MS = 2 * STEP_MS
STEADY = looks.STEADY


def lamp_look(lamp, colour):
    """``(rgb, blink)`` for one column's lamp code and colour code; ``blink``
    indexes ``looks.PATTERNS`` (``STEADY`` is 0)."""
    disc = looks.DISC_NAMES[colour] if 0 <= colour < len(looks.DISC_NAMES) else None
    name, blink = looks.rgb_look(lamp, disc)
    return (looks.PALETTE[name] if name else DARK), blink


class Lights:
    """Renders a ``wire.Show`` onto a NeoPixel strip, blinking included."""

    def __init__(self, strip, columns, cells=1, score_leds=0):
        self.strip = strip
        self.columns = columns
        self.cells = cells
        self.score_leds = score_leds
        self._show = None
        self._phase = None  # the redraw phase last drawn; None: draw at once
        self._period = BLINK_MS  # how often the picture can change
        self.changed_at = time.ticks_ms()
        self.turn_at = columns * cells
        self.score_at = self.turn_at + 2

    def show(self, show):
        """Show ``show`` (a ``wire.Show``), or go dark for None."""
        self._show = show
        self._phase = None  # force a redraw
        self._period = BLINK_MS
        if show is not None:
            for lamp in show.lamps:
                # the slow blink changes every other step; any other every step
                if looks.rgb_look(lamp, None)[1] not in (STEADY, looks.SLOW):
                    self._period = STEP_MS
        self.changed_at = time.ticks_ms()

    def update(self, now):
        elapsed = time.ticks_diff(now, 0)
        phase = elapsed // self._period
        if phase == self._phase:
            return
        self._phase = phase
        self._draw(elapsed // STEP_MS)

    def due_in(self, now):
        """Milliseconds until :meth:`update` may redraw."""
        if self._phase is None:
            return 0
        return self._period - time.ticks_diff(now, 0) % self._period

    def _draw(self, step):
        strip = self.strip
        show = self._show
        if show is None:
            strip.fill(DARK)
            strip.write()
            return
        cells = self.cells
        for c in range(self.columns):
            lamp = show.lamps[c] if c < len(show.lamps) else wire.LAMP_OFF
            colour = show.colours[c] if c < len(show.colours) else wire.COLOUR_NONE
            rgb, blinks = lamp_look(lamp, colour)
            rows = show.winning[c] if c < len(show.winning) else 0
            for r in range(cells):
                look = rgb
                if rows and cells > 1:
                    # A per-cell strip marks the winning cells themselves.
                    look = WINNING if (rows >> r) & 1 and looks.lit(looks.SLOW, step) else DARK
                elif not looks.lit(blinks, step):
                    look = DARK
                strip[c * cells + r] = look
        strip[self.turn_at] = RED if show.turn == wire.COLOUR_RED else DARK
        strip[self.turn_at + 1] = YELLOW if show.turn == wire.COLOUR_YELLOW else DARK
        for i, (score, rgb) in enumerate(((show.red_score, RED), (show.yellow_score, YELLOW))):
            base = self.score_at + i * self.score_leds
            for k in range(self.score_leds):
                on = score != wire.NO_SCORE and k < score
                strip[base + k] = rgb if on else DARK
        strip.write()
