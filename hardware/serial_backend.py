"""The sensor-board backend: a :class:`~hardware.backend.Backend` over serial.

Inbound, the board's heartbeats (cumulative counters, see
:mod:`hardware.serial_counts`) become the same events the GPIO backend makes.
Outbound, :meth:`SerialBackend.show` sends the whole display as one
idempotent message, resent until the board acknowledges it and again
whenever a heartbeat says the board shows something else (it reset, or went
dark after losing the host). A board that stops answering is a
``SensorFault("sensor board", ...)``; the port is reopened with backoff and
the fault clears when the board answers again.

Example::

    backend = SerialBackend(SerialConfig("/dev/ttyACM0"), columns=7, rows=6)
    backend.open(wake)
    events = backend.poll(clock())
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable

import serial

from engine.colour import Colour
from engine.sentence import Sentence
from hardware import looks, wire
from hardware.backend import Mark, Marked
from hardware.display import Alert, ColumnLight, Display
from hardware.events import Event, SensorCleared, SensorFault
from hardware.serial_config import SerialConfig
from hardware.serial_counts import CounterTracker
from hardware.serial_port import Inbox, PortLink

log = logging.getLogger("popref.serial")

BOARD = "sensor board"
GONE = Sentence("The sensor board stopped answering; check its USB cable.")
AT_PROMPT = Sentence(
    "The sensor board is at the MicroPython prompt, not running popref's firmware: "
    "copy the firmware to it and reset it, or unplug it and plug it back in without "
    "holding the mode button (docs/sensor-board.md)."
)
ECHO = Sentence(
    "The serial port sends back what popref sends it; is it the sensor board? "
    "Check [serial] port (docs/sensor-board.md)."
)
_FROM_BOARD = (wire.HELLO, wire.HEARTBEAT, wire.ACK)
_HELLO_EVERY = 0.25

_ALERTS = {
    Alert.NONE: wire.ALERT_NONE,
    Alert.ERROR: wire.ALERT_ERROR,
    Alert.WIN: wire.ALERT_WIN,
    Alert.DRAW: wire.ALERT_DRAW,
}


def _deadline(then: float, period: float) -> float:
    """When a timer started at ``then`` with ``period`` runs out."""
    return then + period


def _due(now: float, then: float, period: float) -> bool:
    """Whether a timer started at ``then`` has run ``period`` by ``now``.

    It compares ``now`` with the very sum :meth:`SerialBackend.next_deadline`
    reports, so a poll at a reported deadline always finds its timer due
    (``now - then >= period`` rounds differently and can miss it).

    >>> (0.1 + 0.25) - 0.1 >= 0.25
    False
    >>> _due(0.1 + 0.25, 0.1, 0.25)
    True
    """
    return now >= _deadline(then, period)


def _unmarked(events: list[Event]) -> list[Marked]:
    return [(event, None) for event in events]


def _colour_code(colour: Colour | None) -> int:
    if colour is None:
        return wire.COLOUR_NONE
    return wire.COLOUR_RED if colour is Colour.RED else wire.COLOUR_YELLOW


def show_message(display: Display, display_id: int, columns: int) -> wire.Show:
    """The wire form of ``display`` for a board with ``columns`` columns.

    >>> message = show_message(Display.dark(7), 1, 7)
    >>> message.red_score == message.yellow_score == wire.NO_SCORE
    True
    >>> show_message(Display(Display.dark(7).columns, scores=(3, 300)), 1, 7).yellow_score
    254
    """
    lights = list(display.columns[:columns])
    lights += [ColumnLight()] * (columns - len(lights))
    winning = [0] * columns
    for column, row in display.winning:
        if 1 <= column <= columns and 1 <= row <= wire.MAX_ROWS:
            winning[column - 1] |= 1 << (row - 1)
    # a score above 254 is shown as 254: 255 (NO_SCORE) would hide it; and no
    # scores at all stay NO_SCORE (clamped too, they lit every score LED)
    red, yellow = (
        (min(score, wire.NO_SCORE - 1) for score in display.scores)
        if display.scores is not None
        else (wire.NO_SCORE, wire.NO_SCORE)
    )
    return wire.Show(
        display_id,
        _colour_code(display.turn),
        red,
        yellow,
        _ALERTS[display.alert],
        [looks.CODES[light.lamp.value] for light in lights],
        [_colour_code(light.colour) for light in lights],
        winning,
    )


class SerialBackend:
    """The board at ``config.port``. Single-threaded use, like every backend;
    only the port's reader thread runs beside it."""

    def __init__(self, config: SerialConfig, columns: int = 7, rows: int = 6) -> None:
        if not 1 <= columns <= wire.MAX_COLUMNS:
            raise ValueError(f"the sensor board handles 1 to {wire.MAX_COLUMNS} columns")
        self.config = config
        self._columns = columns
        self._rows = rows
        self._wake: Callable[[], None] = lambda: None
        self._inbox: Inbox = queue.SimpleQueue()
        self._link: PortLink | None = None
        self._generation = 0
        self._counts = CounterTracker(columns, rows)
        # At most a grid's worth of events per poll, so no loop step runs
        # long: the rest wait here for the next poll, which is due at once.
        self._budget = max(1, columns * rows)
        self._backlog: list[Marked] = []
        self._behind = False  # the last poll left frames in the inbox
        self._up = False  # a good hello arrived on this connection
        self._incompatible: str | None = None
        self._faulted = False
        self._started: float | None = None
        self._last_rx: float | None = None  # the last frame from the board
        self._echoed = False  # the host's own frames came back since the board's last
        self._last_tx = float("-inf")
        self._hello_at = float("-inf")  # the last HOST_HELLO
        self._hello_due: float | None = None  # a HOST_HELLO asked for by a heartbeat
        self._hello_backoff = _HELLO_EVERY
        self._reconnect_at: float | None = None
        self._backoff = config.reconnect_min
        self._display: Display | None = None
        self._display_id = 0
        self._acked = True
        self._show_at = float("-inf")
        self._seq = 0
        self._now = float("-inf")  # the latest poll's time, for show()
        self._sent = False  # a frame went out during this poll's timers
        self.frames_in = 0
        self.reconnects = 0
        # A partial frame held this long without a new byte began with a
        # false SYNC: 1.5 times the longest frame's time on the line, at least
        # the board's own FRAME_GAP_MS (USB ignores the baud rate).
        longest = (wire.HEADER + wire.MAX_PAYLOAD + wire.TRAILER) * 10 / config.baud
        self.frame_gap = max(wire.FRAME_GAP_MS / 1000, 1.5 * longest)
        self._bytes_seen = 0  # the port's byte count at the last poll
        self._bytes_at = float("-inf")  # the poll that saw it change

    @property
    def columns(self) -> int:
        return self._columns

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def senses_colour(self) -> bool:
        return False

    @property
    def connected(self) -> bool:
        """Whether the board is answering and its counters are known."""
        return self._up and not self._faulted and self._counts.last is not None

    @property
    def port_link(self) -> PortLink | None:
        """The open connection, if any (for tests and benchmarks)."""
        return self._link

    @property
    def heartbeats_rejected(self) -> int:
        """How many heartbeats could not be trusted (stale or damaged)."""
        return self._counts.rejected

    @property
    def resets_seen(self) -> int:
        """How many board resets (new boot ids) this backend has followed."""
        return self._counts.resets

    def open(self, wake: Callable[[], None]) -> None:
        self._wake = wake
        self._reconnect_at = float("-inf")  # the first poll opens the port

    def close(self) -> None:
        if self._link is not None:
            # Dark is the safe idle state; the board also goes dark on its own
            # two seconds after the host falls silent.
            self._send(wire.SHOW, wire.pack_show(
                show_message(Display.dark(self._columns), self._next_id(), self._columns)
            ))  # fmt: skip
            self._link.close()
            self._link = None

    def show(self, display: Display) -> None:
        if display == self._display:
            return
        self._display = display
        self._display_id = self._next_id()
        self._acked = False
        self._show_at = self._now
        self._send_show()

    def _next_id(self) -> int:
        nid = (self._display_id + 1) & 0xFFFF
        return 0 if nid == wire.NO_DISPLAY else nid

    def next_deadline(self) -> float | None:
        if self._backlog or self._behind:
            return self._now  # a poll stopped at its budget: the rest are due now
        deadlines: list[float] = []
        if self._link is None:
            if self._reconnect_at is not None:
                deadlines.append(self._reconnect_at)
        else:
            deadlines.append(_deadline(self._last_tx, self.config.keepalive))
            if not self._up:
                deadlines.append(_deadline(self._hello_at, _HELLO_EVERY))
            elif not self._acked:
                deadlines.append(_deadline(self._show_at, self.config.resend))
            if self._up and self._hello_due is not None:
                deadlines.append(self._hello_due)
            if not self._faulted and self._last_rx is not None:
                deadlines.append(_deadline(self._last_rx, self.config.timeout))
            if self._link.waiting:
                deadlines.append(_deadline(self._bytes_at, self.frame_gap))
        if not self._faulted and self._started is not None and self._last_rx is None:
            deadlines.append(_deadline(self._started, self.config.timeout))
        return min(deadlines) if deadlines else None

    def poll(self, now: float) -> list[Event]:
        return [event for event, _ in self.poll_marked(now)]

    def poll_marked(self, now: float) -> list[Marked]:
        """:meth:`poll`, each event with the counters consumed up to it
        (``None`` for events that are not counts)."""
        if self._started is None:
            self._started = now
        self._now = now
        self._expire_partial(now)
        events = self._backlog
        while len(events) < self._budget:
            try:
                generation, frame = self._inbox.get_nowait()
            except queue.Empty:
                break
            if self._link is None or generation != self._link.generation:
                continue  # from a connection already given up
            if frame is None:
                self._drop_link(now, "the port closed")
                events += _unmarked(self._fault(now, GONE))
            else:
                events += self._frame(frame, now)
        self._behind = len(events) >= self._budget
        events += _unmarked(self._timers(now))
        events, self._backlog = events[: self._budget], events[self._budget :]
        return events

    def resume(self, mark: Mark) -> None:
        """Count on from a mark the daemon journalled: whatever the board
        counted since (the daemon was down, or crashed before its journal
        write) arrives as events instead of being taken as a baseline."""
        self._counts.resume(mark)

    def _expire_partial(self, now: float) -> None:
        """Give up a partial frame that has waited ``frame_gap`` since the
        last byte (a garbled length would otherwise hold the frames behind it
        until enough bytes come to fill it)."""
        link = self._link
        if link is None:
            return
        seen = link.bytes_in
        if seen != self._bytes_seen:
            self._bytes_seen = seen
            self._bytes_at = now
        elif link.waiting and _due(now, self._bytes_at, self.frame_gap):
            link.expire(seen)

    # -- connection -----------------------------------------------------

    def _connect(self, now: float) -> None:
        self._generation += 1
        try:
            self._link = PortLink.open(
                self.config.port, self.config.baud, self._generation, self._inbox, self._wake
            )
        except (serial.SerialException, OSError, ValueError) as error:
            self._reconnect_at = now + self._backoff
            log.debug("cannot open %s (%s); next try in %.1f s", self.config.port, error,
                      self._backoff)  # fmt: skip
            self._backoff = min(self._backoff * 2, self.config.reconnect_max)
            return
        self.reconnects += 1
        self._bytes_seen = 0
        self._bytes_at = now
        self._reconnect_at = None
        self._up = False
        self._last_rx = None if self._last_rx is None else now
        self._hello_at = float("-inf")
        self._acked = self._display is None

    def _drop_link(self, now: float, why: str) -> None:
        if self._link is not None:
            log.debug("dropping the sensor board's port: %s", why)
            self._link.close()
            self._link = None
        self._up = False
        self._reconnect_at = now + self._backoff
        self._backoff = min(self._backoff * 2, self.config.reconnect_max)

    def _fault(self, now: float, message: str) -> list[Event]:
        if self._faulted:
            return []
        self._faulted = True
        # the referee logs the fault it is handed: logged here too, each
        # fault was in the daemon's log twice
        log.debug("%s", message)
        return [SensorFault(BOARD, message, at=now)]

    def _silence(self) -> Sentence:
        """Why the board is not heard: what came instead of its frames, if
        anything told (a MicroPython prompt, the host's own frames)."""
        if self._link is not None and self._link.at_prompt:
            return AT_PROMPT
        if self._echoed:
            return ECHO
        return GONE

    def _send(self, kind: int, payload: bytes) -> None:
        if self._link is None:
            return
        self._seq = (self._seq + 1) & 0xFF
        if not self._link.send(wire.encode(self._seq, kind, payload)):
            self._inbox.put((self._link.generation, None))
        self._sent = True

    def _send_show(self) -> None:
        if self._link is None or not self._up or self._display is None:
            return
        message = show_message(self._display, self._display_id, self._columns)
        self._send(wire.SHOW, wire.pack_show(message))

    # -- input ------------------------------------------------------------

    def _frame(self, frame: tuple[int, int, bytes], now: float) -> list[Marked]:
        seq, kind, payload = frame
        self.frames_in += 1
        if kind not in _FROM_BOARD:
            # one of the host's own frames (HOST_HELLO, SHOW, PING) come back:
            # a port that echoes (loop://, a terminal) is not a board heard
            self._echoed = True
            return []
        self._last_rx = now
        self._echoed = False
        try:
            if kind == wire.HELLO:
                return _unmarked(self._hello(payload, now))
            if kind == wire.HEARTBEAT and self._up and self._incompatible is None:
                return self._heartbeat(wire.unpack_heartbeat(payload), now, seq)
            if kind == wire.ACK and wire.unpack_ack(payload) == self._display_id:
                self._acked = True
        except ValueError as error:
            log.debug("ignoring a malformed frame of kind %d: %s", kind, error)
        return []

    def _hello(self, payload: bytes, now: float) -> list[Event]:
        version, boot_id, columns = wire.unpack_hello(payload)
        if version != wire.PROTOCOL_VERSION:
            problem: Sentence | None = Sentence(
                "The sensor board speaks protocol version {version} but popref speaks "
                "{ours}; update the board's firmware (docs/sensor-board.md).",
                version=version,
                ours=wire.PROTOCOL_VERSION,
            )
        elif columns != self._columns:
            problem = Sentence(
                "The sensor board has {columns} columns but the grid has {grid}; "
                "fix COLUMNS in the board's pinmap.py or [board] columns.",
                columns=columns,
                grid=self._columns,
            )
        else:
            problem = None
        if problem is not None:
            if problem == self._incompatible:
                return []  # said once already
            self._incompatible = problem
            self._faulted = False  # report this, not a silent board
            return self._fault(now, problem)
        self._incompatible = None
        self._counts.announce(boot_id)
        if not self._up:
            self._up = True
            self._acked = self._display is None
            self._show_at = float("-inf")
        return []

    def _heartbeat(self, hb: wire.Heartbeat, now: float, seq: int) -> list[Marked]:
        events: list[Marked] = []
        if self._faulted:
            self._faulted = False
            self._backoff = self.config.reconnect_min
            log.debug("the sensor board answers again")  # the referee logs the clearing
            events.append((SensorCleared(BOARD, at=now), None))
        events += self._counts.update_marked(hb, now, seq)
        if self._counts.wants_hello:
            # a boot id no hello announced: a reset whose hello was lost, or
            # damage; the board's answer to a host hello says which. Asked
            # ever more slowly while its heartbeats stay untrusted, so a
            # board and host cannot keep each other busy saying hello.
            self._counts.wants_hello = False
            if self._hello_due is None:
                self._hello_due = max(now, self._hello_at + self._hello_backoff)
                self._hello_backoff = min(2 * self._hello_backoff, self.config.reconnect_max)
        elif self._counts.fault is None:
            self._hello_backoff = _HELLO_EVERY
        if hb.shown != self._display_id and self._display is not None:
            self._acked = False  # it reset or went dark: show it again
        return events

    # -- timers -------------------------------------------------------------

    def _timers(self, now: float) -> list[Event]:
        events: list[Event] = []
        if self._link is None and self._reconnect_at is not None and now >= self._reconnect_at:
            self._connect(now)
        silent_since = self._last_rx if self._last_rx is not None else self._started
        if silent_since is not None and _due(now, silent_since, self.config.timeout):
            events += self._fault(now, self._silence())
            if self._link is not None and _due(now, silent_since, 3 * self.config.timeout):
                # Silent for long on an open port: the device may be a stale node.
                self._last_rx = now
                self._drop_link(now, "silent")
        if self._link is None:
            return events
        self._sent = False
        asked = self._hello_due is not None and now >= self._hello_due
        if (not self._up and _due(now, self._hello_at, _HELLO_EVERY)) or (self._up and asked):
            self._hello_at = now
            self._hello_due = None
            self._send(wire.HOST_HELLO, bytes([wire.PROTOCOL_VERSION]))
        elif self._up and not self._acked and _due(now, self._show_at, self.config.resend):
            self._show_at = now
            self._send_show()
        if self._sent:
            self._last_tx = now
        elif _due(now, self._last_tx, self.config.keepalive):
            self._last_tx = now
            self._send(wire.PING, b"")
        return events
