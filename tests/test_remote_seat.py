"""The remote seat against a real Mosquitto (tests/broker.py): the daemon on
the simulated grid, a remote player through :class:`RemoteClient`, and a
stranger on the broker publishing whatever it likes."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.daemon.config import parse_config
from controller.referee.invitation import DAY
from controller.remote.client import RemoteClient
from controller.remote.host import BURST, HERE_BURST, RATE
from controller.remote.link import parse_link
from controller.remote.message import REMOTE, Message, record_hash, seal, topics
from controller.simulator.script import parse_line
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from tests.broker import Mosquitto

WAIT = 20.0  # seconds: the longest any step may take on a loaded machine


class Wall:
    """The wall clock the invitation's expiry reads."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def wall() -> Wall:
    return Wall()


@pytest.fixture
def table(mosquitto: Mosquitto, tmp_path: Path, wall: Wall) -> Iterator[Simulation]:
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW, wall=wall)
    try:
        yield sim
    finally:
        sim.close()


@pytest.fixture
def friend(table: Simulation) -> Iterator[RemoteClient]:
    client = RemoteClient(parse_link(table.links[-1]), name="friend")
    client.start()
    try:
        assert pump(table, client, lambda: client.state is not None)
        yield client
    finally:
        client.close()


def pump(sim: Simulation, client: RemoteClient, done: Callable[[], bool]) -> bool:
    """Run the daemon in real time and take the client's messages until
    ``done()`` holds; False after :data:`WAIT` seconds."""
    for _ in range(int(WAIT / 0.05)):
        if client.wait(done, 0.0):
            return True
        sim.wait_real(0.05)
    return client.wait(done, 0.0)


def act(sim: Simulation, *lines: str) -> None:
    for line in lines:
        action = parse_line(line, 1, "test")
        assert action is not None
        sim.act(action)


def play(sim: Simulation, client: RemoteClient, *columns: int) -> None:
    """Drops into ``columns`` in turn; on the friend's turns the friend asks
    for each first."""
    for column in columns:
        ply = len(sim.daemon.referee.game.moves)
        if sim.daemon.referee.game.to_move is Colour.YELLOW:
            ask(sim, client, str(column), ply)
        act(sim, f"drop {column}")
        assert len(sim.daemon.referee.game.moves) == ply + 1


def ask(sim: Simulation, client: RemoteClient, move: str, ply: int) -> None:
    """The friend asks for ``move`` once the board is at ``ply``; it is taken."""
    assert pump(sim, client, lambda: state(client)["ply"] == ply)
    seq = client.request(move, ply)
    assert pump(sim, client, lambda: seq in client.replies)
    assert client.replies[seq]["ok"], client.replies[seq]


def state(client: RemoteClient) -> dict[str, Any]:
    assert client.state is not None
    return client.state


def red_drops_first(sim: Simulation, client: RemoteClient) -> None:
    """Red (the grid) drops in the middle; the friend, Yellow, has seen it."""
    act(sim, "drop 4")
    assert pump(sim, client, lambda: state(client)["ply"] == 1)


def test_the_remote_plays_its_moves_through_the_grid(
    table: Simulation, friend: RemoteClient
) -> None:
    assert state(friend)["you"] == "yellow" and state(friend)["invitation"] == "open"
    red_drops_first(table, friend)
    hashed = record_hash(table.daemon.referee.game)  # both journals' game after the move
    assert friend.moves == [{"ply": 1, "move": "4", "by": "red", "hash": hashed, "epoch": 0}]
    seq = friend.request("5", 1)
    assert pump(table, friend, lambda: seq in friend.replies)
    assert friend.replies[seq] == {"request_seq": seq, "ok": True}
    shown = table.daemon.state()
    assert shown["remote"] == "5" and shown["colours"][4] == "yellow"
    assert shown["lights"][4] == "computer-drop"
    act(table, "drop 5")
    assert pump(table, friend, lambda: state(friend)["ply"] == 2)
    assert state(friend)["moves"] == ["4", "5"] and state(friend)["remote"] is None


