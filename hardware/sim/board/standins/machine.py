"""Stand-in for MicroPython's ``machine``: pins the test drives, PWM and a WDT.

It runs under CPython (the simulated board) and under MicroPython's unix port
(``tests/micropython``), so it keeps to what both share: no ``__future__``, no
``typing`` at run time (MicroPython ignores annotations; the quoted ones here
are for mypy).

``Pin(n)`` made twice is the same wire, as re-initialising a real GPIO keeps
the level on it; :meth:`Pin.drive` is the outside world changing that level.
Edges reach the handler as on the RP2040: a hard IRQ handler (``hard=True``)
runs at once (or, between :func:`disable_irq` and :func:`enable_irq`, once
then); a soft one goes through ``micropython.schedule`` and is dropped
silently when the scheduler queue is full (8 deep on the RP2040, 4 on the unix
port). :func:`burst` changes many wires from interrupt context, as when every
beam changes while the main loop is busy (a garbage collection): soft IRQs
pile up in the queue then, and what does not fit is lost (:data:`dropped`).
"""

import micropython  # type: ignore[import-not-found]  # the stand-in, or the real one

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_wires: "dict[Any, _Wire]" = {}
resets = 0
dropped = 0  # soft IRQs the full scheduler queue turned away
_irqs_on = [True]  # hard IRQs run at once (see disable_irq)
_latched = [0]  # pins whose hard IRQ waits for enable_irq


class _Wire:
    """What is on one GPIO, whichever ``Pin`` object names it."""

    def __init__(self, id: "Any") -> None:
        self.id = id
        self.level = 0
        self.driven = False
        self.mode = Pin.IN
        self.handler: Callable[[Pin], object] | None = None
        self.trigger = 0
        self.hard = False
        self.latched = False  # an edge came while IRQs were off


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id: "Any", mode: int = -1, pull: int = -1, value: "int | None" = None):
        wire = _wires.get(id)
        if wire is None:
            wire = _Wire(id)
            _wires[id] = wire
        self.id = id
        self._wire = wire
        if mode != -1:
            wire.mode = mode
        if pull == self.PULL_UP and not wire.driven:
            wire.level = 1
        if value is not None:
            wire.level = 1 if value else 0

    @property
    def mode(self) -> int:
        return self._wire.mode

    def value(self, level: "int | None" = None) -> int:
        if level is not None:
            self._wire.level = 1 if level else 0
        return self._wire.level

    def irq(
        self,
        handler: "Callable[[Pin], object] | None" = None,
        trigger: int = 12,
        hard: bool = False,
    ) -> None:
        wire = self._wire
        wire.handler = handler
        wire.trigger = trigger
        wire.hard = hard

    @property
    def hard(self) -> bool:
        """Whether the handler is a hard IRQ (for tests)."""
        return self._wire.hard

    def drive(self, level: int) -> None:
        """The outside world sets the wire to ``level``."""
        global dropped
        wire = self._wire
        level = 1 if level else 0
        wire.driven = True
        if level == wire.level:
            return
        wire.level = level
        edge = self.IRQ_RISING if level else self.IRQ_FALLING
        handler = wire.handler
        if handler is None or not wire.trigger & edge:
            return
        if wire.hard:
            if _irqs_on[0]:
                handler(self)
            elif not wire.latched:
                wire.latched = True
                _latched[0] += 1
            return
        try:
            micropython.schedule(handler, self)
        except RuntimeError:  # "schedule queue full": the RP2040 drops it silently
            dropped += 1


def pin(id: "Any") -> Pin:
    """The pin with this id (for tests)."""
    return Pin(id)


def _drive_all(changes: "list[tuple[Any, int]]") -> None:
    for id, level in changes:
        Pin(id).drive(level)


def burst(changes: "list[tuple[Any, int]]") -> None:
    """Set every ``(pin id, level)`` in ``changes`` from interrupt context,
    before any soft IRQ they raise is serviced; returns once all have been."""
    run = getattr(micropython, "run_as_interrupt", None)
    if run is not None:  # the CPython stand-in
        run(_drive_all, changes)
        return
    # Real MicroPython: a scheduled function runs with the scheduler locked,
    # so the soft IRQs it raises queue up behind it exactly as they would
    # behind a busy main loop.
    done = [False]

    def in_interrupt(_: object) -> None:
        _drive_all(changes)
        done[0] = True

    micropython.schedule(in_interrupt, None)
    while not done[0]:
        pass  # a loop's backward jump is where the VM services the queue
    for _ in range(4):
        pass  # and the soft IRQs queued behind it


class PWM:
    def __init__(self, pin: Pin, freq: int = 0, duty_u16: int = 0) -> None:
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        self.history: list[int] = []

    def freq(self, value: "int | None" = None) -> int:
        if value is not None:
            self._freq = value
        return self._freq

    def duty_u16(self, value: "int | None" = None) -> int:
        if value is not None:
            self._duty = value
            self.history.append(value)
        return self._duty

    def deinit(self) -> None:
        self._duty = 0


class WDT:
    """The RP2040 watchdog accepts at most 8388 ms."""

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        if timeout > 8388:
            raise ValueError("timeout too large")
        self.timeout = timeout
        self.feeds = 0

    def feed(self) -> None:
        self.feeds += 1


def reset() -> None:
    global resets
    resets += 1


def unique_id() -> bytes:
    return b"\xe6\x61\x38\x52\x83\x45\x2a\x2b"


def disable_irq() -> int:
    """Hold hard IRQs back until :func:`enable_irq`, as the RP2040 does: an
    edge meanwhile is latched, and several on one pin are one interrupt.
    Returns the state to restore."""
    was = _irqs_on[0]
    _irqs_on[0] = False
    return 1 if was else 0


def enable_irq(state: int) -> None:
    if not state:
        return
    _irqs_on[0] = True
    if not _latched[0]:
        return
    _latched[0] = 0
    for wire in list(_wires.values()):
        if wire.latched and wire.handler is not None:
            wire.latched = False
            wire.handler(Pin(wire.id))
