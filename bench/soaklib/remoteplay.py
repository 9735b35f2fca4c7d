"""The friend's turns on a soak table with a remote seat (docs/soak.md,
"A friend on the broker").

On the friend's turn the friend asks for a move through the broker, the
board lights it, and a person at the grid makes it, reading the lights as
for every other instruction; sometimes the person moves before the friend
chose, or makes another move than the one lit (both mistakes, repaired as
the board asks). The friend and the network misbehave too: a request that is
not legal or is stale (refused with the reason), one the network duplicates
or delivers late, the friend's connection dropped and made again, the broker
restarted (before the request, while it travels, or while the move waits).

The functions take the table as ``self``, like ``faultplay.py``: they are the
table's behaviour, kept in their own file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.soaklib.expect import Expect
from bench.soaklib.friend import Answer
from bench.soaklib.lights import Reading
from controller.i18n.words import reason
from controller.referee.remote_seat import RemoteSeat
from controller.simulator.simulation import Outcome
from engine import Move, MoveKind, parse_move

if TYPE_CHECKING:
    from bench.soaklib.tableface import TableFace

# on the friend's turn, one of these with the table's friend_fault_rate
FRIEND_FAULTS = (
    "remote-illegal",
    "remote-stale",
    "remote-duplicate",
    "remote-late",
    "friend-reconnect",
    "broker-restart",
)
# where in the friend's turn a reconnection or a broker restart lands: before
# the request, right after it was sent, or while the move waits to be made
MOMENTS = ("before", "in-flight", "waiting")


@dataclass
class _Turn:
    """One friend's turn: its fault and when it lands, whether the fault
    showed as it must so far, and a copy of its request to deliver late."""

    fault: str | None
    moment: str | None = None
    detected: bool = True
    late: bytes | None = None


def friend_moves(self: TableFace) -> bool:
    """Whether the friend is the one to move now."""
    return self.friend is not None and self.replica.to_move is self.friend.colour


def friend_reading(self: TableFace, reading: Reading) -> Reading:
    """A person knows which colour the friend plays: one column blinking
    beside the friend's turn light, while the grid holds exactly the game
    as played, is the friend's move to make (``friend-drop``,
    ``friend-pop``), not a repair."""
    friend = self.friend
    if (
        friend is None
        or reading.kind not in ("drop", "pop")
        or reading.colour is not friend.colour
        or not friend_moves(self)
        or not self.grid_is_game()
    ):
        return reading
    return Reading(f"friend-{reading.kind}", reading.columns, reading.colour)


def friend_agrees(self: TableFace, what: str) -> bool:
    """The friend's view (its last state from the broker) agrees with the
    daemon's; a new game's new link is followed first."""
    friend = self.friend
    assert friend is not None
    wrong = friend.follow(self.sim)
    if wrong is not None:
        self.tally.fail("undetected", f"{what}: {wrong}")
    differs = friend.disagreement(self.sim)
    if differs:
        self.diverged(what, "the friend's view differs: " + "; ".join(differs[:4]))
    return True


def friend_turn(self: TableFace) -> None:
    """The friend's turn, its mistakes and faults as the table's dice fall."""
    early = self.rng.random() < self.setup.mistake_rate / 2
    other = self.rng.random() < self.setup.mistake_rate / 2
    fault = moment = None
    if self.rng.random() < self.setup.friend_fault_rate:
        fault = self.rng.choice(FRIEND_FAULTS)
        if fault in ("friend-reconnect", "broker-restart"):
            moment = self.rng.choice(MOMENTS)
    play_friend_turn(self, fault, moment, early=early, other=other)


def play_friend_turn(
    self: TableFace,
    fault: str | None,
    moment: str | None = None,
    *,
    early: bool = False,
    other: bool = False,
) -> None:
    """The friend's whole turn: its request with ``fault`` (a reconnection
    or a broker restart at ``moment``), unless a move it asked for before a
    restart waits; a person moving first (``early``) or making another move
    than the friend's (``other``); then the friend's move made as lit, and
    the checks."""
    friend = self.friend
    assert friend is not None
    ply = len(self.replica.moves)
    friend_agrees(self, "the friend's turn")
    waiting = friend.state.get("remote")
    asked = friend.asked if friend.asked is not None and friend.asked[0] == ply else None
    if waiting is None and asked is None:
        turn = _Turn(fault, moment)
        if early:
            _too_early(self)
        move = self.rng.choice(list(self.replica.legal_moves()))
        _request(self, move, turn)
    else:
        # asked before the daemon restarted: that very move waits (the
        # journal kept it), or it died with the daemon and is asked again
        turn = _Turn(None)
        move = parse_move(waiting or (asked or (ply, ""))[1])
        if asked is None or asked[1] != str(move):
            self.diverged("resume", f"the board waits for {waiting}; the friend asked {asked}")
        if waiting is None:
            _request(self, move, turn)
    reading = _friends_move_lit(self, move)
    if other and _another_move(self, move):
        reading = _friends_move_lit(self, move)
    good = _make(self, move, reading)
    if turn.late is not None:
        _late_copy(self, turn.late, ply)
    if turn.fault in ("friend-reconnect", "broker-restart", "remote-duplicate"):
        # the move counted once and the views agreed after every step
        self.tally.inject(turn.fault, detected=turn.detected and good, repaired=good)


def _request(self: TableFace, move: Move, turn: _Turn) -> None:
    """Ask for ``move`` through the broker, with the turn's fault."""
    friend = self.friend
    assert friend is not None
    ply = len(self.replica.moves)
    fault, moment = turn.fault, turn.moment
    if fault in ("remote-illegal", "remote-stale"):
        refused(self, fault)

    def disturb() -> None:
        assert friend is not None and fault is not None
        if fault == "broker-restart":
            friend.broker.restart()
        else:
            friend.connect()

    if moment == "before":
        disturb()
        friend_agrees(self, f"{fault} before the request")
    answer = friend.ask(
        self.sim, str(move), ply, first_sent=disturb if moment == "in-flight" else None
    )
    taken = _taken(self, answer, move)
    friend.asked = (ply, str(move))
    if fault == "remote-duplicate":
        turn.detected = _duplicated(self, taken, move, ply)
    if moment == "waiting":
        disturb()
    if fault == "remote-late":
        turn.late = friend.sealed(str(move), ply)


