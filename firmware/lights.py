"""The WS2812 strip: column lights, turn lights and score bars, one buffer.

Layout along the strip: ``columns * cells`` column LEDs (``cells`` is 1 for a
light per column, or the row count for a light per cell, bottom cell first),
then the red and yellow turn LEDs, then ``score_leds`` LEDs for Red's score
and as many for Yellow's.

Example::

    lights = Lights(NeoPixel(Pin(16), 7 + 2), columns=7)
    lights.show(show)            # a wire.Show
    lights.update(time.ticks_ms())
"""

import time

import wire

DARK = (0, 0, 0)
# Dim on purpose: a Pico's USB supply feeds the whole strip.
RED = (64, 0, 0)
YELLOW = (64, 40, 0)
GREEN = (0, 64, 0)
WHITE = (40, 40, 40)
BLINK_MS = 250


def _disc(code, fallback):
    if code == wire.COLOUR_RED:
        return RED
    if code == wire.COLOUR_YELLOW:
        return YELLOW
    return fallback


def lamp_look(lamp, colour):
    """``(rgb, blinks)`` for one column's lamp code and colour code."""
    if lamp == wire.LAMP_OFF:
        return DARK, False
    if lamp == wire.LAMP_DROP or lamp == wire.LAMP_DROP_OR_POP:
        return _disc(colour, WHITE), False
    if lamp == wire.LAMP_POP:
        return _disc(colour, WHITE), True
    if lamp == wire.LAMP_CHOSEN:
        return _disc(colour, WHITE), True
    if lamp == wire.LAMP_ERROR:
        return WHITE, True
    return GREEN, False  # LAMP_WINNING


class Lights:
    """Renders a ``wire.Show`` onto a NeoPixel strip, blinking included."""

    def __init__(self, strip, columns, cells=1, score_leds=0):
        self.strip = strip
        self.columns = columns
        self.cells = cells
        self.score_leds = score_leds
        self._show = None
        self._phase = -1
        self.changed_at = time.ticks_ms()
        self.turn_at = columns * cells
        self.score_at = self.turn_at + 2

    def show(self, show):
        """Show ``show`` (a ``wire.Show``), or go dark for None."""
        self._show = show
        self._phase = -1  # force a redraw
        self.changed_at = time.ticks_ms()

    def update(self, now):
        phase = (time.ticks_diff(now, 0) // BLINK_MS) & 1
        if phase == self._phase:
            return
        self._phase = phase
        self._draw(phase == 0)

    def _draw(self, lit):
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
                    look = GREEN if (rows >> r) & 1 and lit else DARK
                elif blinks and not lit:
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