def test_each_accepted_move_is_published_after_it_is_journalled(
    table: Simulation, friend: RemoteClient
) -> None:
    order: list[str] = []
    journal, connection = table.daemon.journal, table.daemon.remote.connection  # type: ignore[union-attr]
    append, publish = journal.append, connection.publish

    def journalled(record: dict[str, Any]) -> None:
        append(record)
        order.append(f"journal {record.get('e')}")

    def published(topic: str, payload: bytes, retain: bool = False) -> None:
        order.append(f"publish {json.loads(payload)['kind']}")
        publish(topic, payload, retain)

    journal.append = journalled  # type: ignore[method-assign]
    connection.publish = published  # type: ignore[method-assign]
    act(table, "drop 4")
    moved = order.index("publish move")
    assert order.index("journal drop") < moved < order.index("publish state", moved)


def test_a_request_is_lit_on_the_grid_before_the_friend_is_answered(
    table: Simulation, friend: RemoteClient
) -> None:
    # the person at the grid waits for the light; the reply only confirms it
    red_drops_first(table, friend)
    lit_when_answered: list[str] = []
    connection = table.daemon.remote.connection  # type: ignore[union-attr]
    publish = connection.publish

    def published(topic: str, payload: bytes, retain: bool = False) -> None:
        if json.loads(payload)["kind"] == "reply":
            assert table.daemon.shown is not None
            lit_when_answered.append(table.daemon.shown.columns[4].lamp.value)
        publish(topic, payload, retain)

    connection.publish = published  # type: ignore[method-assign]
    seq = friend.request("5", 1)
    assert pump(table, friend, lambda: seq in friend.replies)
    assert friend.replies[seq]["ok"]
    assert lit_when_answered == ["computer-drop"]


def test_a_request_not_taken_is_answered_with_the_engines_reason(
    table: Simulation, friend: RemoteClient
) -> None:
    stale = friend.request("4", 0)  # Red's turn, and then the board moves on
    assert pump(table, friend, lambda: stale in friend.replies)
    assert friend.replies[stale]["code"] == "turn"
    play(table, friend, 4, 4, 4, 4, 4, 4, 1)
    assert pump(table, friend, lambda: state(friend)["ply"] == 7)
    full = friend.request("4", 7)
    old = friend.request("3", 6)
    notation = friend.request("x9", 7)
    assert pump(table, friend, lambda: {full, old, notation} <= set(friend.replies))
    assert friend.replies[full]["reason"] == "column 4 is full"
    assert friend.replies[full]["reason_text"] == [
        {"id": "column {column} is full", "values": {"column": 4}}
    ]
    assert friend.replies[old]["code"] == "stale"
    assert friend.replies[notation]["code"] == "notation"


def test_forged_replayed_unsigned_and_foreign_messages_are_ignored(
    table: Simulation, friend: RemoteClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="popref")
    link = friend.link
    red_drops_first(table, friend)
    taken = friend.request("3", 1)
    assert pump(table, friend, lambda: taken in friend.replies)
    stranger = Stranger(friend.connection.address.port, friend.topics.remote)
    try:
        request = Message(link.game, REMOTE, taken + 10, "request", '{"ply":1,"move":"6"}')
        stranger.send(seal(bytes(32), request))  # forged: another key
        unsigned = json.loads(seal(link.key, request))
        del unsigned["sig"]
        stranger.send(json.dumps(unsigned).encode())
        other_game = Message("B" * 22, REMOTE, taken + 11, "request", '{"ply":1,"move":"6"}')
        stranger.send(seal(link.key, other_game))  # signed, but for another game
        replayed = Message(link.game, REMOTE, taken, "request", '{"ply":1,"move":"6"}')
        stranger.send(seal(link.key, replayed))  # a number already taken
        stranger.send(b"\xff" * 5000)
        # a good message last, on the same connection: once it is answered,
        # the broker has handed over everything before it
        marker = friend.next_seq()
        stranger.send(
            seal(link.key, Message(link.game, REMOTE, marker, "request", '{"ply":0,"move":"1"}'))
        )
    finally:
        stranger.close()
    assert pump(table, friend, lambda: marker in friend.replies)
    assert friend.replies[marker]["code"] == "stale"
    assert set(friend.replies) == {taken, marker}
    assert table.daemon.state()["remote"] == "3"  # only the request that was taken
    table.advance(61.0)  # the log counts what it ignored once a minute
    said = " ".join(r.getMessage() for r in caplog.records if "ignored" in r.getMessage())
    for kind in ("forged 1", "malformed 1", "foreign 1", "replayed 1", "size 1"):
        assert kind in said


