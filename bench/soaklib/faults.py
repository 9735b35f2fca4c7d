"""Sensor faults the soak injects on top of the simulated grid's physics.

:class:`EdgeDropper` stands between the simulated grid and its mock-pin wires
and loses chosen edges the way a slow interrupt or a marginal IR receiver
does: the pin's level changes but no edge is reported. It only ever loses the
*falling* edge of a beam (the disc has gone but the pin did not say so). A
lost rising edge of a clean 20-60 ms pulse is a disc no sensor saw; no
referee can flag that, so the soak does not pretend to test it.

>>> from hardware.clock import FakeClock
>>> from hardware.sim.mockpins import clocked_mock_factory
>>> from hardware.pinmap import PinMap
>>> from hardware.sim.gpio import MockWires
>>> pins = PinMap.simulated(7)
>>> factory = clocked_mock_factory(FakeClock(), pins.board_revision)
>>> wires = EdgeDropper(MockWires(pins, factory))
>>> wires.arm(Beam.ENTRY, 3)
>>> wires.beam(Beam.ENTRY, 3, True); wires.beam(Beam.ENTRY, 3, False)
>>> wires.dropped
1

:func:`corrupt_some` is a byte filter for the simulated sensor board's
stream (``PtyStream.outgoing``/``incoming``): it garbles some writes.
:class:`ForgedHeartbeats` is one for ``outgoing``: it sends stale and damaged
heartbeats with a valid checksum, which no CRC can catch.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.colour import Colour
from hardware import wire
from hardware.sim.gpio import MockWires
from hardware.sim.seam import Beam


class EdgeDropper:
    """:class:`hardware.sim.grid.LossyWires` that loses the next falling edge
    of each armed beam, and passes everything else on unchanged."""

    def __init__(self, inner: MockWires) -> None:
        self.inner = inner
        self._armed: set[tuple[Beam, int]] = set()
        self.dropped = 0

    def arm(self, beam: Beam, column: int) -> None:
        """Lose the next falling edge of ``beam`` in ``column``."""
        self._armed.add((beam, column))

    @property
    def armed(self) -> bool:
        return bool(self._armed)

    def beam(self, beam: Beam, column: int, blocked: bool, *, silent: bool = False) -> None:
        if not blocked and (beam, column) in self._armed:
            self._armed.discard((beam, column))
            self.dropped += 1
            silent = True
        self.inner.beam(beam, column, blocked, silent=silent)

    def disc_colour(self, column: int, colour: Colour | None) -> None:
        self.inner.disc_colour(column, colour)

    def slider(self, open: bool) -> None:
        self.inner.slider(open)

    def button(self, pressed: bool) -> None:
        self.inner.button(pressed)


def corrupt_some(rng: random.Random, share: float) -> Callable[[bytes], bytes]:
    """A filter that garbles about ``share`` of the chunks through it: one
    byte flipped, a stray SYNC and length byte in front, or the chunk cut
    short, as a noisy USB-serial adapter might.

    >>> garble = corrupt_some(random.Random(1), 1.0)
    >>> garble(bytes(range(10))) != bytes(range(10))
    True
    """

    def garble(data: bytes) -> bytes:
        if not data or rng.random() >= share:
            return data
        how = rng.randrange(3)
        if how == 0:
            bad = bytearray(data)
            bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
            return bytes(bad)
        if how == 1:
            return bytes([0xA5, rng.randrange(256)]) + data
        return data[: rng.randrange(len(data))]

    return garble


class ForgedHeartbeats:
    """An ``outgoing`` filter (the board writes one frame at a time) that,
    for its first heartbeat and about ``share`` of the rest, sends in its place or just
    before it a heartbeat that passes the CRC but cannot be right: an older
    heartbeat replayed, or this one with a counter one lower, a huge jump, a
    boot id one bit off, another column count, or a slider position its
    count of changes contradicts. Never a damage that looks like a real disc
    (a counter one higher): nothing on the wire can tell that from the truth.

    >>> forge = ForgedHeartbeats(random.Random(2), 1.0)
    >>> beat = wire.Heartbeat(9, 0, 0, False, 0, False, 0, 0, 0, 0, [1, 2], [0, 0])
    >>> sent = forge(wire.encode(5, wire.HEARTBEAT, wire.pack_heartbeat(beat)))
    >>> decoder = wire.Decoder(); decoder.feed(sent)
    >>> first = decoder.next_frame(); decoder.bad
    0
    >>> forge.forged
    1
    """

    KINDS = ("replay", "lower", "jump", "boot", "columns", "slider")

    def __init__(self, rng: random.Random, share: float) -> None:
        self.rng = rng
        self.share = share
        self.forged = 0
        self._sent: list[bytes] = []  # the board's recent heartbeat frames, as sent

    def __call__(self, data: bytes) -> bytes:
        decoder = wire.Decoder()
        decoder.feed(data)
        frame = decoder.next_frame()
        if frame is None or frame[1] != wire.HEARTBEAT:
            return data
        self._sent = [*self._sent[-40:], data]
        if self.forged and self.rng.random() >= self.share:
            return data
        self.forged += 1
        seq, _, payload = frame
        kind = self.rng.choice(self.KINDS)
        if kind == "replay" and len(self._sent) > 2:
            bad = self.rng.choice(self._sent[:-2])
        else:
            bad = wire.encode(seq, wire.HEARTBEAT, self._damaged(payload))
        # in place of the real one (lost), or just before it
        return bad if self.rng.random() < 0.5 else bad + data

    def _damaged(self, payload: bytes) -> bytes:
        hb = wire.unpack_heartbeat(payload)
        column = self.rng.randrange(len(hb.drops))
        how = self.rng.choice(self.KINDS[1:])
        if how == "lower":
            hb.drops[column] -= 1
        elif how == "jump":
            hb.pops[column] += self.rng.randrange(1_000, 60_000)
        elif how == "boot":
            hb.boot_id ^= 1 << self.rng.randrange(32)
        elif how == "columns":
            n = self.rng.choice([0, 3, len(hb.drops) + 1])
            hb.drops = (hb.drops * 2)[:n]
            hb.pops = (hb.pops * 2)[:n]
        else:
            hb.slider = not hb.slider
        return wire.pack_heartbeat(hb)
