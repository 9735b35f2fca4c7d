"""The daemon's side of a remote seat: it makes the invitations, takes the
remote player's requests in and publishes the board.

The broker's network thread only checks and enqueues: a message larger than
:data:`~controller.remote.message.REMOTE_LIMIT`, unsigned, mis-signed, for
another game or numbered at or below one already taken never reaches the
queue, and the queue is bounded, so no flood can stall the loop or crowd out
the remote player's own requests. The loop (:class:`controller.daemon.loop.Daemon`)
takes the checked requests through :meth:`RemoteHost.inputs`, feeds them to
the referee like the page's commands (journalled before anything is shown or
answered), and tells the host what came of them. The board publishes each
accepted move after it is journalled, a reply to each request, and its full
state as a retained message, so a page that opens late or reconnects has
everything.
"""

from __future__ import annotations

import itertools
import logging
import queue
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from controller.i18n.text import _t
from controller.i18n.words import reason
from controller.referee.commands import (
    RemoteCommand,
    RemoteInvited,
    RemoteRequested,
    RemoteRevoked,
    TakebackHeard,
    countable,
)
from controller.referee.core import Referee
from controller.referee.invitation import GAME_BYTES, KEY_BYTES, Invitation, b64url
from controller.referee.verdict import Declined, Verdict
from controller.remote.answers import Answers
from controller.remote.connection import Connection
from controller.remote.dropped import Dropped
from controller.remote.echo import Echo
from controller.remote.last_word import LastWord
from controller.remote.link import Link, page_address
from controller.remote.message import (
    BOARD,
    REMOTE,
    Message,
    Refused,
    body,
    epoch_of,
    plain,
    record_hash,
    seal,
    topics,
    unseal,
)
from controller.remote.presence import Presence
from controller.remote.rate import Rate
from controller.remote.settings import RemoteSettings
from engine import parse_move
from engine.colour import Colour

log = logging.getLogger("popref")

INBOX = 64  # checked requests waiting for the loop; more are dropped (and counted)
HASHES = 16  # the other grid's record hashes kept, for the moves not yet published here
# The requests and takeback words a side may have journalled (each synced to
# disk): this many a second, after a burst of BURST. A page asks on a tap and
# again each second until answered; a flood beyond is dropped and counted.
RATE = 2.0
BURST = 8
JOURNALLED = ("request", "takeback")
# A page says ``here`` once a connection; each one taken may change what the
# owner's page shows (a state published), so a flood of them is dropped too.
HERE_RATE = 1.0
HERE_BURST = 8
EPOCH = 2**32  # the board numbers its messages from (daemon starts) * EPOCH


class _Gate:
    """What the network thread checks arriving messages against: one
    invitation, and the highest number let through of each kind (its own,
    from then on). Kinds count apart because the friend's order is not kept
    across a reconnection: its MQTT library publishes the hello that greets
    a new connection before the request it queued while the old one was
    down, and a request must not become a replay by a hello overtaking it."""

    __slots__ = ("game", "high", "key", "topic")

    def __init__(self, invitation: Invitation, high: int) -> None:
        self.game = invitation.game
        self.key = invitation.key
        self.topic = topics(invitation.game).remote
        self.high: Counter[str] = Counter({"request": high, "hello": high})


