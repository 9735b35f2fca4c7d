"""Debouncers: raw, timestamped pin levels in; certain facts out.

Each debouncer is pure: it never reads a clock or a pin. It is fed edges
``(active, at)`` in time order and asked to :meth:`~BeamDebouncer.advance` to a
time; it returns what became certain by then, and says through ``deadline()``
when it next needs to be advanced even if no edge arrives.

gpiozero's own ``bounce_time`` is not used: its mock pins ignore it and each
real backend means something different by it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware import timing


@dataclass(frozen=True, slots=True)
class BeamTiming:
    """The windows a beam debouncer uses, in seconds.

    ``settle``: how long a beam must stay clear before a passage is over; it
    must exceed contact bounce and IR chatter (up to about 5 ms) and stay
    below the gap between two discs dropped 50 ms apart (about 10-30 ms).
    ``min_blocked``: total blocked time below which a passage is noise.
    ``stuck``: a beam blocked this long is a fault, not a disc.

    >>> BeamTiming().settle
    0.008
    """

    settle: float = timing.BEAM_SETTLE_MS / 1000
    min_blocked: float = timing.BEAM_MIN_BLOCKED_MS / 1000
    stuck: float = timing.BEAM_STUCK_MS / 1000

    def __post_init__(self) -> None:
        if not 0 < self.min_blocked < self.stuck or self.settle <= 0:
            raise ValueError("beam timing needs 0 < min_blocked < stuck and settle > 0")


@dataclass(frozen=True, slots=True)
class Passage:
    """A disc passed the beam; ``at`` is the time of its first edge."""

    at: float


@dataclass(frozen=True, slots=True)
class Stuck:
    """The beam has been blocked for ``BeamTiming.stuck`` seconds."""

    at: float


@dataclass(frozen=True, slots=True)
class Unstuck:
    """A stuck beam is clear again."""

    at: float


BeamOutcome = Passage | Stuck | Unstuck


class BeamDebouncer:
    """Turns one beam's edges into disc passages and stuck-beam faults.

    >>> beam = BeamDebouncer()
    >>> for blocked, at in [(True, 1.000), (False, 1.002), (True, 1.003), (False, 1.040)]:
    ...     _ = beam.edge(blocked, at)
    >>> beam.advance(1.047)
    []
    >>> beam.advance(1.048)
    [Passage(at=1.0)]
    """

    def __init__(
        self, timing: BeamTiming | None = None, *, blocked: bool = False, now: float = 0.0
    ) -> None:
        self.timing = timing or BeamTiming()
        self._blocked = blocked
        self._since = now  # when the raw level last changed
        self._start: float | None = None  # first edge of the passage in progress
        self._blocked_total = 0.0  # blocked time in the passage, up to _since
        self._stuck = False
        # A beam already blocked when we start watching is not a disc we saw
        # enter; it can only become a fault or clear silently.
        self._orphan = blocked

    @property
    def blocked(self) -> bool:
        """The raw level most recently fed."""
        return self._blocked

    @property
    def passage_start(self) -> float | None:
        """The first edge of the passage in progress, if any."""
        return self._start

    @property
    def stuck(self) -> bool:
        """Whether a stuck-beam fault is standing."""
        return self._stuck

    def edge(self, blocked: bool, at: float) -> list[BeamOutcome]:
        """Feed a raw level; a repeated level is ignored. Returns what became
        certain before this edge."""
        at = max(at, self._since)  # edges from two threads may interleave by a hair
        out = self.advance(at)
        if blocked == self._blocked:
            return out
        if self._blocked:
            self._blocked_total += at - self._since
        elif self._start is None and not self._stuck and not self._orphan:
            self._start = at
            self._blocked_total = 0.0
        self._blocked = blocked
        self._since = at
        return out

    def advance(self, now: float) -> list[BeamOutcome]:
        """Return the outcomes that became certain by ``now``."""
        t = self.timing
        out: list[BeamOutcome] = []
        if self._blocked:
            if not self._stuck and now >= self._since + t.stuck:
                self._stuck = True
                self._start = None
                out.append(Stuck(self._since + t.stuck))
        elif now >= self._since + t.settle:
            if self._stuck:
                self._stuck = False
                out.append(Unstuck(self._since + t.settle))
            elif self._start is not None:
                if self._blocked_total >= t.min_blocked:
                    out.append(Passage(self._start))
                self._start = None
            self._orphan = False
        return out

    def deadline(self) -> float | None:
        """When :meth:`advance` may next return something without a new edge."""
        t = self.timing
        if self._blocked:
            return None if self._stuck else self._since + t.stuck
        if self._stuck or self._start is not None or self._orphan:
            return self._since + t.settle
        return None


@dataclass(frozen=True, slots=True)
class SwitchTiming:
    """Windows for a mechanical switch: ``settle`` covers contact bounce (up to
    about 5 ms); a button held ``hold`` seconds is a hold, not a press.

    >>> SwitchTiming().hold
    2.0
    """

    settle: float = timing.SWITCH_SETTLE_MS / 1000
    hold: float = timing.BUTTON_HOLD_MS / 1000


class SwitchDebouncer:
    """A switch's stable level: a change counts once it has lasted ``settle``,
    and is dated by its first edge.

    >>> switch = SwitchDebouncer()
    >>> for active, at in [(True, 5.0), (False, 5.001), (True, 5.003)]:
    ...     _ = switch.edge(active, at)
    >>> switch.advance(5.02)
    [(True, 5.0)]
    """

    def __init__(
        self, timing: SwitchTiming | None = None, *, active: bool = False, now: float = 0.0
    ) -> None:
        self.timing = timing or SwitchTiming()
        self._stable = active
        self._raw = active
        self._since = now  # last raw change
        self._first: float | None = None  # first edge away from the stable level

    @property
    def active(self) -> bool:
        """The stable (debounced) level."""
        return self._stable

    @property
    def raw(self) -> bool:
        """The raw level most recently fed."""
        return self._raw

    def edge(self, active: bool, at: float) -> list[tuple[bool, float]]:
        """Feed a raw level; returns stable changes that became certain first."""
        at = max(at, self._since)
        out = self.advance(at)
        if active == self._raw:
            return out
        if self._first is None:
            self._first = at
        self._raw = active
        self._since = at
        return out

    def advance(self, now: float) -> list[tuple[bool, float]]:
        """Stable changes ``(level, first edge time)`` certain by ``now``."""
        if self._first is None or now < self._since + self.timing.settle:
            return []
        first, self._first = self._first, None
        if self._raw == self._stable:
            return []  # bounced back: nothing happened
        self._stable = self._raw
        return [(self._stable, first)]

    def deadline(self) -> float | None:
        if self._first is None:
            return None
        return self._since + self.timing.settle


@dataclass(frozen=True, slots=True)
class Press:
    """Released before the hold time; ``at`` is the release."""

    at: float


@dataclass(frozen=True, slots=True)
class Hold:
    """Held for the hold time; ``at`` is press time plus hold time."""

    at: float


class ButtonDebouncer:
    """A push button: a short press on release, or one hold while still held.

    >>> button = ButtonDebouncer()
    >>> button.edge(True, 0.0)
    []
    >>> button.advance(2.0)
    [Hold(at=2.0)]
    >>> button.edge(False, 3.0) + button.advance(3.1)
    []
    """

    def __init__(
        self, timing: SwitchTiming | None = None, *, pressed: bool = False, now: float = 0.0
    ) -> None:
        self.timing = timing or SwitchTiming()
        self._switch = SwitchDebouncer(self.timing, active=pressed, now=now)
        # a button already down at start was not pressed in our sight
        self._pressed_at: float | None = None
        self._held = pressed

    @property
    def raw(self) -> bool:
        return self._switch.raw

    def edge(self, pressed: bool, at: float) -> list[Press | Hold]:
        out = self._timers(at)
        out += self._apply(self._switch.edge(pressed, at), at)
        return out

    def advance(self, now: float) -> list[Press | Hold]:
        out = self._timers(now)
        out += self._apply(self._switch.advance(now), now)
        out += self._timers(now)
        return out

    def _timers(self, now: float) -> list[Press | Hold]:
        if self._pressed_at is None or self._held:
            return []
        hold_at = self._pressed_at + self.timing.hold
        if now >= hold_at:
            self._held = True
            return [Hold(hold_at)]
        return []

    def _apply(self, changes: list[tuple[bool, float]], now: float) -> list[Press | Hold]:
        out: list[Press | Hold] = []
        for pressed, at in changes:
            if pressed:
                self._pressed_at = at
                self._held = False
                out += self._timers(now)
            else:
                if self._pressed_at is not None and not self._held:
                    out.append(Press(at))
                self._pressed_at = None
                self._held = False
        return out

    def deadline(self) -> float | None:
        candidates = [self._switch.deadline()]
        if self._pressed_at is not None and not self._held:
            candidates.append(self._pressed_at + self.timing.hold)
        present = [c for c in candidates if c is not None]
        return min(present) if present else None
