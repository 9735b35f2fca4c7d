"""One game of ``bench/linked.py``: two sides of one game kept in step
through a misbehaving network (issue 23).

Grid A is a soak table (``table.py``: people who read the lights, make
mistakes and repair them) whose daemon reaches the broker through fault
proxy A; the other side, B, plays the other colour through fault proxy B.
Until linked grids exist (``popref simulate --join LINK``, branch
``linked``), B is the remote seat's reference client (``friend.py``): the
same link, topics and signatures, its moves lit on A for A's people to copy
(sometimes wrongly, then repaired as the board asks). Both proxies duplicate,
delay and reorder (a seeded :class:`Mix`) in every game but the quiet ones,
and each game has one of :data:`EVENTS` at one of B's turns.

After the game: A's archived record, A's people's own copy of the game and
B's last view must hold the same moves, each once and in order.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.soaklib.friend import WAIT, Friend
from bench.soaklib.kills import KillPlan
from bench.soaklib.linkedtally import Latency, LinkedTally
from bench.soaklib.mqttproxy import FAULTS, Mix, MqttProxy
from bench.soaklib.remotekill import kill_while_asked
from bench.soaklib.remoteplay import friend_moves
from bench.soaklib.table import MAX_ACTIONS, SoakTable, TableSetup
from controller.store.archive import ArchiveError
from engine import RULES_NAMES
from engine.colour import Colour
from engine.records import read_record
from tests.broker import Mosquitto

# What happens once a game, at one of B's turns (the list; "quiet":
# nothing, and no mix either: the baseline the latency is read against)
EVENTS = (
    "quiet",
    "broker-restart",
    "cut-10s",
    "cut-2min",
    "kill-9-A",
    "kill-9-B",
    "both-restarted",
)
CUTS = {"cut-10s": 10.0, "cut-2min": 120.0}  # seconds the path to the broker is refused
# Seconds after a fault ends (a cut's end, a restart) within which both grids
# must be linked again by themselves; past it a person would have stepped in.
# A healthy heal takes the reconnect's back-off (8 s at most,
# controller/remote/connection.py) and a presence each way; the run reports
# the longest it measured. Twenty seconds (the bound until 2026-12-02) was
# missed by 2 of the first 9 heals after 2-minute cuts in two runs on a
# machine loaded to 7-10, where both games then went on linked by themselves;
# three times that leaves the load its due.
HEALED = 3 * WAIT
KILLED = {"kill-9-A": (0,), "kill-9-B": (1,), "both-restarted": (0, 1)}  # grids: A 0, B 1
NOISE = Mix(duplicate=0.05, delay=0.05, reorder=0.05, delays=(0.01, 0.2))
TURN_AT = (0, 6)  # B's turn the event lands on, drawn in this range


@dataclass(frozen=True)
class LinkedPlan:
    """One game: its number, rules, seed, event and the B turn it lands on;
    ``cut_scale`` shortens the cuts (``--quick``)."""

    number: int
    preset: str
    seed: int
    event: str
    at: int
    cut_scale: float = 1.0

    @property
    def noisy(self) -> bool:
        return self.event != "quiet"


def plans(games: int, seed: int, cut_scale: float = 1.0) -> list[LinkedPlan]:
    """``games`` plans: every rules preset with every event in turn (six
    presets, seven events: all 42 pairs in 42 games), seeded.

    >>> [(p.preset, p.event) for p in plans(8, 1)][6:]
    [('classic', 'both-restarted'), ('popout', 'quiet')]
    """
    rng = random.Random(seed)
    return [
        LinkedPlan(
            number,
            RULES_NAMES[number % len(RULES_NAMES)],
            rng.randrange(1 << 30),
            EVENTS[number % len(EVENTS)],
            rng.randrange(*TURN_AT),
            cut_scale,
        )
        for number in range(games)
    ]


class LinkedSides:
    """What both kinds of game share: the plan, its dice, and the two
    paths to the broker (A's and B's fault proxies), started by
    :meth:`paths` and closed with their faults counted."""

    def __init__(
        self,
        plan: LinkedPlan,
        broker: Mosquitto,
        workdir: Path,
        tally: LinkedTally,
        latency: Latency,
    ) -> None:
        self.plan = plan
        self.broker = broker
        self.workdir = workdir
        self.tally = tally
        self.latency = latency
        self.rng = random.Random(plan.seed)
        upstream = ("127.0.0.1", broker.port)
        self.proxies = (MqttProxy(upstream, plan.seed), MqttProxy(upstream, plan.seed + 1))
        self.prepare()

    def prepare(self) -> None:
        """The kind of game's own setup, after this one's."""

    def play(self) -> None:
        """The plan's game, played and counted (each kind its own way)."""
        raise NotImplementedError

    # -- the events of two grids (linkedgrids.py, linkedprocs.py) --------------------------

    def strike(self) -> None:
        """The plan's event; then both grids must link again by themselves
        within :data:`WAIT` seconds and the cut's (else a person would have
        had to step in: a manual step) and hold the same game."""
        event = self.plan.event
        if event == "quiet":
            return
        self.tally.injected[event] += 1
        cut = CUTS.get(event, 0.0) * self.plan.cut_scale
        if event == "broker-restart":
            self.broker.restart()
        elif event in CUTS:
            self.proxies[self.rng.randrange(2)].cut(cut)
        else:
            self.restart(KILLED[event])
        ended = time.monotonic() + cut  # the fault over: the network is whole again
        if self.healed(HEALED + cut):
            self.tally.heals[event].append(max(0.0, time.monotonic() - ended))
            self.tally.detected[event] += 1
            self.tally.repaired[event] += self.same_game()
        else:
            self.tally.fail(
                "manual", f"game {self.plan.number}: {event}: the link stayed down {HEALED:.0f} s"
            )

    def restart(self, sides: tuple[int, ...]) -> None:
        """The grids ``sides`` (A 0, B 1) gone without a word, started again
        on their state directories."""
        raise NotImplementedError

    def healed(self, timeout: float) -> bool:
        """No path refused any more and both grids linked, within ``timeout`` s."""
        raise NotImplementedError

    def same_game(self) -> bool:
        """Both grids hold the same game, the moves made."""
        raise NotImplementedError

    @contextlib.contextmanager
    def paths(self) -> Iterator[None]:
        self.latency.noisy = self.plan.noisy
        for proxy in self.proxies:
            proxy.start()
            proxy.mix(NOISE if self.plan.noisy else None)
        try:
            yield
        finally:
            for proxy in self.proxies:
                self.tally.injected.update({f"net-{k}": proxy.counts[k] for k in FAULTS})
                proxy.close()


