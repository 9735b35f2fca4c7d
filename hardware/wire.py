"""The wire format between popref and its sensor board: the one definition.

This module runs unchanged under CPython (``hardware.wire``) and MicroPython
(copied to the board as ``wire.py``), so it keeps to the subset both share:
``struct``, ``bytearray``, plain classes, no f-strings, no ``typing`` at run
time (MicroPython ignores annotations; CPython 3.11 evaluates only builtins).

A frame is::

    SYNC  LEN  SEQ  KIND  PAYLOAD[LEN]  CRC16 (big-endian)

``CRC16`` is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no
final xor; check value 0x29B1 for ``b"123456789"``) over ``LEN SEQ KIND
PAYLOAD``. There is no byte stuffing: a receiver that loses its place scans
for the next SYNC whose frame checks out, so garbage costs frames, not sync.
A sender writes each frame whole, so a receiver that has held a partial frame
for :data:`FRAME_GAP_MS` without a new byte calls :meth:`Decoder.expire`: that
frame's SYNC was noise, and the frames behind it need not wait for more bytes.

>>> frame = encode(7, PING, b"")
>>> decoder = Decoder()
>>> decoder.feed(b"garbage" + frame)
>>> decoder.next_frame()
(7, 18, b'')
"""

import struct

TYPE_CHECKING = False  # no typing module on the board; mypy reads this name as usual
if TYPE_CHECKING:

    def const(value: int) -> int:
        return value

else:
    try:
        from micropython import const
    except ImportError:  # CPython: const() is only a compile-time hint on the board

        def const(value):
            return value


PROTOCOL_VERSION = const(1)
SYNC = const(0xA5)
HEADER = const(4)  # SYNC LEN SEQ KIND
TRAILER = const(2)  # CRC16
MAX_PAYLOAD = const(160)
MAX_COLUMNS = const(16)  # fault bits are two 16-bit halves
MAX_ROWS = const(16)  # a column's winning cells are one 16-bit mask of rows
NO_DISPLAY = const(0xFFFF)  # heartbeat "shown": nothing shown since boot or idle
# A whole frame arrives within this: the longest (166 bytes) takes 14.4 ms at
# 115200 baud, and about 2 ms over USB. A partial frame older is a false SYNC.
FRAME_GAP_MS = const(20)
# The board sends a heartbeat at least this often (and at once on a change):
# a board silent for longer than that has stopped, or reset.
HEARTBEAT_MS = const(200)

# board -> host
HELLO = const(0x01)  # version u8, boot id u32, columns u8
HEARTBEAT = const(0x02)  # see pack_heartbeat
ACK = const(0x03)  # display id u16
# host -> board
HOST_HELLO = const(0x10)  # version u8
SHOW = const(0x11)  # see pack_show
PING = const(0x12)  # empty: keeps the board's host-silence timer quiet

# Show codes. The host maps hardware.display enums onto these.
LAMP_OFF = const(0)
LAMP_DROP = const(1)
LAMP_POP = const(2)
LAMP_DROP_OR_POP = const(3)
LAMP_CHOSEN = const(4)
LAMP_ERROR = const(5)
LAMP_WINNING = const(6)
LAMP_COMPUTER_DROP = const(7)
LAMP_COMPUTER_POP = const(8)
LAMP_HINT_DROP = const(9)  # older firmware shows 9 and 10 dark (docs/sensor-board.md)
LAMP_HINT_POP = const(10)
COLOUR_NONE = const(0)
COLOUR_RED = const(1)
COLOUR_YELLOW = const(2)
ALERT_NONE = const(0)
ALERT_ERROR = const(1)
ALERT_WIN = const(2)
ALERT_DRAW = const(3)
NO_SCORE = const(0xFF)

_HELLO_FMT = ">BIB"
_HB_HEAD_FMT = ">IIHBHBHHHHB"  # boot, uptime, shown, slider, slider changes, button,
_HB_HEAD = struct.calcsize(_HB_HEAD_FMT)  # presses, holds, entry faults, exit faults, n
_SHOW_HEAD_FMT = ">HBBBBB"  # display id, turn, red score, yellow score, alert, n
_SHOW_HEAD = struct.calcsize(_SHOW_HEAD_FMT)


def _make_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _make_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data``.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def encode(seq: int, kind: int, payload: bytes | bytearray) -> bytes:
    """One complete frame."""
    size = len(payload)
    if size > MAX_PAYLOAD:
        raise ValueError("payload too long")
    body = bytearray(HEADER - 1 + size)
    body[0] = size
    body[1] = seq & 0xFF
    body[2] = kind & 0xFF
    body[3:] = payload
    crc = crc16(body)
    return bytes([SYNC]) + bytes(body) + bytes([crc >> 8, crc & 0xFF])


