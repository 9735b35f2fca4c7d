"""The friend who plays one colour from afar, for the soak: the reference
client (:class:`controller.remote.client.RemoteClient`, as ``popref play``
drives it) on the invitation's link, through the soak's own Mosquitto
(``tests/broker.py``).

The table runs in simulated time; the broker, the daemon's broker client and
the friend's run on real threads. While the harness waits for the broker it
steps the daemon without moving simulated time (:meth:`Friend.pump`), so the
grid's timings stay exactly as seeded; every wait is bounded in real time.

Example::

    friend = Friend(broker, Colour.YELLOW, tally)
    friend.follow(table.sim)           # on the link of this game's invitation
    answer = friend.ask(table.sim, "4", ply=1)
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bench.soaklib.tally import Tally
from controller.remote.client import RemoteClient
from controller.remote.link import parse_link
from controller.remote.message import REMOTE, Message, body, seal
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from tests.broker import Mosquitto

WAIT = 20.0  # seconds of real time any answer through the broker may take, loaded
# Seconds before the friend asks again with a new number, as popref play
# does when no answer comes: a broker restarted while the request travelled
# forgets it. A copy that crosses a late answer is refused as "waiting".
ANSWER = 5.0
SENDS = 3  # the soak's bound: a request sent this often unanswered counts as lost
PUMP = 0.005  # seconds the daemon waits for the broker between two looks


@dataclass
class Answer:
    """What came of a request: the board's reply (``None`` when the reply
    was lost and the board's state shows the move waiting instead), and how
    many times it was sent."""

    reply: dict[str, Any] | None
    sends: int = 0
    seqs: list[int] = field(default_factory=list)

    @property
    def taken(self) -> bool:
        """The board took the request: ok, or ``waiting`` (a copy sent
        before was taken, its reply still on the way), or no reply but the
        move shown waiting."""
        reply = self.reply
        return reply is None or bool(reply.get("ok")) or reply.get("code") == "waiting"


class Friend:
    """One friend, game after game: each new game has a new invitation, and
    the friend follows its link (a new client, as a person opens the new
    link)."""

    def __init__(self, broker: Mosquitto, colour: Colour, tally: Tally) -> None:
        self.broker = broker
        self.colour = colour
        self.tally = tally  # counts the requests sent, and those sent again
        self.wait = WAIT  # seconds an answer may take (a test's planted loss: less)
        self.link: str | None = None
        # where the daemon reaches the broker, and where this friend does (by
        # default the link's): a fault proxy on either path (bench/linked.py)
        self.daemon_broker = broker.url
        self.own_broker: str | None = None
        self._client: RemoteClient | None = None
        # the move the board took from this friend and has not seen made yet
        # (ply, notation): it must be lit, also after a restart
        self.asked: tuple[int, str] | None = None
        self.replies_to: Counter[int] = Counter()  # replies taken, by request number
        # told each board message taken, with when it arrived, on every client
        # this friend starts (bench/linked.py times the moves with it)
        self.heard: Callable[[Message, float], None] | None = None

    @property
    def client(self) -> RemoteClient:
        assert self._client is not None, "the friend follows no link yet"
        return self._client

    @property
    def state(self) -> dict[str, Any]:
        """The board's last state, as this friend took it from the broker."""
        return self.client.state or {}

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- the link --------------------------------------------------------------------

    def follow(self, sim: Simulation) -> str | None:
        """Be on the link of ``sim``'s invitation in this game; what went
        wrong, if anything: an old link's last word (``invitation: ended``)
        did not come, or the next game it named is not the new link's."""
        link = sim.links[-1] if sim.links else None
        if link is None or link == self.link:
            return None
        wrong = None
        if self._client is not None:
            old = self._client
            if not self.pump(sim, lambda: (old.state or {}).get("invitation") == "ended"):
                wrong = "the old invitation's link never said it ended"
            named = (old.state or {}).get("sequel")
            after, new = old.link.sequel(named), parse_link(link)
            if named is not None and (
                after is None or (after.game, after.key) != (new.game, new.key)
            ):
                wrong = f"the old link's last word named another next game ({named})"
            self.close()
        self.link = link
        self.asked = None
        self.connect()
        return wrong

    def connect(self) -> None:
        """A new client on the link: the page opened again, or popref play
        started again (its numbers start above the board's and the clock's)."""
        assert self.link is not None
        self.close()
        link = parse_link(self.link)
        if self.own_broker is not None:
            link = replace(link, broker=self.own_broker)
        self._client = RemoteClient(link, name="soak-friend")
        self._client.on_taken = self._taken
        self._client.start()

    # -- waiting on the broker, the daemon stepping meanwhile -------------------------

    def pump(
        self, sim: Simulation | None, done: Callable[[], bool], timeout: float | None = None
    ) -> bool:
        """Take the board's messages, stepping the daemon in place (simulated
        time stands still), until ``done()`` holds; False after ``timeout``
        seconds of real time (:attr:`wait`). Without ``sim`` the daemon runs
        elsewhere (a ``popref simulate`` process)."""
        client = self.client
        timeout = self.wait if timeout is None else timeout
        if sim is None:
            return client.wait(done, timeout)
        end = time.monotonic() + timeout
        while not client.wait(done, 0.0):
            if time.monotonic() >= end:
                return False
            sim.daemon.idle(PUMP)
            sim.advance(0.0)
        return True

    def disagreement(self, sim: Simulation) -> list[str]:
        """The fields in which this friend's view differs from the daemon's
        state once it had :attr:`wait` seconds to catch up (none: it agrees)."""

        def wanted() -> dict[str, Any]:
            # read afresh each time: while the board's link is down (a broker
            # restarting) its state says so, which no friend can ever be told
            want: dict[str, Any] = json.loads(json.dumps(sim.daemon.state()))
            return want | {
                "ply": len(want["moves"]),
                "you": self.colour.value,
                "invitation": "open",
            }

        def same() -> bool:
            return all(self.state.get(key) == value for key, value in wanted().items())

        if self.pump(sim, same):
            return []
        return [
            f"{key} {self.state.get(key)!r} != {value!r}"
            for key, value in wanted().items()
            if self.state.get(key) != value
        ]

    # -- requests ------------------------------------------------------------------------

    def ask(
        self,
        sim: Simulation | None,
        move: str,
        ply: int,
        *,
        reply: bool = False,
        first_sent: Callable[[], None] | None = None,
    ) -> Answer | None:
        """Ask for ``move`` in the position after ``ply`` moves until the board
        answers, sending it again with a new number after :data:`ANSWER`
        seconds without an answer, as popref play does; ``None`` when
        :data:`SENDS` went unanswered. An answer is a reply, or (unless
        ``reply``) the board's state showing this friend's move waiting (the
        reply lost with a dropped connection). ``first_sent`` is what happens
        right after the first is sent (a connection dropped while it travels)."""
        answer = Answer(None)
        for _ in range(SENDS):
            answer.seqs.append(self.client.request(move, ply))
            answer.sends += 1
            self.tally.requests += 1
            if first_sent is not None:
                first_sent()
                first_sent = None
            if self.pump(sim, lambda: self._answered(answer.seqs, ply, reply), ANSWER):
                self.tally.resent += answer.sends - 1
                replies = [self.client.replies[s] for s in answer.seqs if s in self.client.replies]
                # the copy taken counts; one that came after it is "waiting"
                taken = [r for r in replies if r.get("ok")]
                answer.reply = next(iter(taken or replies), None)
                return answer
        self.tally.resent += answer.sends - 1
        return None

    def _answered(self, seqs: list[int], ply: int, reply: bool) -> bool:
        """A reply to one of ``seqs``, or (unless ``reply``) the board shows
        this friend's move waiting at ``ply``."""
        if any(seq in self.client.replies for seq in seqs):
            return True
        state = self.state
        return not reply and state.get("ply") == ply and state.get("remote") is not None

    def _taken(self, message: Message, arrived: float) -> None:
        if self.heard is not None:
            self.heard(message, arrived)
        if message.kind == "reply":
            number = message.fields().get("request_seq")
            if isinstance(number, int):
                self.replies_to[number] += 1

    def sealed(self, move: str, ply: int, seq: int | None = None) -> bytes:
        """The signed request the client sends for ``move`` at ``ply`` as
        number ``seq`` (the very bytes of one it sent: a copy), or numbered
        now (to publish later: a late copy)."""
        link = self.client.link
        value = {"ply": ply, "move": move}
        number = self.client.next_seq() if seq is None else seq
        return seal(link.key, Message(link.game, REMOTE, number, "request", body(value)))

    def publish(self, payload: bytes) -> int:
        """Publish ``payload`` on the friend's topic as it is (a copy the
        network duplicated or delayed); its number."""
        client = self.client
        client.connection.publish(client.topics.remote, payload)
        seq: int = json.loads(payload)["seq"]
        return seq
