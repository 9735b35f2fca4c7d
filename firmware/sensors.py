"""Debounced digital inputs read through pin interrupts.

The IRQ handler only stores the edge time in preallocated arrays (no
allocation inside an IRQ); the main loop calls :meth:`Input.update` and takes
the pin's level once it has been quiet for ``settle_ms``. Beams chatter at a
disc's edge and switches bounce for ~5 ms; a disc blocks a beam for 20 ms or
more, so a settle time below that keeps every real pulse.

Example::

    beam = Input(Pin(2, Pin.IN, Pin.PULL_UP), active_high=True, settle_ms=6)
    if beam.update(time.ticks_ms()) and beam.active:
        drops += 1
"""

import time
from array import array

from machine import Pin


class Input:
    """One debounced input; ``active`` is the debounced state."""

    def __init__(self, pin, active_high=True, settle_ms=6):
        self._pin = pin
        self._level = 1 if active_high else 0
        self._settle = settle_ms
        self._edge = array("i", [0])
        self._dirty = bytearray(1)
        self.active = pin.value() == self._level
        self.since = time.ticks_ms()
        # A bound method made once here, so the IRQ itself allocates nothing.
        self._handler = self._irq
        pin.irq(handler=self._handler, trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING)

    def _irq(self, pin):
        self._edge[0] = time.ticks_ms()
        self._dirty[0] = 1

    def update(self, now):
        """Take a settled level; True when ``active`` changed."""
        if not self._dirty[0]:
            return False
        if time.ticks_diff(now, self._edge[0]) < self._settle:
            return False
        # Clear before reading, so an edge arriving now marks the input dirty again.
        self._dirty[0] = 0
        level = self._pin.value() == self._level
        if level == self.active:
            return False
        self.active = level
        self.since = now
        return True

    def held_for(self, now):
        """How long (ms) the input has been in its current state."""
        return time.ticks_diff(now, self.since)

    def close(self):
        self._pin.irq(handler=None)


class Button:
    """A push button with a hold time: counts presses (released before the
    hold time) and holds (held down for the hold time, once per push).

    Example::

        button = Button(Input(Pin(20, Pin.IN, Pin.PULL_UP), active_high=False))
        button.update(time.ticks_ms())
        print(button.presses, button.holds)
    """

    def __init__(self, source, hold_ms=2000):
        self.source = source
        self._hold = hold_ms
        self._held = False
        self.presses = 0
        self.holds = 0

    @property
    def down(self):
        return self.source.active

    def update(self, now):
        """True when a counter changed or the button moved."""
        changed = self.source.update(now)
        if changed:
            if self.source.active:
                self._held = False
            elif not self._held:
                self.presses += 1
        if self.source.active and not self._held and self.source.held_for(now) >= self._hold:
            self._held = True
            self.holds += 1
            changed = True
        return changed
