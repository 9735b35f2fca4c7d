"""Stand-in for MicroPython's ``micropython`` module under CPython (on the
unix port the real one is used).

:func:`schedule` keeps a queue of :data:`DEPTH` like the RP2040's: outside
interrupt context the queue is serviced at once (CPython has no VM hook to
do it later); inside :func:`run_as_interrupt` it fills up and, when full,
raises ``RuntimeError("schedule queue full")`` as the real one does.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

DEPTH = 8  # MICROPY_SCHEDULER_DEPTH on the RP2040
kbd_intr_char = 3  # what the firmware last passed to kbd_intr; 3 (Ctrl-C) at boot
emergency_buf = 0  # what the firmware passed to alloc_emergency_exception_buf
_queue: "list[tuple[Callable[[Any], object], Any]]" = []
_locked = [False]


def const(value: int) -> int:
    return value


def kbd_intr(char: int) -> None:
    global kbd_intr_char
    kbd_intr_char = char


def schedule(func: "Callable[[Any], object]", arg: "Any") -> None:
    if len(_queue) >= DEPTH:
        raise RuntimeError("schedule queue full")
    _queue.append((func, arg))
    if not _locked[0]:
        _service()


def _service() -> None:
    while _queue:
        func, arg = _queue.pop(0)
        func(arg)


def run_as_interrupt(func: "Callable[[Any], object]", arg: "Any") -> None:
    """Run ``func(arg)`` with the scheduler locked, then service the queue."""
    _locked[0] = True
    try:
        func(arg)
    finally:
        _locked[0] = False
    _service()


def alloc_emergency_exception_buf(size: int) -> None:
    global emergency_buf
    emergency_buf = size


def heap_lock() -> int:
    return 0


def heap_unlock() -> int:
    return 0
