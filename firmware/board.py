"""The sensor board's main loop: sensors in, counters out, display in.

Every input is counted cumulatively since boot (drops and pops per column,
slider changes, button presses and holds) and reported in a heartbeat a few
times a second and at once on any change, so a lost report costs nothing and
a new ``boot_id`` tells the host the board has reset.

The loop sleeps between passes in ``select.poll`` on the USB line
(:meth:`Link.wait`), until the next timer (:meth:`SensorBoard.due_in`) or
until the host's bytes arrive, whichever is first; so a display is read the
moment it arrives, not on the next millisecond tick.

Example (``main.py`` does this with the real pins)::

    board = SensorBoard(link, entries, exits, slider, button, lights,
                        dials=(), buzzer=None, wdt=WDT(timeout=5000),
                        boot_id=random.getrandbits(32))
    board.run()
"""

import time

import timing
import wire

HOST_SILENT_MS = 2000  # no frame from the host for this long: outputs to safe idle
# Pin edges come in by IRQ, which cannot end a poll: wake at least this often,
# less than a beam's settle window, so a settled edge is reported on time (the
# IRQs count it meanwhile) and the level backstop (sensors.Input) sees a beam
# blocked by any disc whose IRQ was lost.
MAX_WAIT_MS = 5
if MAX_WAIT_MS >= timing.BEAM_SETTLE_MS:
    raise ValueError("MAX_WAIT_MS must stay below timing.BEAM_SETTLE_MS")