def test_a_flood_neither_stalls_the_loop_nor_crowds_out_the_friend(
    table: Simulation, friend: RemoteClient
) -> None:
    link = friend.link
    red_drops_first(table, friend)
    stranger = Stranger(friend.connection.address.port, friend.topics.remote)
    try:
        for n in range(3000):
            forged = Message(link.game, REMOTE, n + 1, "request", '{"ply":1,"move":"6"}')
            stranger.send(seal(bytes(32), forged), wait=False)
        seq = friend.request("5", 1)
        act(table, "drop 1")  # the grid goes on meanwhile: a mistake, shown at once
        assert table.daemon.state()["fault"] is not None
        assert pump(table, friend, lambda: seq in friend.replies)
    finally:
        stranger.close()
    assert friend.replies[seq]["ok"] and table.daemon.state()["remote"] == "5"


def test_a_request_the_broker_drops_is_sent_again_and_taken(
    table: Simulation, friend: RemoteClient
) -> None:
    red_drops_first(table, friend)
    publish, sent = friend.connection.publish, []

    def lossy(topic: str, payload: bytes, retain: bool = False) -> None:
        sent.append(payload)
        if len(sent) > 1:  # the broker loses the first copy
            publish(topic, payload, retain)

    friend.connection.publish = lossy  # type: ignore[method-assign]
    seq = friend.request("5", 1)
    assert pump(table, friend, lambda: seq in friend.replies)
    assert friend.replies[seq]["ok"] and table.daemon.state()["remote"] == "5"
    assert len(sent) >= 2 and set(sent) == {sent[0]}  # the same message, the same number


def test_a_request_that_comes_twice_is_answered_twice_and_taken_once(
    table: Simulation, friend: RemoteClient
) -> None:
    link = friend.link
    red_drops_first(table, friend)
    replies: list[dict[str, Any]] = []
    friend.on_taken = lambda m, _: replies.append(m.fields()) if m.kind == "reply" else None
    seq = friend.next_seq()
    request = seal(link.key, Message(link.game, REMOTE, seq, "request", '{"ply":1,"move":"5"}'))
    stranger = Stranger(friend.connection.address.port, friend.topics.remote)
    try:
        stranger.send(request)
        assert pump(table, friend, lambda: len(replies) == 1)
        journalled = (table.state_dir / "journal").read_text()
        table.advance(1.0)  # a copy that comes at once is not answered again so soon
        stranger.send(request)  # its reply was lost, say: the friend sends it again
        assert pump(table, friend, lambda: len(replies) == 2)
    finally:
        stranger.close()
    assert replies == [{"request_seq": seq, "ok": True}] * 2
    assert table.daemon.referee.remote.last_seq == seq
    requests = (table.state_dir / "journal").read_text().count('"request"')
    assert requests == journalled.count('"request"')
    act(table, "drop 5")
    assert table.daemon.state()["moves"] == ["4", "5"] and table.daemon.state()["remote"] is None


def test_a_broker_restart_mid_game_loses_nothing(
    table: Simulation, friend: RemoteClient, mosquitto: Mosquitto
) -> None:
    act(table, "drop 4")
    seq = friend.request("4", 1)
    assert pump(table, friend, lambda: seq in friend.replies)
    mosquitto.restart()  # its retained state is gone with it
    act(table, "drop 4")  # the friend's move, made while the broker is away
    assert pump(table, friend, lambda: state(friend)["ply"] == 2)
    act(table, "drop 2")
    assert pump(table, friend, lambda: state(friend)["ply"] == 3)
    again = friend.request("3", 3)
    assert pump(table, friend, lambda: again in friend.replies)
    assert friend.replies[again]["ok"]
    assert table.daemon.state()["moves"] == ["4", "4", "2"]
    assert table.daemon.state()["remote"] == "3"


def test_an_unused_invitation_expires_after_a_day(
    table: Simulation, friend: RemoteClient, wall: Wall
) -> None:
    wall.now += DAY - 1
    table.advance(0.0)
    assert table.daemon.referee.remote.colour() is Colour.YELLOW
    wall.now += 1
    table.advance(0.0)
    assert table.daemon.referee.remote.colour() is None
    assert pump(table, friend, lambda: state(friend)["invitation"] == "ended")


