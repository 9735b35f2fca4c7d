"""The remote player's place at the referee's table: the invitation (the
game id and secret its link carries, its colour, when it was made), the last
request taken from it, and the move it asked for that a person is to make on
the grid (a :class:`~controller.referee.proxy.ProxySeat`, like the computer's).

The protocol and the broker live in :mod:`controller.remote`; the referee
sees only its inputs (:mod:`controller.referee.commands`: ``RemoteChosen``,
``RemoteInvited``, ``RemoteRevoked``, ``RemoteRequested``), journalled like
the page's, so a restart resumes the invitation and the pending move.

An invitation belongs to the game in progress (made between games, to the
next one): a new game revokes it, and ``next_colour`` (``[remote] plays``,
``popref simulate --remote``) asks for a fresh one in each new game. After
a game that ended with a result, played through the invitation, the fresh
one is its sequel: the same link leads to it (``sequel``).

>>> from controller.referee.core import Referee, Table
>>> from controller.referee.commands import RemoteInvited, RemoteRequested
>>> from engine import Move
>>> referee = Referee(Table(), "classic")
>>> from controller.referee.invitation import Invitation
>>> invitation = Invitation("A" * 22, bytes(32), Colour.RED, made_at=0.0)
>>> referee.handle(RemoteInvited(invitation)).log
('A friend is invited to play Red.',)
>>> referee.handle(RemoteRequested(1, 0, Move.drop(4))).log
('Your friend (Red) plays a drop into column 4.',)
>>> referee.handle(RemoteRequested(2, 0, Move.drop(5))).declined.code
'waiting'
"""

from __future__ import annotations

from typing import Any, Protocol

from controller.i18n.text import Text, _t
from controller.i18n.words import player, reason
from controller.referee import commentary, fields
from controller.referee.agreement import Agreement
from controller.referee.commands import RemoteRequested, countable
from controller.referee.invitation import DAY, Invitation
from controller.referee.proxy import ProxySeat
from controller.referee.verdict import Declined, Draft
from engine import Game, Move, parse_move
from engine.colour import Colour


class Board(Protocol):
    """What the remote seat reads of the referee's board to judge a request."""

    @property
    def game(self) -> Game: ...

    @property
    def offset(self) -> int: ...

    def physical(self, move: Move) -> Text: ...