class RemoteHost:
    """The daemon's end of the broker for one table, invitation after
    invitation. ``wall`` is the wall clock (expiry), ``random_bytes`` the
    secrets' source."""

    def __init__(
        self,
        settings: RemoteSettings,
        *,
        wall: Callable[[], float] = time.time,
        random_bytes: Callable[[int], bytes] = secrets.token_bytes,
        web: tuple[str, int] | None = None,
        keep: Path | None = None,
    ) -> None:
        self.settings = settings
        self.web = web  # popref's own web server (host, port), which serves the page
        self._wall = wall
        self._random = random_bytes
        self._inbox: queue.Queue[Message] = queue.Queue(INBOX)
        self._gate: _Gate | None = None
        self._wake: Callable[[], None] = lambda: None
        self._dropped = Dropped()
        # next() is atomic: the will is sealed on the network thread
        self._counter = itertools.count(1)
        self._starts = 0  # the daemon's starts, from the referee's remote seat
        self._state: dict[str, Any] | None = None  # the last state the daemon published
        self._answers = Answers()  # the replies to this invitation's last requests
        self._now = 0.0  # the loop's clock, as of its last inputs()
        self._resend = threading.Event()  # (re)connected, or a hello: send the state again
        # the finished game's last word, kept in ``keep`` (the state directory)
        self._last_word = LastWord(keep)
        self._continued = False  # this game's invitation is the last game's sequel
        # a signed message came for this invitation since this daemon started:
        # the link was opened (set on the network thread, read by the loop)
        self._heard = False
        self._invitation: Invitation | None = None  # the one the gate and topics are for
        self._rules = "classic"
        # the game's house rules, which a link carries for a grid that joins
        # (the game's own: a configuration changed since waits for the next game)
        self._repetition: int | None = None
        self._both_lines: Literal["popper", "opponent"] = "popper"
        self._mover: Colour | None = None  # who is to move, as of the last input
        self._expires: float | None = None  # when the invitation expires (wall clock)
        # told each invitation's link as it is made (and at start-up);
        # without it, the log says the link (popref run: journalctl)
        self.on_invited: Callable[[str], None] | None = None
        # told, on the network thread, when a request waits for the loop or
        # the link comes or goes: a terminal waiting for a typed line wakes
        # for it (the daemon's own loop wakes through ``open``'s ``wake``)
        self.on_arrival: Callable[[], None] | None = None
        # the other side's presence, when it says it (a linked grid: docs/remote.md)
        self.presence = Presence()
        # whether a friend's page holding the link is open, as it says (``here``):
        # the owner's to know, never a fault of the link
        self.friend_page = Presence()
        # the record hash a linked grid had after each of its moves, by epoch
        # (takebacks so far) and ply
        self._their_hash: dict[tuple[int, int], str] = {}
        self._rate = Rate(RATE, BURST)  # of the requests that reach the journal
        self._here_rate = Rate(HERE_RATE, HERE_BURST)
        self.diverged: int | None = None  # the first ply where the two journals differ
        self.connection = Connection(
            settings.broker,
            "popref-board",
            self._arrived,
            self._resend.set,
            settings.account,
            will=self._will,
        )
        self._echo = Echo(self.connection)

    # -- the loop's side -----------------------------------------------------------------

    def open(self, wake: Callable[[], None], referee: Referee) -> None:
        """Connect (on the network thread) and follow the referee's invitation."""
        self._wake = wake
        self.connection.on_change = self._changed
        self._starts = referee.remote.starts
        self._played(referee)
        self._last_word.recall(referee)
        self.fed(Verdict(), referee)

    def _changed(self) -> None:
        """On the network thread: the broker's connection came or went, or the
        other side said it did; the link's state may differ, so the loop and
        a terminal waiting for a typed line both wake to show it."""
        self._wake()
        if self.on_arrival is not None:
            self.on_arrival()

    def inputs(self, referee: Referee, now: float) -> Iterator[RemoteCommand]:
        """The inputs due from the remote side, one at a time: the loop feeds
        each before the next is made, so each sees the referee as it is."""
        self._now = now
        self._echo.step(now, None if self._gate is None else self._gate.topic)
        seat = referee.remote
        wanted = seat.wanted()
        if wanted is not None:
            yield RemoteInvited(self.invitation(wanted, after=seat.sequel))
        expires = seat.expires()
        if expires is not None and self._wall() >= expires:
            yield RemoteRevoked(expired=True)
        if self._resend.is_set():
            self._resend.clear()
            self._publish_state()
            self._say_present()
            if self._last_word.said is not None:
                old, ended = self._last_word.said
                self._seal(old, topics(old.game).state, "state", ended, retain=True)
        for _ in range(INBOX):
            try:
                message = self._inbox.get_nowait()
            except queue.Empty:
                break
            command = self._request(message, referee)
            if command is not None:
                yield command
        said = self._dropped.report(now)
        if said is not None:
            log.info("%s", said)

    def answered(self, command: RemoteCommand, verdict: Verdict) -> None:
        """What the referee made of ``command``, once it is journalled."""
        if isinstance(command, RemoteRequested):
            self._reply(command.seq, verdict.declined)

    def fed(self, verdict: Verdict, referee: Referee) -> None:
        """After every input the daemon journalled: publish an accepted move,
        and follow a new or ended invitation."""
        self._follow(referee)
        move = verdict.accepted
        if move is not None and self._invitation is not None:
            by = self._mover.value if self._mover is not None else None
            ply, epoch = len(referee.game.moves), referee.remote.agreement.epoch
            hashed = record_hash(referee.game)
            played = {"ply": ply, "move": str(move), "by": by, "hash": hashed, "epoch": epoch}
            self._send(topics(self._invitation.game).board, "move", played)
            self._check((epoch, ply), hashed)
        self._mover = referee.game.to_move
        self._played(referee)
        self._expires = referee.remote.expires()

    def _played(self, referee: Referee) -> None:
        """The rules a link names: the game's, its house rules included."""
        rules = referee.game.rules
        self._rules = rules.name
        self._repetition, self._both_lines = rules.repetition, rules.both_lines

    def publish_state(self, state: dict[str, Any], referee: Referee) -> None:
        """The daemon's state changed: the retained state, for the remote."""
        self._state = {
            **state,
            "ply": len(referee.game.moves),
            # what the remote page offers to tap: the engine's moves for the
            # player to move, and the physical grid's first column in notation
            "legal": [str(move) for move in referee.game.legal_moves()],
            "offset": referee.offset,
            "remote_seq": referee.remote.last_seq,
            "expires": referee.remote.expires(),
            "invitation": "open",
        }
        self._publish_state()
        if self._invitation is not None:
            self._last_word.finished(self._invitation, self._state, referee)

    def link_state(self) -> str:
        """``up`` while the broker is reached and the other side, if it ever
        said it is there (a linked grid does; a friend's page does not), is."""
        connected = self.connection.connected.is_set() or self.connection.renewing
        there = connected and self.presence.up is not False
        return "up" if there else "down"

    def _check(self, at: tuple[int, int], hashed: str) -> None:
        """Both journals must hold the same game after every move (``at``:
        the epoch and the ply)."""
        theirs = self._their_hash.pop(at, None)
        ply = at[1]
        if theirs is not None and theirs != hashed and self.diverged is None:
            self.diverged = ply
            log.error("The other grid's game differs from this one's after move %d.", ply)

    def deadline(self, now: float) -> float | None:
        """When the invitation expires or the broker's silence is next
        looked at (:class:`~controller.remote.echo.Echo`), on the loop's clock ``now``."""
        times = [] if self._expires is None else [now + max(0.0, self._expires - self._wall())]
        listening = self._echo.deadline()
        if listening is not None:
            times.append(listening)
        return min(times, default=None)

    def close(self) -> None:
        self.connection.close()

    # -- invitations ---------------------------------------------------------------------

    def invitation(self, colour: Colour, after: Invitation | None = None) -> Invitation:
        """A new invitation for ``colour``: a random game id and secret, or
        the sequel of ``after`` (the finished game's, for the same colour),
        which its link follows."""
        if after is not None and after.colour is colour:
            return after.sequel(made_at=self._wall())
        game = b64url(self._random(GAME_BYTES))
        return Invitation(game, self._random(KEY_BYTES), colour, made_at=self._wall())

    def serving(self, address: tuple[str, int]) -> None:
        """popref's web server listens on ``address``: links point at its page
        (unless ``[remote] page`` names another)."""
        self.web = address

    @property
    def page(self) -> str:
        settings = self.settings
        return page_address(settings.page, self.web, settings.web_broker, socket.gethostname())

    def current_link(self) -> str | None:
        """The link of the invitation in this game, if there is one."""
        if self._invitation is None:
            return None
        return self.link(self._invitation, self._rules)

    def continued(self) -> bool:
        """Whether this game's invitation is the sequel of the last game's:
        the link sent then leads here too."""
        return self._continued

    def opened(self, referee: Referee) -> bool:
        """Whether the invitation's link was opened: its holder said hello (a
        page, ``popref play`` or a grid, on connecting) since this daemon
        started, or a request of theirs was taken (journalled: it outlives a
        restart)."""
        return self._heard or referee.remote.used

    def link(self, invitation: Invitation, rules: str) -> str:
        settings = self.settings
        return Link.of(
            invitation,
            self.page,
            rules,
            broker=settings.broker.url,
            web_broker=settings.web_broker,
            user=settings.guest.user,
            password=settings.guest.password,
            repetition=self._repetition,
            both_lines=self._both_lines,
        ).url()

    def _follow(self, referee: Referee) -> None:
        """Move the gate and topics to the referee's invitation when it changed."""
        invitation = referee.remote.invitation
        if invitation == self._invitation:
            return
        old = self._invitation
        if old is not None:
            self._ended(old, referee)
        self._invitation = invitation
        self._continued = referee.remote.continued()
        self._answers = Answers()
        self._heard = False
        # whoever said they were there was there for the old invitation: a grid
        # joins the new one with its new link (until then no grid is linked)
        self.presence = Presence()
        self.friend_page = Presence()
        self._gate = _Gate(invitation, referee.remote.last_seq) if invitation else None
        if invitation is None:
            return
        self._played(referee)
        self.connection.subscribe([topics(invitation.game).remote])
        if not self.connection.started:
            self.connection.start()  # its will names this invitation's topics
        else:
            self.connection.renew()  # the will up now names the old one's
        link = self.link(invitation, self._rules)
        if self.on_invited is not None:
            self.on_invited(link)  # it says the link (popref simulate prints it once)
        else:
            log.info("Invitation to play %s: %s", invitation.colour.title, link)

    def _ended(self, invitation: Invitation, referee: Referee) -> None:
        """The last word on an invitation's own topics (:class:`LastWord`),
        signed with its secret, so only the link's holder follows it."""
        names = topics(invitation.game)
        self.connection.unsubscribe([names.remote])
        word = self._last_word.ended(invitation, self._state, referee)
        if word is not None:
            self._seal(invitation, names.state, "state", word, retain=True)

    # -- messages out ----------------------------------------------------------------------

    def _publish_state(self) -> None:
        if self._invitation is not None and self._state is not None:
            you = {"you": self._invitation.colour.value}
            names = topics(self._invitation.game)
            self._seal(self._invitation, names.state, "state", {**self._state, **you}, retain=True)

    def _say_present(self) -> None:
        if self._invitation is not None and self.connection.connected.is_set():
            present = {"up": True, "conn": self.connection.conn}
            board = topics(self._invitation.game).board
            self._seal(self._invitation, board, "presence", present, retain=True)

    def _will(self, conn: str) -> tuple[str, bytes] | None:
        invitation = self._invitation
        if invitation is None:
            return None
        seq = self._starts * EPOCH + next(self._counter)
        gone = body({"up": False, "conn": conn})
        payload = seal(invitation.key, Message(invitation.game, BOARD, seq, "presence", gone))
        return topics(invitation.game).board, payload

    def _reply(self, seq: int, declined: Declined | None) -> None:
        answer: dict[str, Any] = {"request_seq": seq, "ok": declined is None}
        if declined is not None:
            answer |= {
                "code": declined.code,
                "reason": str(declined.reason),
                "reason_text": declined.reason.data(),
            }
        if self._invitation is not None:
            self._send(topics(self._invitation.game).board, "reply", answer)
        self._answers.keep(seq, answer, self._now)

    def _repeat(self, seq: int) -> None:
        """Request ``seq`` came again: its reply again (:class:`Answers`)."""
        answer = self._answers.due(seq, self._now)
        if answer is not None and self._invitation is not None:
            self._send(topics(self._invitation.game).board, "reply", answer)

    def _send(self, topic: str, kind: str, value: dict[str, Any]) -> None:
        assert self._invitation is not None
        self._seal(self._invitation, topic, kind, value, retain=False)

    def _seal(
        self, invitation: Invitation, topic: str, kind: str, value: dict[str, Any], retain: bool
    ) -> None:
        seq = self._starts * EPOCH + next(self._counter)
        message = Message(invitation.game, BOARD, seq, kind, body(plain(value)))
        self.connection.publish(topic, seal(invitation.key, message), retain=retain)

    # -- messages in -------------------------------------------------------------------------

    def _arrived(self, topic: str, payload: bytes) -> None:
        """On the network thread: check, enqueue, wake the loop. Nothing
        unsigned, replayed or for another game gets further."""
        self._echo.heard()  # the broker passes messages: whatever they are
        gate = self._gate
        if gate is None or topic != gate.topic:
            self._drop("foreign")
            return
        if not payload:  # the board's own echo
            return
        try:
            message = unseal(gate.key, gate.game, REMOTE, payload)
        except Refused as refused:
            self._drop(refused.kind)
            return
        if not self._heard:
            self._heard = True  # signed with the link's secret: its holder opened it
            self._changed()
        if message.kind == "here":
            if not self._here_rate.take(self._now):
                self._drop("flood")
            elif self.friend_page.take(message.seq, message.fields()):
                self._changed()
            return
        if message.kind == "presence":
            # not ordered by number (a will is numbered when it is left): Presence
            fields = message.fields()
            if self.presence.take(message.seq, fields):
                if fields["up"] is False:
                    # answered with this side's own, which the grid answers with its
                    # own: a will replayed while the grid is there heals
                    self._resend.set()
                self._changed()
            return
        repeated = message.seq <= gate.high[message.kind]
        if repeated and not self._answers.again(message.seq, message.body):
            self._drop("replayed")
            return
        # each request and takeback word is journalled and synced: past the
        # rate they are dropped before their number counts as seen, so the
        # sender's next copy gets in (on the loop's clock as of its last step)
        if not repeated and message.kind in JOURNALLED and not self._rate.take(self._now):
            self._drop("flood")
            return
        try:
            self._inbox.put_nowait(message)
        except queue.Full:
            self._drop("flood")
            return
        if not repeated:
            gate.high[message.kind] = message.seq
        self._wake()
        if self.on_arrival is not None:
            self.on_arrival()

    def _request(self, message: Message, referee: Referee) -> RemoteCommand | None:
        """A request for the referee from a checked message, or ``None``
        (a hello is answered with the state; a move that is not notation
        with a reply)."""
        invitation = referee.remote.invitation
        if invitation is None or message.game != invitation.game:
            self._drop("foreign")  # an invitation that ended since it was let through
            return None
        if message.kind == "request" and self._answers.again(message.seq, message.body):
            self._repeat(message.seq)
            return None
        if message.seq <= referee.remote.last_seq:
            self._drop("replayed")
            return None
        if message.kind == "hello":
            self._publish_state()
            self._say_present()
            return None
        fields = message.fields()
        if message.kind == "takeback":
            word = _word(message, fields)
            if word is None:
                self._drop("malformed")
            return word
        ply, move = fields.get("ply"), fields.get("move")
        if not countable(ply) or not isinstance(move, str):
            self._drop("malformed")
            return None
        self._answers.asking(message.seq, message.body)  # whatever the answer, it is kept
        epoch = epoch_of(fields)
        if epoch != referee.remote.agreement.epoch:
            # asked before a takeback (or after one this board has not made): its
            # move number names another move here
            stale = _t("A move was taken back since that position; look again.")
            self._reply(message.seq, Declined("stale", stale))
            return None
        try:
            parsed = parse_move(move[:10])
        except ValueError as error:
            self._reply(message.seq, Declined("notation", reason(str(error))))
            return None
        if isinstance(fields.get("hash"), str):  # a linked grid's, after its move
            self._their_hash[epoch, ply + 1] = fields["hash"][:64]
            while len(self._their_hash) > HASHES:  # the oldest first: dicts keep their order
                del self._their_hash[next(iter(self._their_hash))]
        return RemoteRequested(message.seq, ply, parsed)

    def _drop(self, why: str) -> None:
        self._dropped.add(why)


def _word(message: Message, fields: dict[str, Any]) -> TakebackHeard | None:
    """A linked grid's word on a takeback (docs/remote.md), or ``None`` when
    the body is not one."""
    epoch, ply, agree = fields.get("epoch"), fields.get("ply"), fields.get("agree")
    if not (countable(epoch) and countable(ply) and isinstance(agree, bool)):
        return None
    return TakebackHeard(message.seq, epoch, ply, agree)