class Decoder:
    """Turns a byte stream with garbage and losses into checked frames.

    ``garbage`` counts bytes skipped while hunting for a frame and ``bad``
    counts frames whose CRC failed; both are for logs and tests. Nothing here
    reads a clock: the caller says when the line has been quiet too long
    (:meth:`expire`), so the same code runs on the board and the host.

    >>> d = Decoder()
    >>> f = encode(1, ACK, b"\\x00\\x05")
    >>> d.feed(f[:3]); d.next_frame() is None
    True
    >>> d.feed(f[3:]); d.next_frame()
    (1, 3, b'\\x00\\x05')
    """

    def __init__(self, capacity: int = 512) -> None:
        self._buf = bytearray(capacity)
        self._len = 0
        self._stale = 0  # the first _stale bytes were held when expire() was called
        self.garbage = 0
        self.bad = 0

    @property
    def waiting(self) -> int:
        """How many bytes are held: after :meth:`next_frame` returned None,
        a partial frame (or nothing)."""
        return self._len

    def reset(self) -> None:
        """Forget any partial frame (after a reconnect)."""
        self._len = 0
        self._stale = 0

    def expire(self) -> None:
        """The line has been quiet for longer than a frame takes to arrive:
        no frame that starts in the bytes held now can still be completed, so
        :meth:`next_frame` gives up on such a partial frame (skips its SYNC
        and hunts on) instead of waiting for more bytes. Allocates nothing.

        >>> d = Decoder()
        >>> d.feed(bytes([SYNC, 120]) + encode(3, PING, b""))
        >>> d.next_frame() is None          # a false SYNC whose LEN says 120
        True
        >>> d.expire(); d.next_frame()
        (3, 18, b'')
        """
        self._stale = self._len

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Append received bytes; excess beyond the buffer drops the oldest."""
        n = len(data)
        room = len(self._buf) - self._len
        if n > room:
            # Keep the newest bytes: a sender that outruns us costs old frames only.
            drop = min(self._len, n - room)
            self._shift(drop)
            self.garbage += drop
            room = len(self._buf) - self._len
            if n > room:
                self.garbage += n - room
                data = data[n - room :]
                n = room
        self._buf[self._len : self._len + n] = data
        self._len += n

    def _shift(self, count: int) -> None:
        buf = self._buf
        buf[0 : self._len - count] = buf[count : self._len]
        self._len -= count
        self._stale = self._stale - count if self._stale > count else 0

    def _incomplete(self) -> bool:
        """The frame at the front needs more bytes: wait for them, unless
        it started before :meth:`expire` (then skip its SYNC and hunt on)."""
        if not self._stale:
            return True
        self.garbage += 1
        self._shift(1)
        return False

    def next_frame(self) -> tuple[int, int, bytes] | None:
        """The next good frame as ``(seq, kind, payload)``, or None for now."""
        buf = self._buf
        while self._len:
            if buf[0] != SYNC:
                skip = 1
                while skip < self._len and buf[skip] != SYNC:
                    skip += 1
                self.garbage += skip
                self._shift(skip)
                continue
            if self._len < HEADER:
                if self._incomplete():
                    return None
                continue
            size = buf[1]
            if size > MAX_PAYLOAD:
                self.garbage += 1
                self._shift(1)
                continue
            total = HEADER + size + TRAILER
            if self._len < total:
                if self._incomplete():
                    return None
                continue
            crc = (buf[total - 2] << 8) | buf[total - 1]
            if crc16(memoryview(buf)[1 : total - 2]) != crc:
                # Only this SYNC byte is suspect: a real frame may start inside.
                self.bad += 1
                self._shift(1)
                continue
            frame = (buf[2], buf[3], bytes(buf[HEADER : HEADER + size]))
            self._shift(total)
            return frame
        return None


def pack_hello(boot_id: int, columns: int, version: int = PROTOCOL_VERSION) -> bytes:
    return struct.pack(_HELLO_FMT, version, boot_id, columns)


def unpack_hello(payload: bytes) -> tuple[int, int, int]:
    """``(version, boot_id, columns)``; the version byte comes first so that
    any future layout still says which version it is."""
    if len(payload) < 1:
        raise ValueError("empty hello")
    if payload[0] != PROTOCOL_VERSION or len(payload) != struct.calcsize(_HELLO_FMT):
        return payload[0], 0, 0
    version, boot_id, columns = struct.unpack(_HELLO_FMT, payload)
    return version, boot_id, columns


class Heartbeat:
    """What the board reports a few times a second, and at once on a change.

    Counters are cumulative since the board booted and wrap at 65536, so a
    lost heartbeat costs nothing; ``boot_id`` changes when the board resets.
    ``entry_faults``/``exit_faults`` have bit ``c - 1`` set while column ``c``'s
    beam has been blocked too long. ``shown`` is the id of the display the
    board shows, or ``NO_DISPLAY``.
    """

    def __init__(
        self,
        boot_id: int,
        uptime_ms: int,
        shown: int,
        slider: bool,
        slider_changes: int,
        button: bool,
        presses: int,
        holds: int,
        entry_faults: int,
        exit_faults: int,
        drops: list[int],
        pops: list[int],
    ) -> None:
        self.boot_id = boot_id
        self.uptime_ms = uptime_ms
        self.shown = shown
        self.slider = slider
        self.slider_changes = slider_changes
        self.button = button
        self.presses = presses
        self.holds = holds
        self.entry_faults = entry_faults
        self.exit_faults = exit_faults
        self.drops = drops
        self.pops = pops


def pack_heartbeat(hb: Heartbeat) -> bytes:
    n = len(hb.drops)
    out = bytearray(_HB_HEAD + 4 * n)
    struct.pack_into(
        _HB_HEAD_FMT,
        out,
        0,
        hb.boot_id & 0xFFFFFFFF,
        hb.uptime_ms & 0xFFFFFFFF,
        hb.shown & 0xFFFF,
        1 if hb.slider else 0,
        hb.slider_changes & 0xFFFF,
        1 if hb.button else 0,
        hb.presses & 0xFFFF,
        hb.holds & 0xFFFF,
        hb.entry_faults & 0xFFFF,
        hb.exit_faults & 0xFFFF,
        n,
    )
    at = _HB_HEAD
    for c in range(n):
        struct.pack_into(">HH", out, at, hb.drops[c] & 0xFFFF, hb.pops[c] & 0xFFFF)
        at += 4
    return bytes(out)


def unpack_heartbeat(payload: bytes) -> Heartbeat:
    if len(payload) < _HB_HEAD:
        raise ValueError("short heartbeat")
    head = struct.unpack_from(_HB_HEAD_FMT, payload, 0)
    n = head[10]
    if len(payload) != _HB_HEAD + 4 * n:
        raise ValueError("heartbeat length does not match its column count")
    drops = []
    pops = []
    at = _HB_HEAD
    for _ in range(n):
        d, p = struct.unpack_from(">HH", payload, at)
        drops.append(d)
        pops.append(p)
        at += 4
    return Heartbeat(
        head[0], head[1], head[2], head[3] != 0, head[4], head[5] != 0,
        head[6], head[7], head[8], head[9], drops, pops,
    )  # fmt: skip


class Show:
    """An idempotent "show this" command: the whole display, every time.

    ``lamps``/``colours`` hold one code per column; ``winning`` one bit mask of
    rows (bit 0 = row 1, the bottom) per column for per-cell strips. Scores are
    ``NO_SCORE`` when the game has none.
    """

    def __init__(
        self,
        display_id: int,
        turn: int,
        red_score: int,
        yellow_score: int,
        alert: int,
        lamps: list[int],
        colours: list[int],
        winning: list[int],
    ) -> None:
        self.display_id = display_id
        self.turn = turn
        self.red_score = red_score
        self.yellow_score = yellow_score
        self.alert = alert
        self.lamps = lamps
        self.colours = colours
        self.winning = winning


def pack_show(show: Show) -> bytes:
    n = len(show.lamps)
    out = bytearray(_SHOW_HEAD + 4 * n)
    struct.pack_into(
        _SHOW_HEAD_FMT, out, 0, show.display_id & 0xFFFF, show.turn, show.red_score,
        show.yellow_score, show.alert, n,
    )  # fmt: skip
    at = _SHOW_HEAD
    for c in range(n):
        struct.pack_into(">BBH", out, at, show.lamps[c], show.colours[c], show.winning[c])
        at += 4
    return bytes(out)


def unpack_show(payload: bytes) -> Show:
    if len(payload) < _SHOW_HEAD:
        raise ValueError("short show")
    display_id, turn, red, yellow, alert, n = struct.unpack_from(_SHOW_HEAD_FMT, payload, 0)
    if len(payload) != _SHOW_HEAD + 4 * n:
        raise ValueError("show length does not match its column count")
    lamps = []
    colours = []
    winning = []
    at = _SHOW_HEAD
    for _ in range(n):
        lamp, colour, rows = struct.unpack_from(">BBH", payload, at)
        lamps.append(lamp)
        colours.append(colour)
        winning.append(rows)
        at += 4
    return Show(display_id, turn, red, yellow, alert, lamps, colours, winning)


def pack_ack(display_id: int) -> bytes:
    return struct.pack(">H", display_id & 0xFFFF)


def unpack_ack(payload: bytes) -> int:
    if len(payload) != 2:
        raise ValueError("bad ack")
    value: int = struct.unpack(">H", payload)[0]
    return value
