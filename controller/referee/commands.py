"""What a person asks for away from the grid: the page's controls and its
pairing requests, as referee inputs.

They go through the same path as the mode button: the daemon dates each one
with its clock, the referee handles it, and the journal records it before the
board shows the outcome, so the page and the button can never disagree.

>>> RulesChosen("pop10", at=2.0)
RulesChosen(rules='pop10', at=2.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.colour import Colour
from hardware.events import Event

PAIRING_WINDOW = 30.0  # seconds a pairing request waits for the mode button


@dataclass(frozen=True, slots=True)
class RulesChosen:
    """The rules of the next game (of this one if it has not begun)."""

    rules: str
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class NewGameAsked:
    """A new game now; one in progress is abandoned (the page asked first)."""

    at: float = 0.0


@dataclass(frozen=True, slots=True)
class OpponentChosen:
    """The colour the computer plays in the next game (``None``: two
    players); in this one if it has not begun, as the mode button's double
    press between games does."""

    plays: Colour | None
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class LevelChosen:
    """The computer's level (1 to 10) from the next game; in this one if it
    has not begun."""

    level: int
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class HintAsked:
    """A hint for the player to move, as the double press mid-game asks."""

    at: float = 0.0


@dataclass(frozen=True, slots=True)
class PairingRequested:
    """A browser asks to be paired: the board lights ``code`` (the columns
    its page shows lit) until a press of the mode button answers it or
    :data:`PAIRING_WINDOW` runs out (the rule: :mod:`controller.referee.pairing_window`)."""

    code: tuple[int, ...] = ()
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class PairingEnded:
    """Nobody pressed the mode button in time: the board stops blinking."""

    at: float = 0.0


Command = (
    RulesChosen
    | NewGameAsked
    | OpponentChosen
    | LevelChosen
    | HintAsked
    | PairingRequested
    | PairingEnded
)
Input = Event | Command
