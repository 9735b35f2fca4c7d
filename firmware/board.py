"""The sensor board's main loop: sensors in, counters out, display in.

Every input is counted cumulatively since boot (drops and pops per column,
slider changes, button presses and holds) and reported in a heartbeat a few
times a second and at once on any change, so a lost report costs nothing and
a new ``boot_id`` tells the host the board has reset.

Example (``main.py`` does this with the real pins)::

    board = SensorBoard(link, entries, exits, slider, button, lights,
                        dials=(), buzzer=None, wdt=WDT(timeout=5000),
                        boot_id=random.getrandbits(32))
    board.run()
"""

import time

import micropython
import wire

HEARTBEAT_MS = 200
HOST_SILENT_MS = 2000  # no frame from the host for this long: outputs to safe idle
BLOCKED_MS = 3000  # a beam blocked this long is reported as a sensor fault


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
        self._hello_sent = False
        self._faults = (0, 0)
        # The host's serial line is binary: a 0x03 byte must not stop the program.
        micropython.kbd_intr(-1)
        self._go_idle(self.started)

    def run(self):
        while True:
            self.step()
            time.sleep_ms(1)

    def step(self):
        now = time.ticks_ms()
        if not self._hello_sent:
            self._hello_sent = True
            self._send_hello()
        for _, kind, payload in self.link.receive():
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
        if changed or time.ticks_diff(now, self._last_beat) >= HEARTBEAT_MS:
            self._beat(now)
        if self.wdt is not None:
            self.wdt.feed()

    def _read_inputs(self, now):
        changed = False
        for c in range(self.columns):
            if self.entries[c].update(now):
                changed = True
                if self.entries[c].active:
                    self.drops[c] = (self.drops[c] + 1) & 0xFFFF
            if self.exits[c].update(now):
                changed = True
                if self.exits[c].active:
                    self.pops[c] = (self.pops[c] + 1) & 0xFFFF
        if self.slider.update(now):
            changed = True
            self.slider_changes = (self.slider_changes + 1) & 0xFFFF
        if self.button.update(now):
            changed = True
        faults = (self._blocked(self.entries, now), self._blocked(self.exits, now))
        if faults != self._faults:
            self._faults = faults
            changed = True
        return changed

    def _blocked(self, inputs, now):
        bits = 0
        for c in range(len(inputs)):
            if inputs[c].active and inputs[c].held_for(now) >= BLOCKED_MS:
                bits |= 1 << c
        return bits

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
        hb = wire.Heartbeat(
            self.boot_id, time.ticks_diff(now, self.started), self.shown,
            self.slider.active, self.slider_changes, self.button.down,
            self.button.presses, self.button.holds, self._faults[0], self._faults[1],
            self.drops, self.pops,
        )
        self.link.send(wire.HEARTBEAT, wire.pack_heartbeat(hb))
