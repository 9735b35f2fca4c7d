"""The joining side of two linked grids (docs/remote.md, "Linked grids"):
a grid that holds an invitation link plays the link's colour with its own
discs, and the inviting grid's colour is a remote seat on it, whose moves
are lit for the person here to copy.

To the inviting grid this side is a remote player like ``popref play``: each
move made here is a signed request (with the record hash after it), which
the inviting grid lights for its own person to copy. Here the inviting
grid's moves come from its ``move`` messages and its retained state; each
becomes a :class:`~controller.referee.commands.RemoteRequested` numbered by
its ply, so the referee's remote seat takes it once, in order, and only when
everything before it is on this grid; a person then copies it, refereed like
any move. Nothing is committed here that this grid's person did not make.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from controller.referee.commands import (
    RemoteCommand,
    RemoteInvited,
    RemoteRequested,
    RemoteRevoked,
    TakebackHeard,
    countable,
)
from controller.referee.core import Referee
from controller.referee.invitation import Invitation
from controller.referee.verdict import Verdict, Word
from controller.remote.client import RESEND, RemoteClient
from controller.remote.link import Link
from controller.remote.message import EPOCH_MOVES, epoch_of, record_hash
from engine import RULES_NAMES, Move, parse_move
from engine.colour import Colour

log = logging.getLogger("popref")


class LinkedGuest:
    """This grid's end of a linked game through ``link``'s broker."""

    def __init__(self, link: Link, wall: Callable[[], float] = time.time) -> None:
        self.link = link
        self.mine = link.colour
        self.theirs = link.colour.other
        self._wall = wall
        self.client = RemoteClient(link, "popref-grid", wall=wall, announce=True)
        # the inviting grid's moves and its record hash after each, by epoch
        # (takebacks so far) and ply, from its messages: after a takeback a
        # move number names another move
        self._moves: dict[tuple[int, int], str] = {}
        self._hashes: dict[tuple[int, int], str] = {}
        self._requested: set[tuple[int, int]] = set()  # this grid's moves asked of it in this run
        # this grid's last word on a takeback, sent again until the other grid's
        # state shows it heard, and when it was last sent (the loop's clock)
        self._word: Word | None = None
        self._word_seq = 0  # the number it was first sent with
        self._word_sent = 0.0
        # this grid declined the other's request: its state may still show
        # the request until it hears, which is not a new one
        self._refused = False
        self._resumed = False  # this run said again what the journal says this grid said
        self._answered = 0  # the other grid's last ``up`` this grid answered with its own
        self.diverged: int | None = None  # the first ply where the two journals differ
        # the link's one game is over here, or ended there: see _spends
        self._over_here = False
        self.spent = False
        # the link of the other grid's next game, when its finished game's
        # last state named it (the same link plays on): this grid follows
        self.sequel: Link | None = None
        # the other grid's game was past this grid's first move when it would
        # have begun it here: its move count then (see _past_mine)
        self.late: int | None = None
        # the game here followed an earlier link, until a new game begins
        self.behind = False
        self._wake: Callable[[], None] = lambda: None
        # told, on the network thread, when the other grid's word arrives or the
        # link comes or goes: a terminal waiting for a typed line wakes for it
        # (the daemon's own loop wakes through ``open``'s ``wake``)
        self.on_arrival: Callable[[], None] | None = None

    # -- the loop's side (as controller.remote.host.RemoteHost) -------------------------

    def open(self, wake: Callable[[], None], referee: Referee) -> None:
        self._wake = wake
        self.client.on_arrival = self._arrived
        self.client.connection.on_change = self._arrived
        self.client.start()

    def _arrived(self) -> None:
        self._wake()
        if self.on_arrival is not None:
            self.on_arrival()

    def inputs(self, referee: Referee, now: float) -> Iterator[RemoteCommand]:
        self._take()
        seat = referee.remote
        ours = seat.invitation is not None and seat.invitation.game == self.link.game
        if seat.invitation is not None and not ours:
            # the journal's game followed an earlier link: this grid was given
            # a new one, whose game begins with a new game here
            self.behind = True
            yield RemoteRevoked(at=self._wall())
            return
        if self.behind and not referee.in_progress():
            self.behind = False
        if self._spends(referee, ours):
            if ours:
                yield RemoteRevoked(at=self._wall())
            return
        if self.waits(referee):
            return
        if seat.invitation is None and referee.not_begun():
            invitation = Invitation(self.link.game, self.link.key, self.theirs, self._wall())
            yield RemoteInvited(invitation)
        if seat.invitation is None or seat.invitation.game != self.link.game:
            return
        self._agree(referee)
        self._ask(referee)
        self.client.resend()
        self._resume(referee)
        self._say_again(referee, now)
        heard = self._their_word(referee)
        if heard is not None:
            yield heard
        theirs = self._next_theirs(referee)
        if theirs is not None:
            yield theirs

    def _spends(self, referee: Referee, ours: bool) -> bool:
        """Whether the link is spent: it names one game, so once the other
        grid has ended that game (it began its next one, on the same link or
        on a new one), or this grid would begin at a game already past its
        own first move there, no game here follows it again. Without this, a
        new game here would take the old game's moves for the other grid's
        (docs/remote.md, "Linked grids"). Once ended, the next game's link
        is known when the same link plays on (``sequel``)."""
        state = self.client.state or {}
        # ended there (that grid began its next game) is said at once, also
        # over a finished game here: its people need the next link
        ended = state.get("invitation") == "ended"
        if ended and self.sequel is None:
            self.sequel = self.link.sequel(state.get("sequel"))
        if self.spent:
            return True
        if not ended and ours and referee.game.is_over():
            self._over_here = True  # shown until a new game begins here
            return False
        if ended:
            self.spent = True  # the board says so (controller.daemon.loop)
        elif referee.not_begun() and not self.waits(referee):
            self.late = self._past_mine(state)
            self.spent = self.late is not None
        return self.spent

    def waits(self, referee: Referee) -> bool:
        """Whether the link's game is over (here, or there before it began
        here) and the other grid has not begun its next: a new game here
        waits for it, for the same link may lead to it. A move here makes
        that game this grid's own."""
        if self.spent or not referee.not_begun():
            return False
        over_there = (self.client.state or {}).get("result") is not None
        return self._over_here or over_there

    def _past_mine(self, state: dict[str, Any]) -> int | None:
        """The other grid's move count when its game, not begun here, is past
        this grid's first move there, else None. Such a game cannot be
        followed from an empty grid (a link opened late, this grid left and
        came back, its journal lost): its own earlier moves would never be
        lit, and the two grids would hold two games. Not caught up yet (no
        state): None, and the seat waits for it, as for a move."""
        ply = state.get("ply")
        first = 1 if self.mine is Colour.RED else 2  # this grid's colour's first move
        return ply if countable(ply, first) else None

    def answered(self, command: RemoteCommand, verdict: Verdict) -> None:
        """The referee's word on one of the inviting grid's moves: nothing to say back."""

    def fed(self, verdict: Verdict, referee: Referee) -> None:
        """A move made here is journalled: ask the inviting grid to copy it;
        a word on a takeback: tell it."""
        if verdict.accepted is not None:
            self._agree(referee)
            self._ask(referee)
        if verdict.word is not None:
            self._word = verdict.word
            self._refused = not verdict.word.agree
            self._word_seq = self._say(verdict.word)

    def publish_state(self, state: dict[str, Any], referee: Referee) -> None:
        """The inviting grid keeps the retained state; this side publishes none."""

    def deadline(self, now: float) -> float | None:
        """When an unanswered request or word is due to be sent again."""
        return now + RESEND if self.client.unanswered() or self._word is not None else None

    def aside(self, referee: Referee) -> bool:
        """Whether this grid plays a game of its own while the link holds (a
        move made while it waited for the other grid's next game)."""
        seat = referee.remote.invitation
        return not (self.spent or self.behind) and referee.in_progress() and seat is None

    def rules_there(self) -> str | None:
        """The rules of the other grid's game, as its state names them, while
        the link is open and not spent: a game not begun here takes them (that
        grid's owner may choose other rules before its first move, after this
        grid joined or followed with the link's)."""
        state = self.client.state or {}
        rules = state.get("rules")
        if self.spent or state.get("invitation") != "open" or rules not in RULES_NAMES:
            return None
        return str(rules)

    def link_state(self) -> str:
        if self.spent or self.behind:
            return "down"
        there = self.client.connection.connected.is_set() and self.client.presence.up is True
        return "up" if there else "down"

    def current_link(self) -> str | None:
        return None  # this grid was invited; it invites nobody

    def close(self) -> None:
        self.client.close()

    # -- the inviting grid's word ---------------------------------------------------------

    def _take(self) -> None:
        """Every board message that came, applied to what is known of the other grid."""
        was_up = self.client.presence.up
        while (message := self.client.take(0.0)) is not None:
            fields = message.fields()
            if message.kind == "move":
                self._took_move(fields)
        presence = self.client.presence
        if was_up is not False and presence.up is False:
            self.client.hello()  # a will, or one replayed: the other grid answers if it is there
        if presence.up and presence.seq != self._answered:
            # the other grid (re)connected and may have missed this grid's word
            self._answered = presence.seq
            self.client.say_present()

    def _took_move(self, fields: dict[str, Any]) -> None:
        ply, move, hashed = fields.get("ply"), fields.get("move"), fields.get("hash")
        epoch = epoch_of(fields)
        if isinstance(ply, int) and not isinstance(ply, bool) and ply > 0 and isinstance(move, str):
            self._moves[epoch, ply] = move
            if isinstance(hashed, str):
                self._hashes[epoch, ply] = hashed

    def _known(self, epoch: int) -> list[str]:
        """The inviting grid's moves as its last state says them, when it
        says them after ``epoch`` takebacks (else none: another game line)."""
        state = self.client.state or {}
        if epoch_of(state) != epoch:
            return []
        moves = state.get("moves")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            return []
        return moves

    def _move_at(self, epoch: int, ply: int) -> str | None:
        """The inviting grid's move number ``ply`` (1 is the first) after
        ``epoch`` takebacks, if known."""
        known = self._known(epoch)
        return known[ply - 1] if ply <= len(known) else self._moves.get((epoch, ply))

    def _agree(self, referee: Referee) -> None:
        """Both journals must hold the same game: every move both have, and the
        record hash after each move the other grid numbered."""
        game, epoch = referee.game, referee.remote.agreement.epoch
        mine = [str(move) for move in game.moves]
        for ply, theirs in enumerate(self._known(epoch)[: len(mine)], start=1):
            if theirs != mine[ply - 1]:
                self._differs(ply)
                return
        # checked once, as the inviting side does: not again at every loop step
        hashed = self._hashes.pop((epoch, len(mine)), None)
        if hashed is not None and hashed != record_hash(game):
            self._differs(len(mine))

    def _differs(self, ply: int) -> None:
        if self.diverged is None:
            self.diverged = ply
            log.error("The other grid's game differs from this one's after move %d.", ply)

    # -- the moves -------------------------------------------------------------------------

    def _ask(self, referee: Referee) -> None:
        """This grid's first move the other grid has not made yet, asked once
        in this run (the client sends it again until answered); after a
        restart it is asked again and answered, never taken twice."""
        game, epoch = referee.game, referee.remote.agreement.epoch
        state = self.client.state
        if state is None or not isinstance(state.get("ply"), int):
            return  # catch up first: the retained state says where the other grid is
        if epoch_of(state) != epoch:
            return  # a takeback on one grid only, so far: its word settles it first
        ply = state["ply"]
        if ply >= len(game.moves) or (epoch, ply) in self._requested:
            return
        before = game.copy()
        while len(before.moves) > ply:
            before.undo()
        if before.to_move is not self.mine:
            return  # their move: it comes from them
        after = before.after(game.moves[ply])
        self._requested.add((epoch, ply))
        value = {"ply": ply, "move": str(game.moves[ply]), "hash": record_hash(after)}
        self.client.send("request", {**value, "epoch": epoch})

    def _next_theirs(self, referee: Referee) -> RemoteRequested | None:
        """The inviting grid's next move, when this grid has made every move
        before it and nothing of theirs waits to be copied."""
        game = referee.game
        if game.is_over() or game.to_move is not self.theirs or referee.remote.move is not None:
            return None
        ply, epoch = len(game.moves) + 1, referee.remote.agreement.epoch
        move = self._move_at(epoch, ply)
        # numbered by epoch and ply: the new move N after a takeback is above the old one
        seq = epoch * EPOCH_MOVES + ply
        if move is None or seq <= referee.remote.last_seq:
            return None
        try:
            parsed: Move = parse_move(move[:10])
        except ValueError:
            return None
        return RemoteRequested(seq, ply - 1, parsed)

    # -- the takeback both grids agree to (controller.referee.agreement) ---------------------

    def _say(self, word: Word) -> int:
        value = {"epoch": word.epoch, "ply": word.ply, "agree": word.agree}
        return self.client.send("takeback", value)

    def _heard_mine(self, state: dict[str, Any]) -> bool:
        """Whether the other grid's state comes after it took this grid's last word."""
        seq = _question(state).get("seq")
        return isinstance(seq, int) and not isinstance(seq, bool) and seq >= self._word_seq

    def _resume(self, referee: Referee) -> None:
        """After a restart: this grid's word on a takeback, as its journal
        says it, is said again (the other grid may never have heard it)."""
        if self._resumed:
            return
        self._resumed = True
        agreement = referee.remote.agreement
        if agreement.ours or agreement.declined:
            word = Word(referee.remote.agreement.epoch, len(referee.game.moves), agreement.ours)
            self._word, self._refused = word, agreement.declined
            self._word_seq = self._say(word)

    def _say_again(self, referee: Referee, now: float) -> None:
        """This grid's word, again every second until the other grid's state
        shows it heard (its state is its word back)."""
        word = self._word
        if word is None:
            return
        state = self.client.state or {}
        ply = state.get("ply")
        ply = ply if isinstance(ply, int) and not isinstance(ply, bool) else -1
        # a grid still behind the word (a move of this grid's not yet copied)
        # hears it once it catches up: only one beyond it has settled it
        beyond = (epoch_of(state), ply) > (word.epoch, word.ply)
        # a no is heard once the other grid's request is gone from its state
        # (this grid saw it there before it said no)
        unasked = not word.agree and _question(state).get("asked") is not True
        if beyond or unasked or self._heard_mine(state):
            self._word = None
        elif now - self._word_sent >= RESEND and self.client.connection.connected.is_set():
            self._word_sent = now  # not while the broker is away: see RemoteClient.resend
            self._say(word)

    def _their_word(self, referee: Referee) -> TakebackHeard | None:
        """The other grid's word on a takeback, from its state: it asks (or
        agreed), it declined, or it took back on this grid's request."""
        state = self.client.state
        seq = self.client.state_seq
        if state is None or referee.remote.invitation is None:
            return None
        question = _question(state)
        epoch, ply = epoch_of(state), state.get("ply")
        if not isinstance(ply, int) or isinstance(ply, bool):
            return None
        agreement, here = (
            referee.remote.agreement,
            (referee.remote.agreement.epoch, len(referee.game.moves)),
        )
        if agreement.ours and (epoch, ply) == (here[0] + 1, here[1] - 1):
            return TakebackHeard(seq, epoch, ply, True)  # it took back on this grid's word
        if (epoch, ply) != here:
            return None
        if question.get("asked") is not True:
            self._refused = False  # it heard this grid's no
            if agreement.ours and question.get("declined") is True and self._heard_mine(state):
                return TakebackHeard(seq, epoch, ply, False)
            return None
        if agreement.theirs or self._refused:
            return None
        return TakebackHeard(seq, epoch, ply, True)


def _question(state: dict[str, Any]) -> dict[str, Any]:
    """The other grid's takeback question as its state says it (none: empty)."""
    question = state.get("takeback")
    return question if isinstance(question, dict) else {}
