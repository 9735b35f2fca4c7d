"""The USB serial transport and framing on the board's side.

The board reads and writes through a *stream* with two methods, ``read()``
(the bytes waiting now, possibly ``b""``, never blocking) and
``write(data)``. :class:`UsbStream` is the real one over USB CDC; tests pass
one end of a pseudo-terminal instead.

Example::

    link = Link(UsbStream())
    link.send(wire.PING, b"")
    for seq, kind, payload in link.receive():
        ...
"""

import sys

import wire


class UsbStream:
    """USB CDC through ``sys.stdin.buffer``/``sys.stdout.buffer``, polled."""

    def __init__(self):
        import select

        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._buf = bytearray(64)

    def read(self):
        n = 0
        buf = self._buf
        while n < len(buf) and self._poll.poll(0):
            byte = self._in.read(1)
            if not byte:
                break
            buf[n] = byte[0]
            n += 1
        return bytes(buf[:n])

    def write(self, data):
        self._out.write(data)


class Link:
    """Frames out, checked frames in; ``seq`` counts the board's frames."""

    def __init__(self, stream):
        self.stream = stream
        self.decoder = wire.Decoder()
        self.seq = 0

    def send(self, kind, payload):
        self.seq = (self.seq + 1) & 0xFF
        self.stream.write(wire.encode(self.seq, kind, payload))

    def receive(self):
        """The frames that arrived since the last call, as a list."""
        data = self.stream.read()
        if data:
            self.decoder.feed(data)
        frames = []
        while True:
            frame = self.decoder.next_frame()
            if frame is None:
                return frames
            frames.append(frame)
