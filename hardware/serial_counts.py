"""Turn the board's cumulative counters into events, exactly once each.

A heartbeat carries counters that only grow (mod 65536) since the board
booted. The difference from the last heartbeat seen is what happened in
between, however many heartbeats were lost. A new boot id means the board
reset and its counters restarted at zero, so the new counters are all new.

A heartbeat that passes the CRC can still be wrong: replayed, stale, or
damaged in a way the CRC missed. So the counters are trusted only while each
heartbeat follows the last trusted one: the grid's column count, the same
boot id, a newer frame sequence number, and every counter moved forwards by
no more than a disc can fall in the time between (:meth:`CounterTracker.bound`).
One that does not is a link fault (``SensorFault("sensor board link")``),
told once, and counts nothing. The host then trusts the board again when a
heartbeat follows the last trusted one after all (the bad one was a one-off),
or when two heartbeats in a row follow each other (a new baseline, judged
counter by counter: one that moved forwards plausibly counts, one that jumped
counts on from there without events, one that went back keeps the higher
value, so two agreeing damaged heartbeats neither lose a disc they carry nor
make the next real one count a disc twice). The fault clears once the
reports have added up for :data:`CLEAN`, so a run of bad frames is one fault.

A new boot id is taken as a board reset only when the board announced it in
its hello (an unannounced one asks for a hello,
:attr:`CounterTracker.wants_hello`, and the board's answer names its boot),
only once the boot before has been quiet for :data:`SILENT` (a board that
reset says nothing more under its old id: one that still reports has not
reset, whoever said hello), and only for what a board could have counted
since it booted: its uptime no longer than the time since the boot before
last spoke, each counter no more than one per disc's (or switch's) time in
that uptime. A board never goes back to an earlier boot, so one that does
was replaced by a boot that was not its own: it counts on from where that
earlier boot left off.

What is not recoverable: inputs the board counted after its last heartbeat
that reached the host and before it reset (at most one heartbeat interval,
and the board sends a heartbeat at once on every change, so in practice only
a change in the same millisecond as a crash or power cut). The firmware does
not persist counters: flash wear and write time during a reset are worse than
a lost disc, which the referee notices anyway and guides the players through.
Nor can any check tell a damaged counter that moved forwards plausibly (one
disc) from a real disc: the board reports nothing else that could. When such
a heartbeat was trusted, the board's later reports are behind it: the link
fault stays shown and the next real disc in that column is not counted
(it makes up for the invented one), since keeping the higher count is what
stops two agreeing heartbeats one lower from inventing a disc.

>>> counts = CounterTracker(columns=2)
>>> hb = wire.Heartbeat(7, 0, 0, False, 0, False, 0, 0, 0, 0, [3, 0], [0, 0])
>>> counts.update(hb, 1.0)      # first contact: a baseline, nothing new
[]
>>> hb = wire.Heartbeat(7, 200, 0, False, 0, False, 0, 0, 0, 0, [4, 0], [0, 0])
>>> counts.update(hb, 2.0)
[DiscEntered(column=1, at=2.0, colour=None)]
>>> hb = wire.Heartbeat(7, 400, 0, False, 0, False, 0, 0, 0, 0, [3, 0], [0, 0])
>>> [type(event).__name__ for event in counts.update(hb, 2.2)]  # one lower: damage
['SensorFault']
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from engine.sentence import Sentence
from hardware import timing, wire
from hardware.backend import Mark
from hardware.events import Event, SensorCleared, SensorFault
from hardware.serial_marks import delta, events_between, from_mark

log = logging.getLogger("popref.serial")

LINK = "sensor board link"
"""The sensor name of a link fault: heartbeats that cannot be trusted."""

DISC_GAP = 2 * timing.BEAM_SETTLE_MS / 1000
"""Seconds: the board counts a disc only once its beam was blocked and then
clear for ``BEAM_SETTLE_MS`` each, so no beam counts two closer than this (a
real disc blocks a beam for 20 ms or more)."""

SILENT = 2.5 * wire.HEARTBEAT_MS / 1000
"""Seconds without a heartbeat of the board's boot before a new boot is
taken: a board that reset says nothing more under its old boot id, and a
board that did not reports every ``HEARTBEAT_MS``."""

CLEAN = 1.0
"""Seconds of heartbeats that all add up before a link fault clears, so a
run of bad ones is one fault, not one per frame."""

_CLOCKS = 0.25  # seconds the board's uptime may run ahead of the host's clock (late polls)
_EARLIER = 8  # earlier boots remembered, with where each left off

# The least time between two counts of a counter since boot, in ms: a disc
# needs its beam blocked and then clear for the settle time, a switch change
# its level settled, a press a push and a release, a hold the hold time.
_SINCE_BOOT = {
    "drops": 2 * timing.BEAM_SETTLE_MS,
    "pops": 2 * timing.BEAM_SETTLE_MS,
    "slider changes": timing.SWITCH_SETTLE_MS,
    "button presses": 2 * timing.SWITCH_SETTLE_MS,
    "button holds": timing.BUTTON_HOLD_MS,
}


def _newer(seq: int, than: int) -> bool:
    """Whether frame sequence number ``seq`` comes after ``than``: the
    header's sequence number is one byte, so "after" is within half its range.

    >>> _newer(3, 250), _newer(250, 3), _newer(7, 7)
    (True, False, False)
    """
    return 0 < (seq - than) & 0xFF < 0x80


@dataclass(frozen=True, slots=True)
class _Seen:
    """A heartbeat with its frame's sequence number and arrival time
    (``None``: not known, as for a journalled mark)."""

    hb: wire.Heartbeat
    seq: int | None
    at: float | None


class CounterTracker:
    """The host's memory of the counters it has turned into events, and its
    judgement of whether the board's latest heartbeat can be believed."""

    def __init__(self, columns: int, rows: int = 6) -> None:
        self.columns = columns
        self.rows = rows
        self.boot_id: int | None = None
        self.last: wire.Heartbeat | None = None  # the last trusted heartbeat
        self.resets = 0
        self.rejected = 0  # heartbeats taken for stale or damaged
        self.fault: str | None = None  # why the board's reports are not trusted now
        self._trusted: _Seen | None = None
        self._pending: _Seen | None = None  # a candidate for a new baseline
        self._announced: int | None = None  # the boot id of the board's last hello
        self.wants_hello = False  # a boot id no hello announced: ask the board to say hello
        self._heard: float | None = None  # the last heartbeat with the trusted boot's id
        self._clean_since: float | None = None  # every heartbeat added up since then
        self._earlier: dict[int, _Seen] = {}  # earlier boots, each where it left off

    def bound(self, elapsed: float | None) -> int:
        """The most any counter can move between two heartbeats ``elapsed``
        seconds apart: the discs that fit in a column plus one per
        :data:`DISC_GAP`, and never more than a column holds twice over
        (filled, emptied, filled again), which is also the bound when the
        time is not known (after a restart). More than that, the referee
        could not place anyway: popref counts on from there instead.

        >>> tracker = CounterTracker(7, rows=6)
        >>> tracker.bound(0.0), tracker.bound(0.05), tracker.bound(0.2), tracker.bound(None)
        (6, 9, 12, 12)
        """
        most = 2 * self.rows
        if elapsed is None:
            return most
        return min(most, self.rows + int(max(0.0, elapsed) / DISC_GAP))

    def resume(self, mark: Mark) -> None:
        """Continue from a journalled mark instead of taking the first
        heartbeat as a baseline: what the board counted while the daemon was
        down (or between an event and its journal record) becomes events."""
        hb = from_mark(mark)
        if len(hb.drops) != self.columns or len(hb.pops) != self.columns:
            return  # a mark from another grid: start from a baseline instead
        self.last = hb
        self.boot_id = hb.boot_id
        self._trusted = _Seen(hb, None, None)

    def announce(self, boot_id: int) -> None:
        """The board said hello: a heartbeat with this boot id may start a
        new boot (once the boot before has gone quiet), and frame numbers
        start afresh with the connection."""
        self._announced = boot_id
        if self._trusted is not None:
            self._trusted = _Seen(self._trusted.hb, None, self._trusted.at)

    def update(self, hb: wire.Heartbeat, now: float, seq: int | None = None) -> list[Event]:
        """The events between the last heartbeat and ``hb``, oldest first as
        far as the counters can tell (slider opening first, closing last).
        ``seq`` is the frame's sequence number (``None``: not checked)."""
        return [event for event, _ in self.update_marked(hb, now, seq)]

    def update_marked(
        self, hb: wire.Heartbeat, now: float, seq: int | None = None
    ) -> list[tuple[Event, Mark | None]]:
        """As :meth:`update`, each event with the counters consumed up to it
        (``None`` for sensor faults, which are levels, not counts)."""
        seen = _Seen(hb, seq, now)
        if len(hb.drops) != self.columns or len(hb.pops) != self.columns:
            return self._reject(
                f"it counts {len(hb.drops)} columns, the grid has {self.columns}", now
            )
        trusted = self._trusted
        if trusted is None:  # first contact: what happened before is not ours to count
            self._heard = now
            return self._trust(seen, [])
        if hb.boot_id != trusted.hb.boot_id:
            return self._other_boot(seen)
        self._heard = now
        if self._announced != hb.boot_id:
            # this boot still speaks after another one's hello: that hello
            # was no reset (replayed, forged or damaged)
            self._announced = None
        why = self._why_not(trusted, seen)
        if why is None:
            return self._trust(seen, self._diff(trusted.hb, hb, now))
        pending = self._pending
        if (
            pending is not None
            and self._why_not(pending, seen) is None
            and not self._replayed(trusted, seen)
        ):
            return self._rebaseline(seen)
        self._pending = seen
        return self._reject(why, now)

    # -- another boot ------------------------------------------------------------------

    def _other_boot(self, seen: _Seen) -> list[tuple[Event, Mark | None]]:
        """A heartbeat from a boot other than the trusted one. It is taken
        only when the board announced it in a hello, and the trusted boot
        has been quiet for :data:`SILENT` since (a board that reset says
        nothing more under its old id; one that reports on has not reset,
        whoever sent the hello), and then only for what that boot could
        have counted since it began (:meth:`_new_boot`)."""
        trusted = self._trusted
        hb, now = seen.hb, seen.at
        assert trusted is not None and now is not None
        why = f"its boot id {hb.boot_id:08x} is not the board's {trusted.hb.boot_id:08x}"
        if hb.boot_id != self._announced:
            # a reset whose hello was lost, or damage: the board's answer to a
            # new host hello tells which
            self.wants_hello = True
            return self._reject(why, now)
        quiet = None if self._heard is None else now - self._heard
        if quiet is not None and quiet < SILENT:
            log.debug("boot %08x waits until boot %08x is quiet", hb.boot_id, trusted.hb.boot_id)
            return []
        earlier = self._earlier.pop(hb.boot_id, None)
        if earlier is not None:
            # back to a boot it left: the one in between was not the board's
            log.warning(
                "The sensor board reports as boot %08x again, where it left off.", hb.boot_id
            )
            self._leave(trusted)
            self._trusted = _Seen(earlier.hb, None, earlier.at)
            self._pending = None
            return self.update_marked(hb, now, seen.seq)
        impossible = self._new_boot(hb, quiet)
        if impossible is None:
            return self._take(seen, self._diff(self._zero(hb), hb, now))
        pending = self._pending
        if pending is not None and self._why_not(pending, seen) is None:
            log.warning(
                "The sensor board's counters started again from more than the time allows; "
                "popref counts on from its latest report."
            )
            return self._take(seen, [])
        self._pending = seen
        return self._reject(impossible, now)

    def _new_boot(self, hb: wire.Heartbeat, quiet: float | None) -> str | None:
        """Why ``hb`` cannot be a board that booted after the trusted boot
        was last heard (``quiet`` seconds ago; ``None``: not known), or None
        if it can: its uptime fits in that time, and each counter in its
        uptime (one disc per beam per :data:`DISC_GAP`, and no more than
        between any two heartbeats with no time known)."""
        if quiet is not None and hb.uptime_ms > (quiet + _CLOCKS) * 1000:
            return (
                f"its uptime of {hb.uptime_ms} ms is longer than the {quiet:.1f} s since "
                "the board last reported"
            )
        return self._implausible(self._zero(hb), hb, None, same_boot=False, uptime=hb.uptime_ms)

    def _zero(self, hb: wire.Heartbeat) -> wire.Heartbeat:
        """What a board that just booted as ``hb.boot_id`` had counted: nothing,
        and the levels the host knew."""
        trusted = self._trusted
        assert trusted is not None
        zero = [0] * self.columns
        return wire.Heartbeat(
            hb.boot_id, 0, wire.NO_DISPLAY, trusted.hb.slider, 0, False, 0, 0,
            trusted.hb.entry_faults, trusted.hb.exit_faults, zero, list(zero),
        )  # fmt: skip

    def _take(
        self, seen: _Seen, events: list[tuple[Event, Mark | None]]
    ) -> list[tuple[Event, Mark | None]]:
        """Follow the new boot of ``seen`` from here on."""
        trusted = self._trusted
        assert trusted is not None
        self._leave(trusted)
        self.resets += 1
        self._heard = seen.at
        log.info("The sensor board restarted (boot %08x).", seen.hb.boot_id)
        return self._trust(seen, events)

    def _leave(self, trusted: _Seen) -> None:
        """Remember where a boot left off, should the board come back to it."""
        self._earlier.pop(trusted.hb.boot_id, None)
        while len(self._earlier) >= _EARLIER:
            del self._earlier[next(iter(self._earlier))]
        self._earlier[trusted.hb.boot_id] = trusted

    # -- the rules a heartbeat must follow --------------------------------------

    def _why_not(self, old: _Seen, new: _Seen) -> str | None:
        """Why ``new`` cannot follow ``old`` directly, or None if it can."""
        if new.hb.boot_id != old.hb.boot_id:
            return f"its boot id {new.hb.boot_id:08x} is not the board's {old.hb.boot_id:08x}"
        if new.seq is not None and old.seq is not None and not _newer(new.seq, old.seq):
            return f"its frame number {new.seq} is not newer than {old.seq}"
        elapsed = None if new.at is None or old.at is None else new.at - old.at
        return self._implausible(old.hb, new.hb, elapsed, same_boot=True)

    def _implausible(
        self,
        old: wire.Heartbeat,
        new: wire.Heartbeat,
        elapsed: float | None,
        same_boot: bool,
        uptime: int | None = None,
    ) -> str | None:
        """Why the counters cannot have gone from ``old`` to ``new`` in
        ``elapsed`` seconds, or None if they can; with ``uptime``, from zero
        in that many milliseconds since the board booted."""
        counters = [(f"drops in column {c + 1}", "drops", new.drops[c], old.drops[c])
                    for c in range(self.columns)]  # fmt: skip
        counters += [(f"pops in column {c + 1}", "pops", new.pops[c], old.pops[c])
                     for c in range(self.columns)]  # fmt: skip
        counters += [
            ("slider changes", "slider changes", new.slider_changes, old.slider_changes),
            ("button presses", "button presses", new.presses, old.presses),
            ("button holds", "button holds", new.holds, old.holds),
        ]
        for name, kind, value, before in counters:
            limit = self.bound(elapsed)
            if uptime is not None:
                limit = min(limit, 1 + uptime // _SINCE_BOOT[kind])
            step = delta(value, before)
            if step >= 0x8000 and value < before:
                return f"its {name} went back from {before} to {value}"
            if step > limit:
                if uptime is not None:
                    return f"its {name} reached {value} only {uptime} ms after it booted"
                return f"its {name} jumped from {before} to {value}"
        flips = delta(new.slider_changes, old.slider_changes) % 2 == 1
        if same_boot and flips != (new.slider != old.slider):
            return "its slider position does not match its count of slider changes"
        if (new.entry_faults | new.exit_faults) >> self.columns:
            return "it reports beam faults in columns the grid does not have"
        return None

    def _replayed(self, trusted: _Seen, seen: _Seen) -> bool:
        """Whether ``seen`` is behind the last trusted heartbeat of its boot
        without a newer frame number: older frames replayed, which must not
        become a baseline (what was counted since would count again)."""
        if seen.hb.boot_id != trusted.hb.boot_id:
            return False
        if seen.seq is not None and trusted.seq is not None and _newer(seen.seq, trusted.seq):
            return False  # the trusted heartbeat itself was wrong
        old, new = trusted.hb, seen.hb
        pairs = [*zip(new.drops, old.drops, strict=True), *zip(new.pops, old.pops, strict=True)]
        pairs += [(new.slider_changes, old.slider_changes), (new.presses, old.presses),
                  (new.holds, old.holds)]  # fmt: skip
        return any(delta(value, before) >= 0x8000 for value, before in pairs)

    # -- outcomes -------------------------------------------------------------------

    def _trust(
        self, seen: _Seen, events: list[tuple[Event, Mark | None]], clear: bool = True
    ) -> list[tuple[Event, Mark | None]]:
        """Count on from ``seen``; the link fault clears once the reports
        have added up for :data:`CLEAN` (``clear``: this one agrees with
        popref's counts)."""
        self._trusted = seen
        self._pending = None
        self.last = seen.hb
        self.boot_id = seen.hb.boot_id
        if self.fault is None or seen.at is None:
            return events
        if not clear:
            self._clean_since = None
            return events
        if self._clean_since is None:
            self._clean_since = seen.at
        if seen.at - self._clean_since < CLEAN:
            return events
        self.fault = None
        self._clean_since = None
        log.debug("The sensor board's reports add up again.")  # the referee logs the clearing
        return [(SensorCleared(LINK, at=seen.at), None), *events]

    def _rebaseline(self, seen: _Seen) -> list[tuple[Event, Mark | None]]:
        """Two heartbeats in a row agree: count on from the latest. What the
        board counted across the fault becomes events where it is plausible."""
        trusted = self._trusted
        assert trusted is not None and seen.at is not None
        elapsed = None if trusted.at is None else seen.at - trusted.at
        base, merged, behind = self._merge(trusted.hb, seen.hb, elapsed)
        events = self._diff(base, merged, seen.at)
        return self._trust(_Seen(merged, seen.seq, seen.at), events, clear=not behind)

    def _merge(
        self, old: wire.Heartbeat, new: wire.Heartbeat, elapsed: float | None
    ) -> tuple[wire.Heartbeat, wire.Heartbeat, bool]:
        """The new baseline of a boot from the last trusted heartbeat ``old``
        and two that agree on ``new``, judged counter by counter, so that a
        counter that cannot be right loses no disc another one counted:

        - one that moved forwards plausibly takes ``new``'s value, and its
          events count;
        - one that jumped further than ``elapsed`` allows takes it too, without
          its events (popref counts on from there);
        - one that went back by no more than that keeps ``old``'s value: a
          board's counters never go back within a boot, and going back then
          forwards again would count a disc twice.

        The slider's level follows its count of changes, never a level the
        count contradicts. Returns the counters consumed before (``old`` with
        the jumps taken as read), the new baseline, and whether a counter was
        kept ahead of the board's (its reports still disagree with popref's).
        """
        limit = self.bound(elapsed)
        behind = False

        def pick(value: int, before: int) -> tuple[int, int]:
            """(consumed before, new baseline) of one counter."""
            nonlocal behind
            if 0 < delta(before, value) <= limit:
                behind = True
                return before, before
            if delta(value, before) > limit:
                log.warning(
                    "A sensor board counter moved from %d to %d across a link fault, more "
                    "than the grid allows; popref counts on from there.", before, value
                )  # fmt: skip
                return value, value
            return before, value

        drops = [pick(v, b) for v, b in zip(new.drops, old.drops, strict=True)]
        pops = [pick(v, b) for v, b in zip(new.pops, old.pops, strict=True)]
        changes = pick(new.slider_changes, old.slider_changes)
        presses, holds = pick(new.presses, old.presses), pick(new.holds, old.holds)
        jumped = changes[0] != old.slider_changes
        slider = new.slider if jumped else old.slider ^ (delta(*changes[::-1]) % 2 == 1)

        def beat(at: int, level: bool) -> wire.Heartbeat:
            return wire.Heartbeat(
                new.boot_id, new.uptime_ms, new.shown, level, changes[at], new.button,
                presses[at], holds[at], new.entry_faults, new.exit_faults,
                [d[at] for d in drops], [p[at] for p in pops],
            )  # fmt: skip

        base = beat(0, new.slider if jumped else old.slider)
        base.entry_faults, base.exit_faults = old.entry_faults, old.exit_faults
        return base, beat(1, slider), behind

    def _reject(self, why: str, now: float) -> list[tuple[Event, Mark | None]]:
        self.rejected += 1
        self._clean_since = None
        if self.fault is not None:
            log.debug("another heartbeat that does not add up: %s", why)
            return []
        self.fault = why
        message = Sentence(
            "The sensor board sent a report that does not add up ({why}); popref "
            "counts nothing from it until the board's reports agree again. If this "
            "repeats, check the board's USB cable.",
            why=why,
        )
        log.debug("%s", message)  # the referee logs the fault it is handed
        return [(SensorFault(LINK, message, at=now), None)]

    def _diff(
        self, old: wire.Heartbeat, new: wire.Heartbeat, now: float
    ) -> list[tuple[Event, Mark | None]]:
        """The events from ``old`` to ``new``: what was counted, then the
        beams' faults that came or went."""
        faults = self._faults("entry", old.entry_faults, new.entry_faults, now)
        faults += self._faults("exit", old.exit_faults, new.exit_faults, now)
        return [*events_between(old, new, now), *((fault, None) for fault in faults)]

    def _faults(self, beam: str, old: int, new: int, now: float) -> list[Event]:
        events: list[Event] = []
        for c in range(self.columns):
            bit = 1 << c
            name = f"{beam} {c + 1}"
            if new & bit and not old & bit:
                events.append(SensorFault(name, _blocked(beam, c + 1), at=now))
            elif old & bit and not new & bit:
                events.append(SensorCleared(name, at=now))
        return events


def _blocked(beam: str, column: int) -> Sentence:
    if beam == "entry":
        return Sentence(
            "The entry beam of column {column} has been blocked for seconds; "
            "clear the top of the column or check that sensor's wiring.",
            column=column,
        )
    return Sentence(
        "The exit beam of column {column} has been blocked for seconds; "
        "clear the bottom of the column or check that sensor's wiring.",
        column=column,
    )
