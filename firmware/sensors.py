"""Debounced digital inputs, debounced in their pin interrupts.

The IRQ handler is a hard IRQ: it runs the moment the edge comes, so a burst
of edges (the release slider dumping the grid, two players dropping at once
during a garbage collection) cannot overflow the scheduler queue that soft
IRQs wait in (8 deep on the RP2040, and dropped silently beyond). A level
counts once it has lasted ``settle_ms`` without an edge; at each edge the
handler knows how long the level that just ended lasted, so it takes that
level as settled there and then and counts the change (a *flip*) in a
preallocated array: a hard IRQ must not allocate. So a main loop that stalls
(a garbage collection, a long strip write) loses no disc: the flips wait in
the counter. The main loop (:meth:`Input.update`) takes the flips, and the
level that is still on once it has lasted the settle time. On every pass it
also compares the pin's level with the last edge's, so an edge whose IRQ
never came (a pulse shorter than the IRQ latency, a lost interrupt) is
caught all the same. Beams chatter at a disc's edge and switches bounce for
~5 ms; a disc blocks a beam for 20 ms or more, so a settle time below that
keeps every real pulse. The timings are the host's too (``timing.py``,
shared like ``wire.py``).

Example::

    beam = Beam(Input(Pin(2, Pin.IN, Pin.PULL_UP), True, timing.BEAM_SETTLE_MS))
    drops += beam.update(time.ticks_ms())   # discs that passed since the last call
"""

import time
from array import array

import timing
from machine import Pin, disable_irq, enable_irq
from micropython import const

# The IRQ's state of one input, in one preallocated array (see Input._edge)
_EDGES = const(0)  # edges seen, the main loop's check that it read a consistent state
_FLIPS = const(1)  # settled changes counted by the IRQ
_LEVEL = const(2)  # the pin level since the last edge
_SETTLED = const(3)  # the last pin level that lasted the settle time
_AT = const(4)  # the tick of the last edge
_MASK = const(0x0FFFFFFF)  # counters stay small ints on the RP2040 (no allocation)


class Input:
    """One debounced input; ``active`` is the debounced state."""

    def __init__(self, pin, active_high=True, settle_ms=timing.SWITCH_SETTLE_MS):
        self._pin = pin
        self._on = 1 if active_high else 0
        self._settle = settle_ms
        raw = pin.value()
        now = time.ticks_ms()
        self._state = array("i", [0, 0, raw, raw, now])
        self._taken = 0  # the flips the main loop has taken
        # What the last update saw, so an idle pass is a compare or two:
        self._edges = 0  # the IRQ's edge count
        self._raw = raw  # the pin level since the last edge
        self._waiting = False  # that level had not lasted the settle time yet
        self.active = raw == self._on
        self.since = now
        # A bound method made once here, so the IRQ itself allocates nothing.
        self._handler = self._irq
        pin.irq(handler=self._handler, trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING, hard=True)

    def _irq(self, pin):
        self._edge(time.ticks_ms(), pin.value())

    def _edge(self, now, raw):
        """An edge to ``raw`` at ``now``: the level it ends is settled if it
        lasted the settle time. Only the IRQ calls this, or the main loop with
        IRQs off."""
        state = self._state
        level = state[_LEVEL]
        if level != state[_SETTLED] and time.ticks_diff(now, state[_AT]) >= self._settle:
            state[_SETTLED] = level
            state[_FLIPS] = (state[_FLIPS] + 1) & _MASK
        state[_LEVEL] = raw
        state[_AT] = now
        state[_EDGES] = (state[_EDGES] + 1) & _MASK

    def update(self, now):
        """Take the settled changes since the last call: how many there
        were (``active`` flipped that many times; 0 mostly)."""
        if self._state[_EDGES] == self._edges and not self._waiting:
            if self._pin.value() == self._raw:
                return 0  # no edge, nothing settling, no edge missed
        return self._take(now)

    def _take(self, now):
        state = self._state
        while True:  # an IRQ may come mid-read: read again until none did
            edges = state[_EDGES]
            raw = self._pin.value()
            level = state[_LEVEL]
            settled = state[_SETTLED]
            flips = state[_FLIPS]
            at = state[_AT]
            if state[_EDGES] == edges:
                break
        if raw != level:
            # The level moved with no IRQ: settle it as if the edge came now.
            irq = disable_irq()
            self._edge(now, raw)
            enable_irq(irq)
            return 0
        if level != settled and time.ticks_diff(now, at) >= self._settle:
            # the level still on has lasted the settle time: the IRQ counts
            # this flip itself at the next edge, so it is taken, not stored
            flips += 1
            settled = level
        self._edges = edges
        self._raw = level
        self._waiting = level != settled
        new = (flips - self._taken) & _MASK
        if not new:
            return 0
        self._taken = flips & _MASK
        self.active = settled == self._on
        self.since = now
        return new

    def held_for(self, now):
        """How long (ms) the input has been in its current state."""
        return time.ticks_diff(now, self.since)

    def due_in(self, now):
        """Milliseconds until :meth:`update` may change ``active``, or -1."""
        state = self._state
        if state[_EDGES] == self._edges and not self._waiting:
            return -1
        untaken = (state[_FLIPS] - self._taken) & _MASK
        if untaken and untaken != _MASK:  # _MASK: one taken ahead of the IRQ
            return 0
        if state[_LEVEL] == state[_SETTLED] or (state[_LEVEL] == self._on) == self.active:
            return -1
        return max(0, self._settle - time.ticks_diff(now, state[_AT]))

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
        pops += beam.update(time.ticks_ms())
        faulty = beam.stuck
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
        """How many discs passed since the last call; sets :attr:`stuck`."""
        source = self.source
        was = source.active
        flips = source.update(now)
        passed = 0
        if flips:
            passed = _releases(flips, was)
            if passed and (self.stuck or self._orphan):
                passed -= 1  # the first clearing ends a jam, or a block from before boot
                self.stuck = False
                self._orphan = False
        elif not was:
            return 0  # clear, and nothing happened: the idle pass
        if source.active and not self.stuck and source.held_for(now) >= self._stuck_ms:
            self.stuck = True
        return passed

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
        was = self.source.active
        flips = self.source.update(now)
        if flips:
            presses = _releases(flips, was)
            if presses and self._held:
                presses -= 1  # the release that ends a hold is no press
            self.presses += presses
            self._held = False  # the push now down, if any, is a new one
        if self.source.active and not self._held and self.source.held_for(now) >= self._hold:
            self._held = True
            self.holds += 1
            return True
        return flips > 0

    def due_in(self, now):
        """Milliseconds until :meth:`update` may change something, or -1."""
        wait = self.source.due_in(now)
        if self.source.active and not self._held:
            held = max(0, self._hold - self.source.held_for(now))
            if wait < 0 or held < wait:
                wait = held
        return wait


def _releases(flips, was_active):
    """How many of ``flips`` settled changes, starting from ``was_active``,
    went from active to inactive (a disc's beam clearing, a button let go)."""
    return (flips + (1 if was_active else 0)) // 2
