"""The sensor board on MicroPython's unix port: fake ticks, an in-memory USB
line and the stand-in pins. Run by ``checks.py`` and ``bench/firmware.py``
(not by pytest directly: this directory runs under ``micropython``).

``load(deploy, standins)`` puts the board's files (firmware/*.py, wire.py,
timing.py, as on the Pico's flash) and the stand-ins for ``machine`` and
``neopixel`` on ``sys.path`` and swaps ``time`` for :class:`Ticks`, so every
``time.ticks_*`` the firmware calls is a tick the test moves, wrapping at
2**30 ms as on the RP2040 (the unix port's own ticks wrap at 2**62).
"""

import sys

PERIOD = 1 << 30
_HALF = PERIOD // 2
_MASK = PERIOD - 1


class Ticks:
    """MicroPython's ``time.ticks_*``, moved by hand. ``on_diff``, when set,
    runs once inside the next ``ticks_diff`` call: an interrupt arriving in
    the middle of the caller's code."""

    def __init__(self, start):
        self.now = start & _MASK
        self.on_diff = None

    def advance(self, ms):
        self.now = (self.now + ms) & _MASK

    def ticks_ms(self):
        return self.now

    def ticks_add(self, ticks, delta):
        return (ticks + delta) & _MASK

    def ticks_diff(self, a, b):
        hook = self.on_diff
        if hook is not None:
            self.on_diff = None
            hook(a, b)
        return ((a - b + _HALF) & _MASK) - _HALF

    def sleep_ms(self, ms):
        self.advance(ms)


class Line:
    """The board's end of the USB line, in memory: ``incoming`` is what the
    host sent, ``sent`` what the board wrote (unless ``keep`` is False)."""

    def __init__(self):
        self.incoming = bytearray()
        self.sent = bytearray()
        self.keep = True

    def read(self):
        if not self.incoming:
            return b""
        data = bytes(self.incoming)
        self.incoming = bytearray()
        return data

    def write(self, data):
        if self.keep:
            self.sent.extend(data)

    def wait(self, ms):
        pass


def load(deploy, standins, start=PERIOD - 1500):
    """Make the board's modules importable, ticks starting at ``start``
    (just before the wrap, so every timer crosses it); returns the ticks."""
    sys.path.insert(0, deploy)
    sys.path.insert(0, standins)
    ticks = Ticks(start)
    sys.modules["time"] = ticks
    return ticks


class Rig:
    """One board built by ``main.build`` on the stand-in pins, and the host's
    view of what it sent."""

    def __init__(self, ticks, boot_id=0x1234ABCD):
        import machine
        import main
        import pinmap
        import wire

        self.ticks = ticks
        self.machine = machine
        self.pinmap = pinmap
        self.wire = wire
        for n in pinmap.ENTRY_PINS + pinmap.EXIT_PINS:
            machine.Pin(n).drive(0 if pinmap.BEAM_BLOCKED_HIGH else 1)  # beams clear
        machine.Pin(pinmap.SLIDER_PIN).drive(0 if pinmap.SLIDER_OPEN_HIGH else 1)
        machine.Pin(pinmap.BUTTON_PIN).drive(1)  # up
        self.line = Line()
        self.board = main.build(self.line, boot_id)
        self.decoder = wire.Decoder()
        self.seq = 0

    def step(self, ms=1):
        self.ticks.advance(ms)
        self.board.step()

    def run(self, ms):
        for _ in range(ms):
            self.step()

    def beam_level(self, blocked):
        return 1 if blocked == self.pinmap.BEAM_BLOCKED_HIGH else 0

    def beam(self, pins, column, blocked):
        self.machine.Pin(pins[column - 1]).drive(self.beam_level(blocked))

    def send(self, kind, payload, seq=None):
        self.seq = (self.seq + 1) & 0xFF if seq is None else seq
        self.line.incoming.extend(self.wire.encode(self.seq, kind, payload))

    def frames(self):
        """The frames the board sent since the last call."""
        self.decoder.feed(self.line.sent)
        self.line.sent = bytearray()
        out = []
        while True:
            frame = self.decoder.next_frame()
            if frame is None:
                return out
            out.append(frame)

    def heartbeats(self):
        wire = self.wire
        return [wire.unpack_heartbeat(p) for _, kind, p in self.frames() if kind == wire.HEARTBEAT]