class LinkedGame(LinkedSides):
    """B as the remote seat's client, A a soak table; :meth:`play` runs it."""

    def prepare(self) -> None:
        plan, workdir = self.plan, self.workdir
        self.state = workdir / f"linked-{plan.number}-{plan.preset.replace('+', '-')}"
        self.friend = Friend(self.broker, self.rng.choice(list(Colour)), self.tally)
        self.friend.daemon_broker, self.friend.own_broker = (p.url for p in self.proxies)
        # the friend's own misdeeds are the soak's (remoteplay.py); here the
        # network's, and A's people's mistakes in copying B's moves
        self.setup = TableSetup(
            plan.preset, seed=plan.seed, abandon_rate=0.0, friend_fault_rate=0.0
        )

    def play(self) -> None:
        with self.paths():
            try:
                if self.plan.event == "kill-9-A":
                    self._killed()
                else:
                    self._played()
            finally:
                self.friend.close()

    def _played(self) -> None:
        table = self._table()
        try:
            table.count_game()
            turns = 0
            for _ in range(MAX_ACTIONS):
                if table.replica.is_over():
                    break
                if friend_moves(table):
                    if turns == self.plan.at:
                        table = self._event(table)
                    turns += 1
                table.turn()
            table.check("the game's end")  # B's view has caught up with A
            played = [str(move) for move in table.replica.moves]
            seen = self.friend.state.get("moves")
            table.finish()  # archives the game
            self._compare(table, played, seen)
        finally:
            self.tally.archived[self.plan.preset] += len(table.sim.daemon.archive.games())
            table.close()

    def _table(self) -> SoakTable:
        table = SoakTable(self.setup, self.state, self.rng, self.tally, self.friend)
        self.latency.watch(table.sim)
        self.friend.heard = self.latency.message
        return table

    def _event(self, table: SoakTable) -> SoakTable:
        """The plan's event, before B's turn; the table that plays on."""
        event = self.plan.event
        if event == "quiet":
            return table
        self.tally.injected[event] += 1
        board = self.proxies[0]
        if event == "broker-restart":
            self.broker.restart()
        elif event in CUTS:
            board.cut(CUTS[event] * self.plan.cut_scale)
        elif event == "kill-9-B":
            self.proxies[1].cut(0.0)  # its connection dies with it
            self.friend.connect()  # started again on the same link
        elif event == "both-restarted":
            table.close()
            self.friend.close()
            self.friend.connect()
            table = self._table()
        self._healed(table, event)
        return table

    def _healed(self, table: SoakTable, event: str) -> None:
        """Both ends connected again by themselves, a cut's refusal over,
        within :data:`WAIT` seconds and the cut's; else a person would have
        had to step in: a manual step."""
        remote = table.sim.daemon.remote
        assert remote is not None
        board = self.proxies[0]

        def up() -> bool:
            return (
                not board.refusing()
                and remote.connection.connected.is_set()
                and self.friend.client.connection.connected.is_set()
            )

        if self.friend.pump(table.sim, up, WAIT + CUTS.get(event, 0.0) * self.plan.cut_scale):
            self.tally.detected[event] += 1
            self.tally.repaired[event] += table.check(event)
        else:
            self.tally.fail("manual", f"{event}: the link did not come back by itself")

    def _killed(self) -> None:
        """``kill -9`` of A's daemon while B's request is pending: the soak's
        own scenario (``remotekill.py``), through the two proxies."""
        plan = KillPlan(self.plan.preset, seed=self.plan.seed, kill_after=2 * self.plan.at + 1)
        self.tally.injected["kill-9-A"] += 1
        before = self.tally.divergences + self.tally.lost
        kill_while_asked(
            plan, self.broker, self.state.parent, self.rng, self.tally, friend=self.friend
        )
        self.tally.detected["kill-9-A"] += self.tally.divergences + self.tally.lost == before

    def _compare(self, table: SoakTable, played: list[str], seen: object) -> None:
        """A's archived record, A's people's game and B's view: the same
        moves, each once, in order."""
        archive = table.sim.daemon.archive
        try:
            games = archive.games()
            kept = [str(m) for m in read_record(archive.read(games[-1].number)).moves]
        except (ArchiveError, IndexError, ValueError) as error:
            kept = [f"unreadable: {error}"]
        self.tally.moves_compared += len(played)
        if kept != played or seen != played:
            self.tally.fail(
                "journal_divergences",
                f"game {self.plan.number} ({self.plan.preset}, {self.plan.event}): "
                f"played {played}, A's record {kept}, B saw {seen}",
            )
