"""PWM outputs: servo dials (detached after moving) and the buzzer.

Example::

    dial = Dial(PWM(Pin(14)), min_us=1000, max_us=2000, rest_us=1500)
    dial.move(90, time.ticks_ms())
    dial.update(time.ticks_ms())   # detaches once the servo has arrived
"""

import time

import wire

SERVO_HZ = 50
MOVE_MS = 600  # long enough for a hobby servo to cross its range
# No hobby servo takes a pulse outside this; pinmap.py's values are kept within.
LOWEST_US = 500
HIGHEST_US = 2500


def _pulse(us):
    return max(LOWEST_US, min(HIGHEST_US, us))


class Dial:
    """A hobby servo used as a dial: ``angle`` 0-180 degrees maps onto
    ``min_us``-``max_us`` (pinmap.py); :meth:`idle` moves it to ``rest_us``.
    ``pulse_us`` is the pulse last sent (None before the first move)."""

    def __init__(self, pwm, min_us=1000, max_us=2000, rest_us=1500):
        self.pwm = pwm
        self.min_us = _pulse(min_us)
        self.max_us = _pulse(max_us)
        self.rest_us = _pulse(rest_us)
        self.pulse_us = None
        self._until = None
        pwm.freq(SERVO_HZ)
        pwm.duty_u16(0)

    def move(self, angle, now):
        angle = max(0, min(180, angle))
        self._send(self.min_us + (self.max_us - self.min_us) * angle // 180, now)

    def _send(self, pulse_us, now):
        if pulse_us == self.pulse_us:
            return
        self.pulse_us = pulse_us
        self.pwm.duty_u16(pulse_us * 65535 // (1000000 // SERVO_HZ))
        self._until = time.ticks_add(now, MOVE_MS)

    def update(self, now):
        # Detach once there: a held servo jitters and hums under software PWM.
        if self._until is not None and time.ticks_diff(now, self._until) >= 0:
            self.pwm.duty_u16(0)
            self._until = None

    def idle(self, now):
        self._send(self.rest_us, now)

    def due_in(self, now):
        """Milliseconds until :meth:`update` detaches the servo, or -1."""
        if self._until is None:
            return -1
        return max(0, time.ticks_diff(self._until, now))


# (tone on ms, tone off ms) repeated; played once when the alert appears.
_PATTERNS = {
    wire.ALERT_ERROR: ((120, 80), (120, 80), (120, 0)),
    wire.ALERT_WIN: ((600, 0),),
    wire.ALERT_DRAW: ((200, 150), (200, 0)),
}


class Buzzer:
    """A piezo on a PWM pin; ``sounding`` says whether it is on right now."""

    def __init__(self, pwm, hz=2000):
        self.pwm = pwm
        pwm.freq(hz)
        pwm.duty_u16(0)
        self.sounding = False
        self._alert = wire.ALERT_NONE
        self._steps = ()
        self._step = 0
        self._at = 0

    def alert(self, code, now):
        if code == self._alert:
            return
        self._alert = code
        self._steps = _PATTERNS.get(code, ())
        self._step = 0
        self._at = now
        self._set(bool(self._steps))

    def update(self, now):
        if self._step >= len(self._steps):
            self._set(False)
            return
        on_ms, off_ms = self._steps[self._step]
        elapsed = time.ticks_diff(now, self._at)
        if elapsed < on_ms:
            self._set(True)
        elif elapsed < on_ms + off_ms:
            self._set(False)
        else:
            self._step += 1
            self._at = now
            self._set(self._step < len(self._steps))

    def due_in(self, now):
        """Milliseconds until :meth:`update` moves the pattern on, or -1."""
        if self._step >= len(self._steps):
            return -1
        on_ms, off_ms = self._steps[self._step]
        elapsed = time.ticks_diff(now, self._at)
        if elapsed < on_ms:
            return on_ms - elapsed
        return max(0, on_ms + off_ms - elapsed)

    def _set(self, on):
        if on != self.sounding:
            self.sounding = on
            self.pwm.duty_u16(32768 if on else 0)

    def idle(self):
        self._alert = wire.ALERT_NONE
        self._steps = ()
        self._set(False)