def test_a_used_invitation_does_not_expire(
    table: Simulation, friend: RemoteClient, wall: Wall
) -> None:
    seq = friend.request("4", 0)  # not its turn, but it was used
    assert pump(table, friend, lambda: seq in friend.replies)
    wall.now += 2 * DAY
    table.advance(0.0)
    assert table.daemon.referee.remote.colour() is Colour.YELLOW


class Stranger:
    """Anyone on the broker: publishes raw bytes on a topic."""

    def __init__(self, port: int, topic: str) -> None:
        self.topic = topic
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="stranger")
        self.client.max_inflight_messages_set(1000)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def send(self, payload: bytes, wait: bool = True) -> None:
        info = self.client.publish(self.topic, payload, qos=1)
        if wait:
            info.wait_for_publish(WAIT)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_restarted_daemon_publishes_the_move_that_waits(
    mosquitto: Mosquitto, tmp_path: Path, wall: Wall
) -> None:
    """The state is published as the daemon starts, not only when something
    changes: a friend's move journalled just before a kill -9 (its state never
    sent), or a broker that forgot the retained state while the daemon was
    down, must still show as waiting."""
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    first = Simulation(config, tmp_path / "state", remote=Colour.YELLOW, wall=wall)
    link = first.links[-1]
    client = RemoteClient(parse_link(link), name="friend")
    client.start()
    try:
        assert pump(first, client, lambda: client.state is not None)
        act(first, "drop 4")
        ask(first, client, "5", 1)
    finally:
        client.close()
        first.close()
    mosquitto.restart()  # nothing retained: only the restarted daemon can tell
    again = Simulation(config, tmp_path / "state", remote=Colour.YELLOW, wall=wall)
    client = RemoteClient(parse_link(link), name="friend")
    client.start()
    try:
        assert again.links[-1] == link
        assert pump(again, client, lambda: client.state is not None)
        assert state(client)["remote"] == "5" and state(client)["ply"] == 1
    finally:
        client.close()
        again.close()


def test_numbers_out_of_range_from_the_link_holder_never_reach_the_journal(
    mosquitto: Mosquitto, tmp_path: Path, wall: Wall
) -> None:
    """A signed request or takeback word whose numbers the journal could not
    read back (a move number of -1, 2**53) is dropped before the referee:
    journalled, the next start would find the journal damaged and lose the game."""
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    first = Simulation(config, tmp_path / "state", remote=Colour.YELLOW, wall=wall)
    client = RemoteClient(parse_link(first.links[-1]), name="friend")
    client.start()
    try:
        assert pump(first, client, lambda: client.state is not None)
        red_drops_first(first, client)
        link = client.link
        stranger = Stranger(client.connection.address.port, client.topics.remote)
        try:
            seq = client.next_seq()
            for n, (kind, body) in enumerate(
                [
                    ("request", '{"ply":-1,"move":"4"}'),
                    ("request", '{"ply":9007199254740992,"move":"4"}'),
                    ("takeback", '{"epoch":9007199254740992,"ply":1,"agree":true}'),
                    ("takeback", '{"epoch":0,"ply":-5,"agree":true}'),
                ]
            ):
                stranger.send(seal(link.key, Message(link.game, REMOTE, seq + n, kind, body)))
        finally:
            stranger.close()
        ask(first, client, "5", 1)  # asked after them: once answered, they were all read
    finally:
        client.close()
        first.close()
    journal = (tmp_path / "state" / "journal").read_text()
    assert "9007199254740992" not in journal and '"ply":-' not in journal
    again = Simulation(config, tmp_path / "state", remote=Colour.YELLOW, wall=wall)
    try:
        assert again.daemon.state()["moves"] == ["4"] and again.daemon.state()["remote"] == "5"
    finally:
        again.close()


def test_a_flood_of_signed_requests_is_journalled_at_a_bounded_rate(
    table: Simulation, friend: RemoteClient
) -> None:
    """The link holder's well-formed requests each cost a synced journal
    line: past a burst, a few a second are taken; the rest are dropped, and a
    request sent again after them still gets in."""
    link = friend.link
    red_drops_first(table, friend)
    before = (table.state_dir / "journal").read_text().count('"request"')
    began = table.clock()
    stranger = Stranger(friend.connection.address.port, friend.topics.remote)
    try:
        below = friend.next_seq() - 300  # the friend's own request comes after them
        for n in range(300):  # a pop of Red's disc: each is declined
            body = '{"ply":1,"move":"p4"}'
            message = Message(link.game, REMOTE, below + n, "request", body)
            stranger.send(seal(link.key, message))  # at the broker, in order, before the next
        seq = friend.request("5", 1)  # sent again each second until answered
        assert pump(table, friend, lambda: seq in friend.replies)
    finally:
        stranger.close()
    assert friend.replies[seq]["ok"] and table.daemon.state()["remote"] == "5"
    taken = (table.state_dir / "journal").read_text().count('"request"') - before
    assert taken <= BURST + RATE * (table.clock() - began) + 1 < 300


