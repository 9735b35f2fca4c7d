"""What one input did to the referee: a :class:`Verdict`, and the
:class:`Draft` it is collected in while the referee (:mod:`controller.referee.core`)
and its controls (:mod:`controller.referee.controls`) handle the input.

>>> draft = Draft(changed=True)
>>> draft.log.append("Red played a drop into column 4.")
>>> draft.verdict().log
('Red played a drop into column 4.',)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controller.i18n.text import Text
from engine import Game, Move


@dataclass(frozen=True, slots=True)
class Declined:
    """Why a remote player's request was not taken: a short ``code``
    (``stale``, ``over``, ``turn``, ``waiting``, ``illegal``) and the sentence."""

    code: str
    reason: Text


@dataclass(frozen=True, slots=True)
class Word:
    """This side's word to the other on a takeback, for the broker: ``agree``
    (it asks, or agrees) or not (it declines), said after ``epoch``
    takebacks with ``ply`` moves (controller.referee.agreement)."""

    epoch: int
    ply: int
    agree: bool


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one event did.

    ``changed``: the state changed, so the event must be journalled before the
    display is shown. ``new_game``: a new game began (the journal may be
    compacted to a snapshot). ``finished``: a game that just ended, to archive.
    ``mistake``: a short kind name when the event broke the rules. ``hint``:
    the player to move asked for the best move (a double press).
    ``paired``: the mode button granted a pending pairing request.
    ``declined``: why a remote player's request was not taken.
    ``word``: this side's word on a takeback, for the other side.
    """

    changed: bool = False
    accepted: Move | None = None
    mistake: str | None = None
    new_game: bool = False
    finished: Game | None = None
    log: tuple[str, ...] = ()
    hint: bool = False
    paired: bool = False
    declined: Declined | None = None
    word: Word | None = None


@dataclass
class Draft:
    """Collects the parts of a verdict while an event is handled."""

    changed: bool = False
    accepted: Move | None = None
    mistake: str | None = None
    new_game: bool = False
    finished: Game | None = None
    log: list[str] = field(default_factory=list)
    hint: bool = False
    paired: bool = False
    declined: Declined | None = None
    word: Word | None = None

    def verdict(self) -> Verdict:
        return Verdict(
            self.changed,
            self.accepted,
            self.mistake,
            self.new_game,
            self.finished,
            tuple(self.log),
            self.hint,
            self.paired,
            self.declined,
            self.word,
        )


# told a command's verdict once it is durable (the page's commands, a link it gives)
Reply = Callable[[Verdict], None]
