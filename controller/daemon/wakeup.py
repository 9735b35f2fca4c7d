"""The daemon loop's one wait: input from any thread, a stop request, or a
signal, with no wake-up lost whenever it comes.

A wake-up is a byte in a socket pair, not a flag: it stays there until the
loop's next :meth:`Wakeup.wait` takes it, so one that comes while the loop is
busy (or before it first waits) ends that wait at once. Signals use the same
socket through :func:`signal.set_wakeup_fd`: the interpreter's own C handler
writes the signal's number the moment it arrives, and the Python handler does
nothing at all, so it can never block on a lock the interrupted loop holds
(``threading.Event.set`` in a handler can: the loop may be inside that very
event's ``clear`` or ``wait`` when the signal lands).

>>> wakeup = Wakeup()
>>> wakeup.set(); wakeup.set()
>>> wakeup.wait(60.0)
True
>>> wakeup.wait(0.0)
False
>>> wakeup.stop()
>>> wakeup.wait(60.0), wakeup.stopping
(True, True)
>>> wakeup.close()
"""

from __future__ import annotations

import contextlib
import select
import signal
import socket
import sys
from collections.abc import Iterator
from types import FrameType

_INPUT = b"\0"  # any other byte is a signal's number, from set_wakeup_fd

# How long a woken thread waits for the interpreter lock while another holds
# it: CPython's default is 5 ms. Every path of the daemon is a hand-over
# between threads (paho's network thread, the loop, the web server's, the
# computer's search), and paho's thread makes several system calls to send
# one message, waiting again after each while the loop draws the lights:
# bench/remote.py's p95 from the journal to the friend (tmpfs) fell from 14-17 ms
# to 5.6-7.1 ms with this (docs/remote.md, "Figures").
HANDOFF = 0.0005


def quick_handoffs() -> None:
    """Let a woken thread take the interpreter lock within :data:`HANDOFF`
    (process-wide; never lengthens a shorter interval already set)."""
    sys.setswitchinterval(min(sys.getswitchinterval(), HANDOFF))


class Wakeup:
    """Wake-ups from any thread or signal handler for one waiting thread."""

    def __init__(self) -> None:
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        self._pending = False  # a byte is already on its way: skip the syscall
        self.stopping = False

    def set(self) -> None:
        """Wake the waiting thread (input arrived). Safe from any thread."""
        if self._pending:
            return
        self._pending = True
        self._send()

    def stop(self) -> None:
        """Ask the loop to stop, and wake it. Safe from any thread."""
        self.stopping = True
        self._send()

    def _send(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            # a full buffer already holds a wake-up; a closed one has no reader
            self._writer.send(_INPUT)

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a wake-up; take every one that
        came, and say whether any did. A signal's byte sets :attr:`stopping`."""
        ready, _, _ = select.select([self._reader], [], [], max(0.0, timeout))
        if not ready:
            return False
        with contextlib.suppress(BlockingIOError):
            while data := self._reader.recv(4096):
                if data.strip(_INPUT):
                    self.stopping = True
        # Clear only once the socket is empty. Cleared before, a set() landing
        # in the drain had its byte taken with the others and left the flag
        # up with no byte behind it: every later set() skipped its byte and
        # the loop woke only at its own deadlines (issue 22: a friend's
        # request waited for the inputs' re-read, 0.5 s). A set() that still
        # sees the flag up came before this return: the caller's next step
        # finds its input.
        self._pending = False
        return True

    @contextlib.contextmanager
    def stop_on(self, *signals: signal.Signals) -> Iterator[None]:
        """Within the block, ``signals`` (in the main thread) ask the loop to
        stop, however early or late they arrive."""

        def noted(signum: int, frame: FrameType | None) -> None:
            pass  # the C handler has already written the signal to the socket

        previous = {s: signal.signal(s, noted) for s in signals}
        old_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        try:
            yield
        finally:
            signal.set_wakeup_fd(old_fd)
            for s, handler in previous.items():
                signal.signal(s, handler)

    def close(self) -> None:
        self._reader.close()
        self._writer.close()
