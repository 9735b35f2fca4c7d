"""Sensor and serial faults on a soak table, each followed by the checks a
person would make: the fault shows, the next move counts exactly once, the
lights come back.

The functions take the table as ``self``: they are the table's behaviour,
kept in their own file to keep table.py readable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.soaklib.expect import Expect
from bench.soaklib.faults import ForgedHeartbeats, corrupt_some
from bench.soaklib.lights import read_strip, strip_look
from controller.simulator.simulation import SETTLE
from hardware.serial_backend import BOARD
from hardware.serial_counts import LINK
from hardware.sim.seam import Beam

if TYPE_CHECKING:
    from bench.soaklib.tableface import TableFace

STUCK = (4.0, 6.0)  # seconds a jammed beam stays blocked (the fault needs 3 s)
GLITCH = (0.0003, 0.002)  # an IR glitch: shorter than the 3 ms a disc needs
UNPLUGGED = (2.0, 4.0)  # seconds a board stays unplugged
RECONNECT = 12.0  # seconds the host may take to find a replugged board (backoff)
LIGHTS_BACK = 6.0  # seconds the strip may take to show the display again after a fault


def inject_fault(self: TableFace) -> None:
    """One fault of the table's kinds (or a plain move when it has none)."""
    if not self.setup.faults:
        self.legal_move(self.look())
        return
    kind = self.rng.choice(self.setup.faults)
    if kind == "missed-edge":
        self.legal_move(self.look(), missed_edge=True)
        return
    if kind in ("corrupt-bytes", "forged-heartbeats", "board-reset", "unplug"):
        serial_fault(self, kind)
        return
    beam = self.rng.choice(list(Beam))
    column = self.rng.randint(1, self.setup.columns)
    name = f"{beam.value} {column}"
    if kind == "glitch":
        start = self.sim.clock()
        for _ in range(self.rng.randint(1, 4)):
            start += self.rng.uniform(0.02, 0.2)
            self.sim.grid.stick_beam(beam, column, at=start, duration=self.rng.uniform(*GLITCH))
        good = self.absorb(self.sim.advance(SETTLE), Expect(), f"glitch on {name}")
        self.tally.inject("glitch", detected=good, repaired=good)
        return
    duration = self.rng.uniform(*STUCK)
    self.sim.grid.stick_beam(beam, column, duration=duration)
    quiet = self.absorb(self.sim.advance(duration - 0.5), Expect(), f"stuck {name}")
    flagged = name in self.referee.faults and column in self.sim.lights.shown().blinking
    if not flagged:
        self.tally.fail("undetected", f"stuck beam {name} not shown as a fault")
    cleared = self.absorb(self.sim.advance(SETTLE), Expect(), f"unstuck {name}")
    cleared = cleared and not self.referee.faults
    self.tally.inject("stuck-beam", detected=flagged, repaired=quiet and cleared)


def serial_fault(self: TableFace, kind: str) -> None:
    """A fault on the link to the sensor board, then the next move: it
    must count exactly once, and the lights must come back."""
    board = self.board
    assert board is not None, "serial faults need a sensor-board table"
    mismatches = self.tally.light_mismatches
    if kind == "corrupt-bytes":
        stream = board.firmware.stream
        stream.outgoing = corrupt_some(self.rng, 0.3)
        stream.incoming = corrupt_some(self.rng, 0.3)
        # A board that hears nothing good for 2 s goes dark on purpose
        # (four keepalives lost in a row): the lights are checked after.
        self.link_fault = True
        try:
            good = self.one_move(f"{kind}: ")
        finally:
            stream.outgoing = stream.incoming = None
            self.link_fault = False
        self.tally.inject(kind, detected=good, repaired=good and _lights_back(self, mismatches))
        return
    if kind == "forged-heartbeats":
        _forged_heartbeats(self, mismatches)
        return
    if kind == "board-reset":
        resets = board.backend.resets_seen
        board.reset(_boot_id(self))
        good = self.one_move(f"{kind}: ")
        seen = board.backend.resets_seen == resets + 1
        self.tally.inject(
            kind, detected=good and seen, repaired=good and _lights_back(self, mismatches)
        )
        return
    board.unplug()
    quiet = self.absorb(self.sim.advance(self.rng.uniform(*UNPLUGGED)), Expect(), kind)
    flagged = BOARD in self.referee.faults
    if not flagged:
        self.tally.fail("undetected", "an unplugged sensor board was not shown as a fault")
    board.replug(_boot_id(self))
    waited = 0.0
    while BOARD in self.referee.faults and waited < RECONNECT:
        quiet = self.absorb(self.sim.advance(1.0), Expect(), f"{kind}: replug") and quiet
        waited += 1.0
    cleared = BOARD not in self.referee.faults
    if not cleared:
        self.tally.fail("undetected", f"the replugged board still faulted after {waited} s")
    good = self.one_move(f"{kind}: ")
    self.tally.inject(
        kind,
        detected=flagged,
        repaired=quiet and cleared and good and _lights_back(self, mismatches),
    )


def _forged_heartbeats(self: TableFace, mismatches: int) -> None:
    """For one move, stale and damaged heartbeats with a valid CRC: the move
    counts once and nothing is invented (the checks after every settled
    moment), the host rejected them, and the link fault it showed clears."""
    board = self.board
    assert board is not None
    rejected = board.backend.heartbeats_rejected
    stream = board.firmware.stream
    stream.outgoing = forge = ForgedHeartbeats(self.rng, 0.3)
    # The link fault comes and goes with the forged frames, and the strip
    # with it: a player who looks 40 ms after it cleared cannot yet see a
    # column blink (seed 75). The lights are checked after, as for noise.
    self.link_fault = True
    try:
        good = self.one_move("forged-heartbeats: ")
    finally:
        stream.outgoing = None
        self.link_fault = False
    detected = good and board.backend.heartbeats_rejected > rejected
    if forge.forged and not detected:
        self.tally.fail("undetected", f"{forge.forged} forged heartbeats, none rejected")
    back = _lights_back(self, mismatches)
    cleared = LINK not in self.referee.faults
    if not cleared:
        self.tally.fail("undetected", "the link fault did not clear after forged heartbeats")
    self.tally.inject("forged-heartbeats", detected=detected, repaired=good and cleared and back)


def _boot_id(self: TableFace) -> int:
    self.boots += 1
    return self.rng.getrandbits(32) ^ self.boots


def _lights_back(self: TableFace, mismatches: int) -> bool:
    """Watch the strip for ``LIGHTS_BACK`` seconds after a fault, noting
    the last moment it did not show the display (in the tally), then
    check it as usual.

    The strip may go dark *after* the fault: a garbled length byte makes
    the board's decoder wait for that many bytes before it can see the
    frame was bad, and at idle the host sends only a 6-byte keepalive
    every 0.5 s, so the board can go dark for want of the host (2 s)
    before the host's next display gets through (docs/soak.md)."""
    start = self.sim.clock()
    last_wrong = start
    while self.sim.clock() - start < LIGHTS_BACK:
        self.sim.advance(0.25)
        if not _lights_match(self):
            last_wrong = self.sim.clock()
    self.tally.lights_back = max(self.tally.lights_back, last_wrong - start)
    self.look()
    return self.tally.light_mismatches == mismatches


def _lights_match(self: TableFace) -> bool:
    shown = read_strip(self.sim.lights.shown())
    return bool(self.referee.faults) or shown == read_strip(strip_look(self.sim.display()))
