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
from typing import TypeGuard

from controller.referee.invitation import Invitation
from engine import Move
from engine.colour import Colour
from hardware.events import Event

PAIRING_WINDOW = 30.0  # seconds a pairing request waits for the mode button
# A remote side's message, move and takeback numbers are JSON numbers a
# browser keeps exactly: 0 to this. The journal reads nothing else back, so
# nothing else may be made (a record it cannot read would lose the game).
SEQ_LIMIT = 2**53 - 1


def countable(value: object, least: int = 0) -> TypeGuard[int]:
    """Whether ``value`` is a whole number a remote side may send, ``least``
    to :data:`SEQ_LIMIT`.

    >>> countable(3), countable(-1), countable(2**53), countable(True), countable(0, least=1)
    (True, False, False, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= SEQ_LIMIT


def _counted(command: object, **numbers: tuple[int, int]) -> None:
    for name, (value, least) in numbers.items():
        if not countable(value, least):
            raise ValueError(
                f"{type(command).__name__}: {name} {value!r} is not {least}..{SEQ_LIMIT}"
            )


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
class TakebackAsked:
    """Take back the last move (against the computer: the person's last turn,
    :mod:`controller.referee.takeback`); the grid is then repaired to match."""

    at: float = 0.0


@dataclass(frozen=True, slots=True)
class TakebackDeclined:
    """The other side of a linked game asked to take back the last move;
    this side says no (:mod:`controller.referee.agreement`)."""

    at: float = 0.0


@dataclass(frozen=True, slots=True)
class TakebackHeard:
    """The other side's word on taking back the last move, its signature,
    game and number already checked (:mod:`controller.remote`): ``agree``
    (it asks, or agrees) or not (it declines), said after ``epoch``
    takebacks with ``ply`` moves."""

    seq: int
    epoch: int
    ply: int
    agree: bool
    at: float = 0.0

    def __post_init__(self) -> None:
        _counted(self, seq=(self.seq, 1), epoch=(self.epoch, 0), ply=(self.ply, 0))


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


@dataclass(frozen=True, slots=True)
class RemoteChosen:
    """Invite a friend to play this colour in each new game (``None``: no
    more), and in this one if it has no invitation (``[remote] plays``,
    ``popref simulate --remote``)."""

    plays: Colour | None
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class RemoteInvited:
    """This game's invitation, made by the daemon (its secret from the
    daemon's randomness, so that replaying the journal makes the same one)."""

    invitation: Invitation
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class RemoteRevoked:
    """The invitation ends: revoked by the owner, or ``expired`` unused."""

    expired: bool = False
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class RemoteRequested:
    """A request from the remote player, its signature, game and number
    already checked (:mod:`controller.remote`): ``move`` in the position
    after ``ply`` moves."""

    seq: int
    ply: int
    move: Move
    at: float = 0.0

    def __post_init__(self) -> None:
        _counted(self, seq=(self.seq, 1), ply=(self.ply, 0))


RemoteCommand = RemoteChosen | RemoteInvited | RemoteRevoked | RemoteRequested | TakebackHeard
Command = (
    RulesChosen
    | NewGameAsked
    | OpponentChosen
    | LevelChosen
    | HintAsked
    | TakebackAsked
    | TakebackDeclined
    | PairingRequested
    | PairingEnded
    | RemoteCommand
)
Input = Event | Command
