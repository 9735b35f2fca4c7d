"""A takeback both sides must agree to: a remote seat's game (a linked grid,
docs/remote.md) takes a move back only when the people on both sides asked.

The question is always about the game as it stands: the last move, at this
number of takebacks (the epoch) and this number of moves. A move or a
takeback settles it, so two flags say all: this side asked (``ours``), the
other side asked (``theirs``). A word from the other side names the epoch
and the move number it was said at; a word for another position is stale,
and one numbered at or below the last taken is a replay: neither changes
anything.

>>> agreement = Agreement()
>>> agreement.asked()
False
>>> agreement.heard(2, epoch=0, ply=5, agree=True, moves=5)
<Heard.AGREED: 'agreed'>
"""

from __future__ import annotations

import enum
from typing import Any

from controller.referee.commands import countable


class Heard(enum.Enum):
    """What a word from the other side did."""

    REPLAY = "replay"  # numbered at or below the last taken
    STALE = "stale"  # about a position this side has left, or not reached
    AGREED = "agreed"  # both sides asked: take the move back now
    CAUGHT_UP = "caught-up"  # the other side took it back with this side's consent
    ASKED = "asked"  # the other side asks; this side has not answered
    DECLINED = "declined"  # the other side declined this side's request
    SAME = "same"  # nothing new (said again)


class Agreement:
    """The takeback question between two sides, for the game in progress."""

    def __init__(self) -> None:
        self.ours = False  # this side asked (or agreed)
        self.theirs = False  # the other side asked (or agreed)
        self.declined = False  # this side declined the other's request, not asked again since
        self.seq = 0  # the last word taken from the other side
        self.epoch = 0  # moves taken back by agreement under this invitation

    def settled(self) -> None:
        """A move was made or taken back: any question was about another position."""
        self.ours = self.theirs = self.declined = False

    def took_back(self) -> None:
        """Both agreed and the move is taken back: a move number now names another move."""
        self.epoch += 1
        self.settled()

    def asked(self) -> bool:
        """This side asks (or agrees); whether both sides now have."""
        self.ours = True
        return self.theirs

    def decline(self) -> bool:
        """This side declines the other's request; whether there was one."""
        if not self.theirs:
            return False
        self.theirs = False
        self.declined = True
        return True

    def heard(self, seq: int, epoch: int, ply: int, agree: bool, moves: int) -> Heard:
        """The other side's word ``agree`` (ask or agree; else decline), said
        after ``epoch`` takebacks with ``ply`` moves, here where the game has
        ``moves``."""
        if seq <= self.seq:
            return Heard.REPLAY
        self.seq = seq
        if agree and self.ours and (epoch, ply) == (self.epoch + 1, moves - 1):
            # the other side took the move back on this side's request; its
            # agreement itself was lost on the way, but its position says it
            return Heard.CAUGHT_UP
        if (epoch, ply) != (self.epoch, moves):
            return Heard.STALE
        if not agree:
            if not self.ours:
                return Heard.SAME
            self.ours = False
            return Heard.DECLINED
        if self.theirs:
            return Heard.SAME
        self.theirs = True
        self.declined = False
        return Heard.AGREED if self.ours else Heard.ASKED

    def data(self) -> dict[str, Any]:
        flags = {"ours": self.ours, "theirs": self.theirs, "declined": self.declined}
        return {**flags, "seq": self.seq, "epoch": self.epoch}

    def restore(self, data: Any) -> None:
        """Take what :meth:`data` wrote; ``ValueError`` for anything else."""
        if not isinstance(data, dict) or set(data) != set(self.data()):
            raise ValueError('"takeback" is not a takeback question')
        flags = [data[key] for key in ("ours", "theirs", "declined")]
        counts = [data[key] for key in ("seq", "epoch")]
        if not all(isinstance(flag, bool) for flag in flags):
            raise ValueError('"takeback" has a flag that is not true or false')
        if not all(countable(n) for n in counts):
            raise ValueError('"takeback" has a number that is not a count')
        self.ours, self.theirs, self.declined = flags
        self.seq, self.epoch = counts
