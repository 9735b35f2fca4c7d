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

from controller.referee.commands import RemoteCommand, RemoteInvited, RemoteRequested
from controller.referee.core import Referee
from controller.referee.invitation import Invitation
from controller.referee.verdict import Verdict
from controller.remote.client import RESEND, RemoteClient
from controller.remote.link import Link
from controller.remote.message import record_hash
from engine import Game, Move, parse_move

log = logging.getLogger("popref")


class LinkedGuest:
    """This grid's end of a linked game through ``link``'s broker."""

    def __init__(self, link: Link, wall: Callable[[], float] = time.time) -> None:
        self.link = link
        self.mine = link.colour
        self.theirs = link.colour.other
        self._wall = wall
        self.client = RemoteClient(link, "popref-grid", wall=wall, announce=True)
        self._moves: dict[int, str] = {}  # the inviting grid's moves by ply, from its messages
        self._hashes: dict[int, str] = {}  # its record hash after each move, by ply
        self._requested: set[int] = set()  # plies of this grid's moves asked of it in this run
        self._answered = 0  # the other grid's last ``up`` this grid answered with its own
        self.diverged: int | None = None  # the first ply where the two journals differ

    # -- the loop's side (as controller.remote.host.RemoteHost) -------------------------

    def open(self, wake: Callable[[], None], referee: Referee) -> None:
        self.client.on_arrival = wake
        self.client.connection.on_change = wake
        self.client.start()

    def inputs(self, referee: Referee, now: float) -> Iterator[RemoteCommand]:
        self._take()
        seat = referee.remote
        if seat.invitation is None and referee.not_begun():
            invitation = Invitation(self.link.game, self.link.key, self.theirs, self._wall())
            yield RemoteInvited(invitation)
        if seat.invitation is None or seat.invitation.game != self.link.game:
            return
        self._agree(referee.game)
        self._ask(referee.game)
        self.client.resend()
        theirs = self._next_theirs(referee)
        if theirs is not None:
            yield theirs

    def answered(self, command: RemoteCommand, verdict: Verdict) -> None:
        """The referee's word on one of the inviting grid's moves: nothing to say back."""

    def fed(self, verdict: Verdict, referee: Referee) -> None:
        """A move made here is journalled: ask the inviting grid to copy it."""
        if verdict.accepted is not None:
            self._agree(referee.game)
            self._ask(referee.game)

    def publish_state(self, state: dict[str, Any], referee: Referee) -> None:
        """The inviting grid keeps the retained state; this side publishes none."""

    def deadline(self, now: float) -> float | None:
        """When an unanswered request is due to be sent again."""
        return now + RESEND if self.client.unanswered() else None

    def link_state(self) -> str:
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
        if isinstance(ply, int) and not isinstance(ply, bool) and ply > 0 and isinstance(move, str):
            self._moves[ply] = move
            if isinstance(hashed, str):
                self._hashes[ply] = hashed

    def _known(self) -> list[str]:
        """The inviting grid's moves as its last state says them."""
        state = self.client.state or {}
        moves = state.get("moves")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            return []
        return moves

    def _move_at(self, ply: int) -> str | None:
        """The inviting grid's move number ``ply`` (1 is the first), if known."""
        known = self._known()
        return known[ply - 1] if ply <= len(known) else self._moves.get(ply)

    def _agree(self, game: Game) -> None:
        """Both journals must hold the same game: every move both have, and the
        record hash after each move the other grid numbered."""
        mine = [str(move) for move in game.moves]
        for ply, theirs in enumerate(self._known()[: len(mine)], start=1):
            if theirs != mine[ply - 1]:
                self._differs(ply)
                return
        hashed = self._hashes.get(len(mine))
        if hashed is not None and hashed != record_hash(game):
            self._differs(len(mine))

    def _differs(self, ply: int) -> None:
        if self.diverged is None:
            self.diverged = ply
            log.error("The other grid's game differs from this one's after move %d.", ply)

    # -- the moves -------------------------------------------------------------------------

    def _ask(self, game: Game) -> None:
        """This grid's first move the other grid has not made yet, asked once
        in this run (the client sends it again until answered); after a
        restart it is asked again and answered, never taken twice."""
        state = self.client.state
        if state is None or not isinstance(state.get("ply"), int):
            return  # catch up first: the retained state says where the other grid is
        ply = state["ply"]
        if ply >= len(game.moves) or ply in self._requested:
            return
        before = game.copy()
        while len(before.moves) > ply:
            before.undo()
        if before.to_move is not self.mine:
            return  # their move: it comes from them
        after = before.copy()
        after.play(game.moves[ply])
        self._requested.add(ply)
        value = {"ply": ply, "move": str(game.moves[ply]), "hash": record_hash(after)}
        self.client.send("request", value)

    def _next_theirs(self, referee: Referee) -> RemoteRequested | None:
        """The inviting grid's next move, when this grid has made every move
        before it and nothing of theirs waits to be copied."""
        game = referee.game
        if game.is_over() or game.to_move is not self.theirs or referee.remote.move is not None:
            return None
        ply = len(game.moves) + 1
        move = self._move_at(ply)
        if move is None or ply <= referee.remote.last_seq:
            return None
        try:
            parsed: Move = parse_move(move[:10])
        except ValueError:
            return None
        return RemoteRequested(ply, ply - 1, parsed)
