"""One open connection to the sensor board: a pyserial port and its reader.

The reader thread does nothing but cut the byte stream into checked frames,
queue them and call ``wake``; everything else happens on the daemon's thread,
including giving up a partial frame that waited too long (:meth:`PortLink.expire`,
on the daemon's clock, so a run in simulated time repeats exactly).

Example::

    port = PortLink.open("/dev/ttyACM0", 115200, inbox, wake)
    port.send(wire.encode(1, wire.PING, b""))
    port.close()
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

import serial

from hardware import wire

log = logging.getLogger("popref.serial")

# Queue items: (generation, frame) or (generation, None) when the port died.
Inbox = queue.SimpleQueue[tuple[int, tuple[int, int, bytes] | None]]

_READ_TIMEOUT = 0.05  # how promptly the reader notices close()
# What a Pico at the MicroPython prompt sends instead of frames: its banner
# (at a soft reset too) and its prompt (after a traceback, or in maintenance
# mode; written escaped so that doctest does not take it for an example). The
# prompt's banner went out before popref opened the port, but the host's
# frames carry control bytes the prompt obeys: 0x01 (a HOST_HELLO's length)
# switches it to its raw mode, which says so, and 0x02 back, with the banner.
REPL_MARKS = (b"MicroPython v", b"\x3e\x3e\x3e ", b"raw REPL; CTRL-B to exit")
_MARK_OVERLAP = max(len(mark) for mark in REPL_MARKS) - 1
_WRITE_TIMEOUT = 0.2  # a board that stopped reading must not stall the daemon


class PortLink:
    """A connected port. ``generation`` tags its queue items so that frames
    from a port already given up are ignored."""

    def __init__(self, port: Any, generation: int, inbox: Inbox, wake: Callable[[], None]):
        self._port = port
        self.generation = generation
        self._inbox = inbox
        self._wake = wake
        self._stop = threading.Event()
        self.ended = threading.Event()  # the reader has stopped (port gone or closed)
        self.decoder = wire.Decoder()
        self._decoding = threading.Lock()  # the reader and expire() share the decoder
        self.bytes_in = 0  # counted once the bytes' frames are queued
        self.bytes_out = 0
        # The MicroPython prompt's banner or prompt came after the last frame
        # (a board that is not running popref's firmware); set by the reader.
        self.at_prompt = False
        self._tail = b""  # the last bytes read, for a mark split across reads
        self._thread = threading.Thread(
            target=self._read_loop, name=f"popref-serial-{generation}", daemon=True
        )
        self._thread.start()

    @classmethod
    def open(
        cls, url: str, baud: int, generation: int, inbox: Inbox, wake: Callable[[], None]
    ) -> PortLink:
        """Open ``url`` (a device path or pyserial URL); raises
        ``serial.SerialException`` or ``OSError`` when it is not there."""
        port = serial.serial_for_url(
            url, baudrate=baud, timeout=_READ_TIMEOUT, write_timeout=_WRITE_TIMEOUT
        )
        return cls(port, generation, inbox, wake)

    def _read_loop(self) -> None:
        try:
            while not self._stop.is_set():
                data = self._port.read(1)
                if not data:
                    continue
                waiting = self._port.in_waiting
                if waiting:
                    data += self._port.read(waiting)
                with self._decoding:
                    self.decoder.feed(data)
                    if self._queue_frames():
                        self.at_prompt = False
                    self.bytes_in += len(data)
                self._watch_for_the_prompt(data)
                # Woken even for bytes that made no frame: a spurious poll is
                # cheap, and it lets a test wait for exactly these bytes.
                self._wake()
        # The thread's boundary: whatever a dying port raises (SerialException,
        # OSError, or TypeError once closed under us) means the same thing.
        except Exception as error:
            if not self._stop.is_set():
                log.debug("serial reader stopped: %s", error)
        self._inbox.put((self.generation, None))
        self.ended.set()
        self._wake()

    def _queue_frames(self) -> int:
        queued = 0
        while (frame := self.decoder.next_frame()) is not None:
            self._inbox.put((self.generation, frame))
            queued += 1
        return queued

    def _watch_for_the_prompt(self, data: bytes) -> None:
        """Note a MicroPython banner or prompt among the bytes read (frames
        read with them in one chunk count as before it: a board that crashed
        to the prompt sends no frame after it)."""
        seen = self._tail + data
        if any(mark in seen for mark in REPL_MARKS):
            self.at_prompt = True
        self._tail = seen[-_MARK_OVERLAP:]

    @property
    def waiting(self) -> int:
        """Bytes of a partial frame held by the decoder."""
        return self.decoder.waiting

    def expire(self, bytes_in: int) -> bool:
        """Give up the partial frame held now, if no byte came since the
        count was ``bytes_in`` (the line has been quiet for longer than a
        frame takes): its SYNC was noise, and the frames it hid are queued at
        once. True when it gave one up."""
        with self._decoding:
            if self.bytes_in != bytes_in or not self.decoder.waiting:
                return False  # bytes arrived meanwhile: the frame may be real
            self.decoder.expire()
            self._queue_frames()
            return True

    def send(self, frame: bytes) -> bool:
        """Write one frame; False when the port has failed."""
        try:
            self.bytes_out += self._port.write(frame) or 0
        except serial.SerialTimeoutException:
            return True  # the frame is lost, like a corrupted one; resends cover it
        except (serial.SerialException, OSError, TypeError, AttributeError) as error:
            log.debug("serial write failed: %s", error)
            return False
        return True

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(
            AttributeError, NotImplementedError, OSError, serial.SerialException
        ):
            self._port.cancel_read()
        self._thread.join(timeout=1.0)
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.close()