class SensorBoard:
    """One board. :meth:`step` is one pass of the main loop; tests call it."""

    def __init__(self, link, entries, exits, slider, button, lights, dials=(),
                 buzzer=None, wdt=None, boot_id=0, target=10):
        self.link = link
        self.entries = entries
        self.exits = exits
        self.slider = slider
        self.button = button
        self.lights = lights
        self.dials = dials
        self.buzzer = buzzer
        self.wdt = wdt
        self.boot_id = boot_id
        self.target = target
        self.columns = len(entries)
        self.drops = [0] * self.columns
        self.pops = [0] * self.columns
        self.slider_changes = 0
        self.shown = wire.NO_DISPLAY
        self.idle = True
        self.started = time.ticks_ms()
        self.host_seen = self.started
        self._last_beat = self.started
        # Milliseconds since boot, 32 bits (wraps after 49.7 days): ticks wrap
        # every 2**30 ms, so this adds up the ticks between heartbeats instead.
        self.uptime_ms = 0
        self._uptime_at = self.started
        self._hello_sent = False
        self._faults = (0, 0)
        self._counted = False  # a disc was counted in this pass
        self._go_idle(self.started)

    def run(self):
        link = self.link
        while True:
            self.step()
            wait = self.due_in(time.ticks_ms())
            link.wait(wait if wait < MAX_WAIT_MS else MAX_WAIT_MS)

    def due_in(self, now):
        """Milliseconds from ``now`` until a pass can change anything (at least
        1: a pass has just run), bytes from the host apart; ``run`` waits this
        long, and the simulated board (``hardware/sim/board``) steps by it."""
        if not self._hello_sent:
            return 1
        wait = max(0, wire.HEARTBEAT_MS - time.ticks_diff(now, self._last_beat))
        for c in range(self.columns):  # no tuple of the two lists: that allocates
            wait = _sooner(wait, self.entries[c].due_in(now))
            wait = _sooner(wait, self.exits[c].due_in(now))
        wait = _sooner(wait, self.slider.due_in(now))
        wait = _sooner(wait, self.button.due_in(now))
        wait = _sooner(wait, self.link.due_in(now))
        if not self.idle:
            wait = _sooner(wait, max(0, HOST_SILENT_MS - time.ticks_diff(now, self.host_seen)))
        wait = _sooner(wait, self.lights.due_in(now))
        for dial in self.dials:
            wait = _sooner(wait, dial.due_in(now))
        if self.buzzer is not None:
            wait = _sooner(wait, self.buzzer.due_in(now))
        return wait if wait > 1 else 1

    def step(self):
        now = time.ticks_ms()
        if not self._hello_sent:
            self._hello_sent = True
            self._send_hello()
        for _, kind, payload in self.link.receive(now):
            self._handle(kind, payload, now)
        changed = self._read_inputs(now)
        if not self.idle and time.ticks_diff(now, self.host_seen) >= HOST_SILENT_MS:
            self._go_idle(now)
            changed = True
        self.lights.update(now)
        for dial in self.dials:
            dial.update(now)
        if self.buzzer is not None:
            self.buzzer.update(now)
        if changed or time.ticks_diff(now, self._last_beat) >= wire.HEARTBEAT_MS:
            self._beat(now)
        if self.wdt is not None:
            self.wdt.feed()

    def _read_inputs(self, now):
        self._counted = False
        entry_faults = self._count(self.entries, self.drops, now)
        exit_faults = self._count(self.exits, self.pops, now)
        changed = self._counted
        if entry_faults != self._faults[0] or exit_faults != self._faults[1]:
            self._faults = (entry_faults, exit_faults)
            changed = True
        flips = self.slider.update(now)
        if flips:
            changed = True
            self.slider_changes = (self.slider_changes + flips) & 0xFFFF
        if self.button.update(now):
            changed = True
        return changed

    def _count(self, beams, counts, now):
        """Add the discs through ``beams`` since the last pass to ``counts``
        (``_counted`` tells whether there were any); returns the bits of the
        beams stuck now. A disc counts when its beam clears; a stuck beam is
        a fault bit instead, and its clearing is no disc (as
        hardware/debounce.py)."""
        faults = 0
        for c in range(self.columns):
            beam = beams[c]
            passed = beam.update(now)
            if passed:
                counts[c] = (counts[c] + passed) & 0xFFFF
                self._counted = True
            if beam.stuck:
                faults |= 1 << c
        return faults

    def _handle(self, kind, payload, now):
        self.host_seen = now
        if kind == wire.HOST_HELLO:
            self._send_hello()
            self._beat(now)  # the host's baseline for the counters, at once
        elif kind == wire.SHOW:
            try:
                show = wire.unpack_show(payload)
            except ValueError:
                return
            self._apply(show, now)
            self.link.send(wire.ACK, wire.pack_ack(show.display_id))

    def _apply(self, show, now):
        self.idle = False
        if show.display_id == self.shown:
            return  # idempotent: a resend of what is already shown
        self.shown = show.display_id
        self.lights.show(show)
        scores = (show.red_score, show.yellow_score)
        for dial, score in zip(self.dials, scores):
            if score == wire.NO_SCORE:
                dial.idle(now)
            else:
                dial.move(180 * min(score, self.target) // self.target, now)
        if self.buzzer is not None:
            self.buzzer.alert(show.alert, now)

    def _go_idle(self, now):
        self.idle = True
        self.shown = wire.NO_DISPLAY
        self.lights.show(None)
        for dial in self.dials:
            dial.idle(now)
        if self.buzzer is not None:
            self.buzzer.idle()

    def _send_hello(self):
        self.link.send(wire.HELLO, wire.pack_hello(self.boot_id, self.columns))

    def _beat(self, now):
        self._last_beat = now
        self.uptime_ms = (self.uptime_ms + time.ticks_diff(now, self._uptime_at)) & 0xFFFFFFFF
        self._uptime_at = now
        hb = wire.Heartbeat(
            self.boot_id, self.uptime_ms, self.shown,
            self.slider.active, self.slider_changes, self.button.down,
            self.button.presses, self.button.holds, self._faults[0], self._faults[1],
            self.drops, self.pops,
        )
        self.link.send(wire.HEARTBEAT, wire.pack_heartbeat(hb))


def _sooner(wait, other):
    """The smaller wait, where -1 means "nothing due"."""
    return other if 0 <= other < wait else wait
