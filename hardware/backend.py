"""The one interface the daemon uses to talk to a board, whatever drives it.

The daemon's loop is single-threaded::

    backend.open(wake)
    while running:
        wait until wake() is called or backend.next_deadline() passes
        for event in backend.poll(clock()):
            display = referee.handle(event)
        backend.show(display)

Pin callbacks and serial reader threads do nothing but record raw input and
call ``wake``; all debouncing and decoding happens in :meth:`Backend.poll`, on
the daemon's thread, against the injected clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from hardware.display import Display
from hardware.events import Event

Mark = dict[str, Any]
"""The sensor board's counters consumed up to and including an event
(JSON-ready): what the daemon journals with that event, so a restart counts
exactly what it missed (:mod:`hardware.serial_marks`)."""

Marked = tuple[Event, Mark | None]
"""An event and its mark (``None`` for events that are not counts)."""


class Backend(Protocol):
    """A board: sensors in, one display state out."""

    @property
    def columns(self) -> int:
        """How many physical columns the grid has."""
        ...

    @property
    def rows(self) -> int:
        """How many rows the grid has."""
        ...

    @property
    def senses_colour(self) -> bool:
        """Whether entry events carry the disc's colour."""
        ...

    def open(self, wake: Callable[[], None]) -> None:
        """Start listening; ``wake`` may be called from any thread when raw
        input arrives."""
        ...

    def poll(self, now: float) -> list[Event]:
        """Process raw input and timers up to ``now``; return the events that
        became certain, oldest first."""
        ...

    def next_deadline(self) -> float | None:
        """The latest time at which :meth:`poll` must run again even if no
        input arrives (debounce windows, hold timers, level re-reads,
        heartbeats), or ``None``."""
        ...

    def show(self, display: Display) -> None:
        """Make the board show ``display`` (idempotent: showing the same state
        twice changes nothing)."""
        ...

    def close(self) -> None:
        """Turn every output to its safe idle state and release the hardware."""
        ...


@runtime_checkable
class Seeing(Protocol):
    """A backend that sees what the grid holds, not only what goes in and
    out: the simulated grid does (a real board's sensors count discs)."""

    def contents(self) -> list[str]:
        """The grid now, top row first: ``.``, ``R`` or ``Y`` a cell."""
        ...


@runtime_checkable
class Counting(Protocol):
    """A backend whose board keeps cumulative counters (the sensor board).

    The daemon journals each event with its mark, the counters consumed up to
    it, and hands the last one back before :meth:`Backend.open` after a
    restart, so nothing the board counted meanwhile is lost or doubled.
    """

    def poll_marked(self, now: float) -> list[Marked]:
        """:meth:`Backend.poll`, each event with its mark."""
        ...

    def resume(self, mark: Mark) -> None:
        """Count on from ``mark``."""
        ...
