"""The USB serial transport and framing on the board's side.

The board reads and writes through a *stream* with three methods, ``read()``
(the bytes waiting now, possibly ``b""``, never blocking), ``write(data)``
and ``wait(ms)`` (block until bytes arrive or ``ms`` pass). :class:`UsbStream`
is the real one over USB CDC; tests pass one end of a pseudo-terminal instead.

Example::

    link = Link(UsbStream())
    link.send(wire.PING, b"")
    for seq, kind, payload in link.receive(time.ticks_ms()):
        ...
"""

import sys
import time

import wire


class UsbStream:
    """USB CDC through ``sys.stdin.buffer``/``sys.stdout.buffer``, polled."""

    def __init__(self):
        import select

        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        poll = select.poll()
        poll.register(sys.stdin, select.POLLIN)
        # ipoll() hands back its own tuple instead of a new list: no allocation.
        self._ready = getattr(poll, "ipoll", poll.poll)
        self._buf = bytearray(64)
        self._byte = bytearray(1)

    def _readable(self, ms):
        for _ in self._ready(ms):
            return True
        return False

    def read(self):
        if not self._readable(0):
            return b""
        n = 0
        buf = self._buf
        while n < len(buf) and self._readable(0):
            # readinto() a buffer made once: read(1) would allocate every byte
            if not self._in.readinto(self._byte):
                break
            buf[n] = self._byte[0]
            n += 1
        return bytes(buf[:n])

    def write(self, data):
        self._out.write(data)

    def wait(self, ms):
        """Block until the host's bytes arrive or ``ms`` milliseconds pass."""
        self._readable(ms)


class Link:
    """Frames out, checked frames in; ``seq`` counts the board's frames.

    A partial frame that has waited :data:`wire.FRAME_GAP_MS` without a new
    byte began with a false SYNC (noise, a garbled length): :meth:`receive`
    gives it up then, so real frames behind it do not wait for more bytes.
    """

    def __init__(self, stream):
        self.stream = stream
        self.decoder = wire.Decoder()
        self.seq = 0
        self.heard = time.ticks_ms()  # when the last byte arrived

    def send(self, kind, payload):
        self.seq = (self.seq + 1) & 0xFF
        self.stream.write(wire.encode(self.seq, kind, payload))

    def receive(self, now):
        """The frames that arrived since the last call: a list, or the empty
        tuple (a constant: the idle pass allocates nothing)."""
        data = self.stream.read()
        decoder = self.decoder
        if data:
            decoder.feed(data)
            self.heard = now
        elif decoder.waiting and time.ticks_diff(now, self.heard) >= wire.FRAME_GAP_MS:
            decoder.expire()
        frame = decoder.next_frame()
        if frame is None:
            return ()
        frames = [frame]
        while True:
            frame = decoder.next_frame()
            if frame is None:
                return frames
            frames.append(frame)

    def due_in(self, now):
        """Milliseconds until a partial frame is given up, or -1."""
        if not self.decoder.waiting:
            return -1
        return max(0, wire.FRAME_GAP_MS - time.ticks_diff(now, self.heard))

    def wait(self, ms):
        self.stream.wait(ms)
