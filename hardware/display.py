"""What the players should see: one declarative display state.

The referee computes a :class:`Display`; a backend turns it into device states
(LEDs, bar graphs, servos, a buzzer, or messages to the sensor board), showing
as much of it as the board it drives has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from engine.colour import Colour


class Lamp(str, Enum):
    """The state of one column light."""

    OFF = "off"
    DROP = "drop"  # a disc may be dropped here now
    POP = "pop"  # the mover may pop their disc from the bottom here now
    DROP_OR_POP = "drop-or-pop"
    CHOSEN = "chosen"  # the one column to act on now (a repair step, a selection)
    ERROR = "error"  # something is wrong with this column
    WINNING = "winning"  # part of the winning line
    COMPUTER_DROP = "computer-drop"  # drop the computer's disc here (its move)
    COMPUTER_POP = "computer-pop"  # pop the bottom disc here for the computer
    HINT_DROP = "hint-drop"  # a hint: drop the mover's disc here
    HINT_POP = "hint-pop"  # a hint: pop the mover's bottom disc here


class Alert(str, Enum):
    """What the buzzer (where fitted) should be saying."""

    NONE = "none"
    ERROR = "error"
    WIN = "win"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class ColumnLight:
    """One column's light: its lamp state and, for an RGB light, the colour of
    the disc concerned (whose move it is, or which colour to drop next)."""

    lamp: Lamp = Lamp.OFF
    colour: Colour | None = None


@dataclass(frozen=True, slots=True)
class Display:
    """Everything the board should show at one moment.

    ``columns`` has one entry per physical column. ``scores`` is ``(red,
    yellow)`` in Pop 10 and ``None`` otherwise. ``winning`` holds the winning
    cells as ``(physical column, row)`` pairs, both 1-based, row 1 at the
    bottom, for boards with per-cell lights. ``status`` is one plain sentence
    for terminals, logs and systemd; ``fault`` is set while something is wrong
    and says what to do.
    """

    columns: tuple[ColumnLight, ...]
    turn: Colour | None = None
    scores: tuple[int, int] | None = None
    alert: Alert = Alert.NONE
    winning: frozenset[tuple[int, int]] = field(default_factory=frozenset)
    status: str = ""
    fault: str | None = None

    @property
    def hint_lit(self) -> bool:
        """Whether a column light shows a hint (its lamp says so, whatever
        ``status`` reads)."""
        return any(light.lamp in (Lamp.HINT_DROP, Lamp.HINT_POP) for light in self.columns)

    @classmethod
    def dark(cls, columns: int, status: str = "") -> Display:
        """Every light off: the safe idle state."""
        return cls(columns=tuple(ColumnLight() for _ in range(columns)), status=status)