def _taken(self: TableFace, answer: Answer | None, move: Move) -> Answer:
    """The board must take the friend's legal request, exactly once."""
    if answer is None:
        self.tally.fail("lost", f"{self.setup.preset}: the friend's {move} was never answered")
        self.diverged(str(move), "a request lost")
    elif not answer.taken:
        self.tally.fail("false_alarms", f"the friend's legal {move} was refused: {answer.reply}")
        self.diverged(str(move), "a legal request refused")
    assert answer is not None
    return answer


def refused(self: TableFace, fault: str) -> None:
    """A request the board must refuse, with its reason: a move that is not
    legal (the engine's reason), one for a position gone by, or one on the
    other player's turn."""
    friend = self.friend
    assert friend is not None
    replica = self.replica
    ply = len(replica.moves)
    code, expected, at = fault.removeprefix("remote-"), None, ply
    if fault == "remote-illegal":
        columns = range(1, replica.rules.width + 2)  # one past the edge too
        wrong = [m for c in columns for m in (Move.drop(c), Move.pop(c)) if not replica.is_legal(m)]
        move = self.rng.choice(wrong)
        why = replica.why_illegal(move, shift=self.offset)
        expected = str(reason(why)) if why else None
    else:
        # stale: a position gone by (or one not reached yet); turn: the
        # people's turn, the friend asks anyway
        move = self.rng.choice(list(replica.legal_moves()))
        if fault == "remote-stale":
            at = self.rng.choice(range(ply)) if ply else ply + 1
    answer = friend.ask(self.sim, str(move), at, reply=True)
    reply = answer.reply if answer is not None else None
    got = reply or {}
    detected = (
        got.get("ok") is False
        and got.get("code") == code
        and bool(got.get("reason"))
        and bool(got.get("reason_text"))
        and (expected is None or got.get("reason") == expected)
    )
    if answer is None:
        self.tally.fail("lost", f"{fault} {move} at {at}: never answered")
    elif not detected:
        self.tally.fail("undetected", f"{fault} {move} at {at}: answered {reply}")
    if reply is not None:
        self.tally.refused[str(got.get("code"))] += not got.get("ok")
    self.tally.inject(fault, detected=detected, repaired=detected and friend_agrees(self, fault))


