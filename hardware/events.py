"""What the grid tells the daemon: typed, debounced, timestamped events.

Columns are *physical* columns, numbered from 1 at the left of the grid. The
edge strips of 5-in-a-Row are printed card, not part of the grid, so they have
no sensors; the referee maps physical columns to the engine's numbering.

Every event carries ``at``, the time in seconds of the injected monotonic clock
at which the backend saw the edge that made it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.colour import Colour


@dataclass(frozen=True, slots=True)
class DiscEntered:
    """A disc passed the entry beam at the top of ``column``.

    ``colour`` is set only on grids that sense colour at the entry.
    """

    column: int
    at: float = 0.0
    colour: Colour | None = None


@dataclass(frozen=True, slots=True)
class DiscLeft:
    """A disc left the bottom of ``column`` (a pop, or the slider emptying it)."""

    column: int
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class SliderMoved:
    """The release slider opened (every disc falls out) or closed (armed)."""

    open: bool
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """The mode button was pressed and released before the hold time."""

    at: float = 0.0


@dataclass(frozen=True, slots=True)
class ButtonHeld:
    """The mode button has been held down for the hold time (about 2 s)."""

    at: float = 0.0


@dataclass(frozen=True, slots=True)
class SensorFault:
    """A sensor or link cannot be trusted: a beam blocked for seconds, a board
    unplugged. ``sensor`` names it ("entry 3", "exit 5", "sensor board");
    ``message`` is one plain sentence that says what is wrong and what to do
    (a :class:`~engine.sentence.Sentence` where the controller may translate it)."""

    sensor: str
    message: str
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class SensorCleared:
    """The fault on ``sensor`` is gone."""

    sensor: str
    at: float = 0.0


Event = (
    DiscEntered | DiscLeft | SliderMoved | ButtonPressed | ButtonHeld | SensorFault | SensorCleared
)