class RemoteSeat(ProxySeat):
    """The remote player's side of one table, game after game."""

    EARLY = "remote-choosing"
    OTHER = "not-remote-move"

    def __init__(self) -> None:
        super().__init__()
        self.next_colour: Colour | None = None  # invite for this colour in each new game
        self.due = False  # this game wants an invitation made (the daemon makes it)
        self.invitation: Invitation | None = None
        self.for_next = False  # made between games: it is for the next one
        # the invitation of the game before, finished through it, whose link
        # follows into this game's (the daemon makes this one its sequel)
        self.sequel: Invitation | None = None
        self.last_seq = 0  # the last request taken; any at or below it is a replay
        self.used = False  # a request was taken: it no longer expires
        self.starts = 0  # daemon starts so far: the board's message numbers begin above them
        self.agreement = Agreement()  # a takeback both sides must agree to

    def colour(self) -> Colour | None:
        return self.invitation.colour if self.invitation is not None else None

    def holds(self, colour: Colour) -> bool:
        """Whether a remote player has ``colour``, in this game or the next."""
        return colour in (self.colour(), self.next_colour, self.wanted())

    def wanted(self) -> Colour | None:
        """The colour this game wants a friend invited for (the daemon makes
        the invitation: the sequel of ``sequel``, when there is one), or None."""
        if not self.due:
            return None
        return self.next_colour or (self.sequel.colour if self.sequel is not None else None)

    def continued(self) -> bool:
        """Whether this game's invitation is the sequel of the last game's:
        the link sent then leads here too."""
        after, invitation = self.sequel, self.invitation
        return (
            after is not None
            and invitation is not None
            and (invitation == after.sequel(invitation.made_at))
        )

    def expires(self) -> float | None:
        """When the invitation expires (wall clock), unless a request uses it first."""
        if self.invitation is None or self.used:
            return None
        return self.invitation.made_at + DAY

    def next_game(self, finished: bool) -> None:
        """A new game begins: it revokes the invitation, unless it was made
        for it. When the game before was ``finished`` through this grid's
        invitation, its link plays on into this one, for the same colour
        (``sequel``); a game abandoned midway, or an unused link, is revoked
        for good."""
        self.agreement.settled()
        if self.invitation is not None and self.for_next:
            self.for_next = False
            return
        played = self.invitation
        follows = finished and self.used and played is not None
        self.sequel = played if follows and self.next_colour in (None, self.colour()) else None
        self.invitation = None
        self.move = None
        self.due = self.next_colour is not None or self.sequel is not None

    # -- the journal's snapshot -------------------------------------------------------

    def data(self) -> dict[str, Any]:
        invitation = self.invitation
        return {
            "next": self.next_colour.value if self.next_colour else None,
            "due": self.due,
            "invitation": invitation.data() if invitation is not None else None,
            "sequel": self.sequel.data() if self.sequel is not None else None,
            "for_next": self.for_next,
            "last_seq": self.last_seq,
            "used": self.used,
            "move": str(self.move) if self.move is not None else None,
            "starts": self.starts,
            "takeback": self.agreement.data(),
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Take the state :meth:`data` wrote; ``ValueError`` (``KeyError``,
        ``TypeError``) for anything else."""
        fields.only(data, self.data(), "the remote seat")
        self.next_colour = Colour(data["next"]) if data["next"] is not None else None
        self.due = _flag(data, "due")
        self.invitation = (
            Invitation.from_data(data["invitation"]) if data["invitation"] is not None else None
        )
        sequel = data.get("sequel")  # journals from before sequels have none
        self.sequel = Invitation.from_data(sequel) if sequel is not None else None
        self.for_next = _flag(data, "for_next")
        self.last_seq = _count(data, "last_seq")
        self.used = _flag(data, "used")
        self.move = parse_move(str(data["move"])) if data["move"] is not None else None
        self.starts = _count(data, "starts")
        if "takeback" in data:  # journals from before takebacks have none
            self.agreement.restore(data["takeback"])

    # -- sentences --------------------------------------------------------------------

    def early(self, move: Text) -> Text:
        return _t(
            "The {move} came before your friend chose a move; wait for it to light up.", move=move
        )

    def other(self, chosen: Move, chosen_column: int, move: Move, column: int) -> Text:
        return _t(
            "Your friend plays a {chosen}, not a {move}.",
            chosen=commentary.physical(chosen, chosen_column),
            move=commentary.physical(move, column),
        )

    def choosing(self, colour: Colour) -> Text:
        return _t("Waiting for your friend ({colour}) to choose a move.", colour=player(colour))

    def showing(self, move: Text) -> Text:
        return _t("Your friend's move: {move}; make it on the grid.", move=move)

    def no_hint(self) -> Text:
        return _t("No hint: it is your friend's move.")

    # -- the referee's transitions (it hands over what they need to know) ---------------

    def choose(self, colour: Colour | None, out: Draft) -> bool:
        """A friend is to be invited for ``colour`` in each new game (``None``:
        no more); in this one too when it has no invitation yet. True when a
        friend now takes ``colour`` in new games: the computer gives it up."""
        wanted = colour is not None and self.invitation is None and not self.due
        if colour == self.next_colour and not wanted:
            return False
        out.changed = True
        self.next_colour = colour
        if colour is None:
            self.sequel = None  # nor does the last game's link play on
            self.due = False
            out.log.append(_t("New games no longer invite a friend."))
            return False
        self.due = self.due or self.invitation is None
        invites = _t("Each new game invites a friend to play {colour}.", colour=player(colour))
        out.log.append(invites)
        return True

    def invited(
        self, invitation: Invitation, between_games: bool, out: Draft, joined: bool = False
    ) -> None:
        """This game's invitation (a new link: the last one reaches nothing
        now); made ``between_games``, it is for the next one. ``joined``:
        another grid's link, which this grid joined."""
        out.changed = True
        self.invitation = invitation
        self.for_next = between_games
        self.due = False
        self.last_seq = 0
        self.used = False
        self.move = None
        self.agreement = Agreement()  # a new link: the other side numbers its words anew
        colour = player(invitation.colour)
        if joined:
            sentence = _t(
                "Joined the other grid's game: {colour}'s moves come from there.", colour=colour
            )
        elif self.continued():
            sentence = _t(
                "The friend who played {colour} plays it again, from the same link; revoke the "
                "invitation to play without them.",
                colour=colour,
            )
        else:
            sentence = _t("A friend is invited to play {colour}.", colour=colour)
        out.log.append(sentence)

    def computer_left(self, colour: Colour) -> Text:
        """What the log says when an invitation takes the computer's colour."""
        return _t("The computer no longer plays {colour}.", colour=player(colour))

    def revoked(self, expired: bool, out: Draft, joined: bool = False) -> None:
        """The invitation ends: revoked by the owner (no more in new games either),
        or expired unused (new games still invite, each with a link of its own).
        ``joined``: the other grid's link, spent (its game is over, or that
        grid began another)."""
        invitation = self.invitation
        if invitation is None and not self.due and (expired or self.next_colour is None):
            return
        out.changed = True
        self.invitation = None
        self.sequel = None  # a revoked or expired link leads nowhere, nor to the next game
        self.due = False
        self.move = None
        if not expired:
            self.next_colour = None
        if invitation is None:
            out.log.append(_t("New games no longer invite a friend."))
        elif joined:
            out.log.append(link_spent())
        elif expired:
            out.log.append(
                _t(
                    "The invitation to play {colour} expired unused after a day.",
                    colour=player(invitation.colour),
                )
            )
        else:
            out.log.append(
                _t(
                    "The invitation to play {colour} was revoked; its link reaches nothing now.",
                    colour=player(invitation.colour),
                )
            )

    def requested(self, request: RemoteRequested, board: Board, out: Draft) -> None:
        """A signed request from the remote player: the move a person is to make
        for it, or the reason it is not taken (``out.declined``)."""
        if self.invitation is None or request.seq <= self.last_seq:
            return  # the daemon's side of the link lets neither through
        out.changed = True
        self.last_seq = request.seq
        self.used = True
        declined = self._declined(request, board)
        if declined is not None:
            out.declined = declined
            return
        self.move = request.move
        out.log.append(
            _t(
                "Your friend ({colour}) plays a {move}.",
                colour=player(self.invitation.colour),
                move=board.physical(request.move),
            )
        )

    def _declined(self, request: RemoteRequested, board: Board) -> Declined | None:
        """Why a request is not taken, or ``None`` when it is."""
        game = board.game
        if game.is_over():
            return Declined("over", _t("The game is over."))
        if request.ply != len(game.moves):
            return Declined(
                "stale",
                _t(
                    "The board has moved on since that position (move {ply}, now {now}); "
                    "look again.",
                    ply=request.ply,
                    now=len(game.moves),
                ),
            )
        mover = game.to_move
        if mover is not self.colour():
            assert mover is not None
            return Declined("turn", _t("It is {colour}'s turn, not yours.", colour=player(mover)))
        if self.move is not None:
            return Declined(
                "waiting",
                _t(
                    "Your {move} is already waiting to be made on the grid.",
                    move=board.physical(self.move),
                ),
            )
        why = game.why_illegal(request.move, shift=board.offset)
        if why is not None:
            return Declined("illegal", reason(why))
        return None


def _flag(data: dict[str, Any], key: str) -> bool:
    value = data[key]
    if not isinstance(value, bool):
        raise ValueError(f'"{key}" is not true or false')
    return value


def _count(data: dict[str, Any], key: str) -> int:
    value = data[key]
    if not countable(value):
        raise ValueError(f'"{key}" is not a count')
    return value


def link_spent() -> Text:
    """What a grid that joined another's game says once that link is spent."""
    return _t(
        "The other grid's link is spent: its game is over or that grid began another. "
        "To play on together, join the link of its next game."
    )