def test_an_invitation_s_link_is_said_once(
    mosquitto: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="popref")
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    # popref simulate prints each link it is told (with its QR code): not the log too
    told = Simulation(config, tmp_path / "told", remote=Colour.YELLOW)
    try:
        assert told.links
        assert not [r for r in caplog.records if told.links[-1] in r.getMessage()]
    finally:
        told.close()
    # popref run tells nobody: the log is where the owner finds the link
    logged = Simulation(config, tmp_path / "logged")
    try:
        assert logged.daemon.remote is not None
        logged.daemon.remote.on_invited = None
        logged.daemon.choose_remote(Colour.YELLOW)
        logged.advance(1.0)
        link = logged.daemon.remote.current_link()
        assert link is not None
        assert [r for r in caplog.records if r.getMessage() == f"Invitation to play Yellow: {link}"]
    finally:
        logged.close()


def test_the_owner_learns_when_the_link_was_opened(
    table: Simulation, mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    """``friend_opened`` (the owner's page: "the link has not been opened
    yet") turns true when a message signed with the link's secret arrives,
    as the friend's hello on connecting; a stranger's forgery does not count."""
    caplog.set_level(logging.INFO, logger="popref")
    assert table.daemon.state()["friend_opened"] is False
    link = parse_link(table.links[-1])
    names = topics(link.game)
    # the board subscribes before it publishes its state (one connection, in
    # order): once the state is retained, the board hears the remote topic
    published = threading.Event()
    watcher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="watcher")
    watcher.on_connect = lambda client, *_: client.subscribe(names.state, qos=1)
    watcher.on_message = lambda *_: published.set()
    watcher.connect("127.0.0.1", mosquitto.port)
    watcher.loop_start()
    try:
        for _ in range(int(WAIT / 0.05)):
            if published.is_set():
                break
            table.wait_real(0.05)
    finally:
        watcher.disconnect()
        watcher.loop_stop()
    assert published.is_set()
    stranger = Stranger(mosquitto.port, names.remote)
    try:
        stranger.send(seal(bytes(32), Message(link.game, REMOTE, 1, "hello", "{}")))
    finally:
        stranger.close()

    def ignored() -> bool:  # the board counts the forgery in the log at once
        return any("ignored" in r.getMessage() for r in caplog.records)

    for _ in range(int(WAIT / 0.05)):
        if ignored():
            break
        table.wait_real(0.05)
    assert ignored() and table.daemon.state()["friend_opened"] is False
    friend = RemoteClient(link, name="friend")
    friend.start()
    try:
        assert pump(table, friend, lambda: table.daemon.state()["friend_opened"] is True)
    finally:
        friend.close()
    assert table.daemon.state()["friend_opened"] is True  # it stays so


def test_a_flood_of_here_words_is_dropped_past_its_bucket(
    table: Simulation, friend: RemoteClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Each ``here`` taken may make the board publish its state for the
    owner's page: past a burst of HERE_BURST, a link holder's flood of them
    is dropped and counted, and the friend's requests still get in."""
    caplog.set_level(logging.INFO, logger="popref")
    remote = table.daemon.remote
    assert remote is not None
    queued = threading.Event()  # the hello after the flood waits for the loop

    def arrived() -> None:  # on the network thread
        if not remote._inbox.empty():
            queued.set()

    remote.on_arrival = arrived
    for number in range(24):  # the daemon is not stepped: its clock stands still
        friend.send("here", {"up": number % 2 == 0, "conn": f"{number:016x}"})
    friend.hello()  # the same connection: the board has taken every here before it
    assert queued.wait(WAIT)
    red_drops_first(table, friend)
    ask(table, friend, "3", 1)
    table.advance(61.0)  # the log counts what it ignored once a minute
    said = " ".join(r.getMessage() for r in caplog.records if "ignored" in r.getMessage())
    assert f"flood {24 - HERE_BURST}" in said
