"""Debounced digital inputs read through pin interrupts.

The IRQ handler is a hard IRQ: it runs the moment the edge comes, so a burst
of edges (the release slider dumping the grid, two players dropping at once
during a garbage collection) cannot overflow the scheduler queue that soft
IRQs wait in (8 deep on the RP2040, and dropped silently beyond). It only
stores the edge time in preallocated arrays: a hard IRQ must not allocate.
The main loop calls :meth:`Input.update` and takes the pin's level once it
has been quiet for ``settle_ms``; on every pass it also compares the pin's
level with the last one it took, so an edge whose IRQ never came (a pulse
shorter than the IRQ latency, a lost interrupt) is caught all the same.
Beams chatter at a disc's edge and switches bounce for ~5 ms; a disc blocks
a beam for 20 ms or more, so a settle time below that keeps every real pulse.
The timings are the host's too (``timing.py``, shared like ``wire.py``).

Example::

    beam = Beam(Input(Pin(2, Pin.IN, Pin.PULL_UP), True, timing.BEAM_SETTLE_MS))
    if beam.update(time.ticks_ms()) == PASSED:
        drops += 1
"""

import time
from array import array

import timing
from machine import Pin

# What Beam.update saw happen
NOTHING = 0
PASSED = 1  # a disc passed: the beam was blocked, then clear again
STUCK = 2  # the beam has been blocked for BEAM_STUCK_MS: a fault
UNSTUCK = 3  # the stuck beam is clear again (not a disc)


class Input:
    """One debounced input; ``active`` is the debounced state."""

    def __init__(self, pin, active_high=True, settle_ms=timing.SWITCH_SETTLE_MS):
        self._pin = pin
        self._level = 1 if active_high else 0
        self._settle = settle_ms
        self._edge = array("i", [0])
        self._dirty = bytearray(1)
        self._raw = pin.value()  # the pin level last taken as settled
        self.active = self._raw == self._level
        self.since = time.ticks_ms()
        # A bound method made once here, so the IRQ itself allocates nothing.
        self._handler = self._irq
        pin.irq(handler=self._handler, trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING, hard=True)

    def _irq(self, pin):
        self._edge[0] = time.ticks_ms()
        self._dirty[0] = 1

    def update(self, now):
        """Take a settled level; True when ``active`` changed."""
        if not self._dirty[0]:
            if self._pin.value() == self._raw:
                return False
            # The level moved with no IRQ: settle it as if the edge came now.
            self._edge[0] = now
            self._dirty[0] = 1
            return False
        # Clear the mark, then read the level, then check the edge time: an
        # edge at any point from here on either moves the edge time before
        # the check (not settled: the mark is set again) or sets the mark
        # after it, so no edge loses its mark and the level taken was read
        # when the pin had been quiet for the whole settle time.
        self._dirty[0] = 0
        raw = self._pin.value()
        if time.ticks_diff(now, self._edge[0]) < self._settle:
            self._dirty[0] = 1
            return False
        self._raw = raw
        level = raw == self._level
        if level == self.active:
            return False
        self.active = level
        self.since = now
        return True

    def held_for(self, now):
        """How long (ms) the input has been in its current state."""
        return time.ticks_diff(now, self.since)

    def due_in(self, now):
        """Milliseconds until :meth:`update` may change ``active``, or -1."""
        if not self._dirty[0]:
            return -1
        return max(0, self._settle - time.ticks_diff(now, self._edge[0]))

    def close(self):
        self._pin.irq(handler=None)


class Beam:
    """A break beam over a debounced :class:`Input`, judged as the GPIO side
    judges one (``hardware/debounce.py``): a disc has passed when the beam
    clears after being blocked; a beam blocked for ``stuck_ms`` is ``stuck``
    (a fault), and the clearing that ends it is not a disc. A beam already
    blocked at boot was not seen blocking, so its clearing is not a disc
    either.

    Example::

        beam = Beam(Input(Pin(9, Pin.IN, Pin.PULL_UP)))
        outcome = beam.update(time.ticks_ms())   # NOTHING, PASSED, STUCK or UNSTUCK
    """

    def __init__(self, source, stuck_ms=timing.BEAM_STUCK_MS):
        self.source = source
        self._stuck_ms = stuck_ms
        self.stuck = False
        self._orphan = source.active

    @property
    def active(self):
        return self.source.active

    def update(self, now):
        """What happened since the last call: one of the outcome codes."""
        source = self.source
        if source.update(now):
            if source.active:
                return NOTHING
            if self.stuck:
                self.stuck = False
                return UNSTUCK
            if self._orphan:
                self._orphan = False
                return NOTHING
            return PASSED
        if source.active and not self.stuck and source.held_for(now) >= self._stuck_ms:
            self.stuck = True
            return STUCK
        return NOTHING

    def due_in(self, now):
        """Milliseconds until :meth:`update` may return something, or -1."""
        wait = self.source.due_in(now)
        if self.source.active and not self.stuck:
            held = max(0, self._stuck_ms - self.source.held_for(now))
            if wait < 0 or held < wait:
                wait = held
        return wait


class Button:
    """A push button with a hold time: counts presses (released before the
    hold time) and holds (held down for the hold time, once per push).

    Example::

        button = Button(Input(Pin(20, Pin.IN, Pin.PULL_UP), active_high=False))
        button.update(time.ticks_ms())
        print(button.presses, button.holds)
    """

    def __init__(self, source, hold_ms=timing.BUTTON_HOLD_MS):
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

    def due_in(self, now):
        """Milliseconds until :meth:`update` may change something, or -1."""
        wait = self.source.due_in(now)
        if self.source.active and not self._held:
            held = max(0, self._hold - self.source.held_for(now))
            if wait < 0 or held < wait:
                wait = held
        return wait