def _duplicated(self: TableFace, answer: Answer, move: Move, ply: int) -> bool:
    """The network delivers the taken request twice (the same bytes: a
    replay, ignored without a reply), and the friend, unsure, asks again
    with a new number (``waiting``: its move already waits); whether the
    board did both as it must."""
    friend = self.friend
    assert friend is not None
    first = answer.seqs[0]
    friend.publish(friend.sealed(str(move), ply, first))
    again = friend.ask(self.sim, str(move), ply, reply=True)
    reply = (again.reply if again is not None else None) or {}
    waiting = reply.get("code") == "waiting" and bool(reply.get("reason"))
    if not waiting:
        self.tally.fail("undetected", f"the friend's second request for {move}: {reply}")
    self.tally.refused[str(reply.get("code"))] += not reply.get("ok", True)
    once = friend.replies_to[first] <= 1
    if not once:
        self.tally.fail("divergences", f"the copy of request {first} was answered again")
    return waiting and once


def _late_copy(self: TableFace, late: bytes, ply: int) -> None:
    """A copy of the friend's request that the network delivers after the
    move was made: refused as stale (or over), the game unchanged."""
    friend = self.friend
    assert friend is not None
    seq = friend.publish(late)
    came = friend.pump(self.sim, lambda: seq in friend.client.replies)
    reply = friend.client.replies.get(seq, {})
    code = "over" if self.replica.is_over() else "stale"
    detected = came and reply.get("code") == code and bool(reply.get("reason"))
    if not came:
        self.tally.fail("lost", f"the late copy of the request at move {ply} was never answered")
    elif not detected:
        self.tally.fail("undetected", f"the late copy of the request at move {ply}: {reply}")
    self.tally.refused[str(reply.get("code"))] += came and not reply.get("ok", True)
    self.tally.inject("remote-late", detected=detected, repaired=friend_agrees(self, "remote-late"))


def _friends_move_lit(self: TableFace, move: Move) -> Reading:
    """The board must light the friend's move, and nothing else."""
    reading = self.look()
    kind = "friend-pop" if move.kind is MoveKind.POP else "friend-drop"
    if reading.kind != kind or reading.columns != (self.physical(move),):
        self.diverged(str(move), f"the board shows {reading} for the friend's {move}")
    return reading


def _too_early(self: TableFace) -> None:
    """A person makes a move before the friend chose one."""
    move = self.rng.choice(list(self.replica.legal_moves()))
    detected = self.absorb(_act(self, move).verdicts, Expect(RemoteSeat.EARLY), "remote-early")
    self.tally.inject("remote-early", detected=detected, repaired=self.repair("remote-early"))


def _another_move(self: TableFace, move: Move) -> bool:
    """A person makes another move than the friend's; False when there is none."""
    others = [m for m in self.replica.legal_moves() if m != move]
    if not others:
        return False
    other = self.rng.choice(others)
    detected = self.absorb(_act(self, other).verdicts, Expect(RemoteSeat.OTHER), "remote-other")
    self.tally.inject("remote-other", detected=detected, repaired=self.repair("remote-other"))
    return True


def _make(self: TableFace, move: Move, reading: Reading) -> bool:
    """The person makes the friend's move as the lights show it."""
    friend = self.friend
    assert friend is not None
    column = reading.columns[0]
    if reading.kind == "friend-drop":
        outcome = self.act("drop", column, reading.colour)
    else:
        outcome = self.act("pop", column)
    good = self.absorb(outcome.verdicts, Expect(moves=[move]), f"the friend's {move}")
    friend.asked = None
    self.tally.remote_moves += 1
    return good


def _act(self: TableFace, move: Move) -> Outcome:
    """A person makes ``move`` for the player to move."""
    mover = self.replica.to_move
    column = self.physical(move)
    if move.kind is MoveKind.DROP:
        return self.act("drop", column, mover)
    return self.act("pop", column)
