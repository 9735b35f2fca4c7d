"""The remote seat through a network that misbehaves on purpose (issue 22):
the daemon and the friend reach a real Mosquitto only through the
fault-injecting proxy (bench/soaklib/mqttproxy.py), which duplicates,
delays and reorders their messages and cuts the connection mid-game. The
game must end as it does on a quiet network: every move once, in order, in
the board's journal and in the friend's view."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bench.soaklib.mqttproxy import DOWN, Mix, MqttProxy
from controller.daemon.config import parse_config
from controller.remote.client import DEAF, RESEND, RemoteClient
from controller.remote.connection import QUEUED
from controller.remote.echo import ECHO_WAIT, LISTEN
from controller.remote.link import parse_link
from controller.remote.message import REMOTE, Message, body, seal
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from hardware.clock import FakeClock
from tests.broker import Mosquitto
from tests.test_remote_seat import WAIT, act, pump

# Classic: Red at the grid, Yellow the friend; Red wins along the bottom row
GAME = ["1", "7", "1", "7", "2", "6", "2", "6", "3", "5", "4"]
NOISY = Mix(duplicate=0.2, delay=0.2, reorder=0.2, delays=(0.01, 0.3))
CUT = 2.0  # seconds the connections stay refused after the cut


@pytest.fixture
def proxy(mosquitto: Mosquitto) -> Iterator[MqttProxy]:
    served = MqttProxy(("127.0.0.1", mosquitto.port), seed=22)
    served.start()
    try:
        yield served
    finally:
        served.close()


def play_through(
    proxy: MqttProxy, state_dir: Path, cut: str | None = None, cut_at: int = 5
) -> tuple[str, list[str]]:
    """The whole of :data:`GAME` through ``proxy``, the connections cut at the
    friend's turn at ply ``cut_at``: ``before`` its request, ``in-flight``
    right after it, or while its move ``waiting`` to be made; the archived
    record and the moves the friend saw last."""
    config = parse_config({"remote": {"broker": proxy.url}}, "test.toml")
    sim = Simulation(config, state_dir, remote=Colour.YELLOW)
    friend = RemoteClient(parse_link(sim.links[-1]), name="friend")
    friend.start()
    try:
        for ply, move in enumerate(GAME):
            if ply % 2:  # the friend's turn: it asks, the board lights, a person makes it
                friends_turn(sim, friend, proxy, move, ply, cut if ply == cut_at else None)
            act(sim, f"drop {move}")
        assert pump(sim, friend, lambda: seen(friend).get("result") == "red")
        moves: list[str] = seen(friend)["moves"]
        games = sim.daemon.archive.games()
        assert len(games) == 1
        return sim.daemon.archive.read(games[0].number), moves
    finally:
        friend.close()
        sim.close()


@pytest.mark.parametrize("cut", ["before", "in-flight", "waiting"])
def test_a_game_through_duplicates_delays_reordering_and_a_cut_ends_as_on_a_quiet_network(
    proxy: MqttProxy, tmp_path: Path, cut: str
) -> None:
    quiet, quiet_seen = play_through(proxy, tmp_path / "quiet")
    proxy.mix(NOISY)
    noisy, noisy_seen = play_through(proxy, tmp_path / "noisy", cut)
    assert quiet_seen == noisy_seen == GAME
    assert noisy == quiet and quiet.split("\n")[-2].split() == GAME  # each move once, in order
    assert proxy.counts["cut"] == 1 and proxy.counts["refused"] >= 1
    faults = {kind: proxy.counts[kind] for kind in ("duplicate", "delay", "reorder")}
    assert all(faults.values()), proxy.counts


def friends_turn(
    sim: Simulation, friend: RemoteClient, proxy: MqttProxy, move: str, ply: int, cut: str | None
) -> None:
    """The friend asks for ``move`` at ``ply`` and the board lights it; the
    connections are cut at the moment ``cut`` names, if any."""
    assert pump(sim, friend, lambda: seen(friend).get("ply") == ply)
    _cut(proxy, "before", cut)
    seq = friend.request(move, ply)
    _cut(proxy, "in-flight", cut)
    assert pump(sim, friend, lambda: friend.answered(seq)), (ply, move)
    assert pump(sim, friend, lambda: sim.daemon.state()["remote"] == move)
    _cut(proxy, "waiting", cut)


def _cut(proxy: MqttProxy, moment: str, cut: str | None) -> None:
    if moment == cut:
        proxy.cut(CUT)


def test_a_request_overtaken_by_the_friends_next_hello_is_still_taken(
    mosquitto: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="popref")
    # paho sends what on_connect publishes (the hello) before the messages
    # it queued while the connection was down (the request): the board gets
    # the higher number first. Found by the test above ("before"): the
    # request was dropped as a replay, and resent for ever in vain.
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    friend = RemoteClient(parse_link(sim.links[-1]), name="friend")
    friend.start()
    try:
        act(sim, "drop 4")
        assert pump(sim, friend, lambda: seen(friend).get("ply") == 1)
        link, asked = friend.link, friend.next_seq()
        request = Message(link.game, REMOTE, asked, "request", body({"ply": 1, "move": "5"}))
        hello = Message(link.game, REMOTE, friend.next_seq(), "hello", body({"client": "t"}))
        for message in (hello, request):  # one connection: the broker keeps this order
            friend.connection.publish(friend.topics.remote, seal(link.key, message))
        assert pump(sim, friend, lambda: asked in friend.replies)
        assert friend.replies[asked]["ok"] and sim.daemon.state()["remote"] == "5"
        # the hello again (a replay) is still dropped: the marker after it
        # is answered, and the log counts the copy once
        friend.connection.publish(friend.topics.remote, seal(link.key, hello))
        marker = friend.request("x9", 1)
        assert pump(sim, friend, lambda: marker in friend.replies)
        assert pump(sim, friend, lambda: "(replayed 1)" in caplog.text)
    finally:
        friend.close()
        sim.close()


def seen(friend: RemoteClient) -> dict[str, Any]:
    """The board's state as the friend saw it last (nothing yet: empty)."""
    return friend.state or {}


def test_a_long_cut_does_not_crowd_out_the_presence_said_on_connecting_again(
    mosquitto: Mosquitto, proxy: MqttProxy, tmp_path: Path
) -> None:
    """A grid that announces itself (a linked grid's side), cut off for far
    longer than a second a copy while a request of its waits: the board
    hears its ``up`` at once when the path comes back. Copies were queued
    while the broker was away, one a second, until the connection's queue
    was full; the presence and hello said on connecting again were dropped,
    and the board showed the link down for as long as it had no other word
    (bench/linked.py: over a minute after a 2-minute cut)."""
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    ours, theirs = (quote(url, safe="") for url in (mosquitto.url, proxy.url))
    clock = FakeClock()  # the friend's own: its copies come due by it, not by real time
    link = parse_link(sim.links[-1].replace(ours, theirs))
    friend = RemoteClient(link, name="friend", clock=clock, announce=True)
    friend.start()
    try:
        act(sim, "drop 4")
        assert pump(sim, friend, lambda: seen(friend).get("ply") == 1)
        assert pump(sim, friend, lambda: sim.daemon.state()["link"] == "up")
        friend.request("5", 2)  # not Yellow's position: it stays unanswered
        proxy.cut()  # the broker leaves the friend's will: the board shows the link down
        assert pump(sim, friend, lambda: sim.daemon.state()["link"] == "down")
        # the broker may see the cut before the friend's own network thread
        # does: copies made in between go out (to a closed socket) as in life,
        # where they come one a second, not all at once
        assert pump(sim, friend, lambda: not friend.connection.connected.is_set())
        for _ in range(2 * QUEUED):  # two minutes of copies due, in an instant
            clock.advance(RESEND)
            friend.resend()
        proxy.heal()
        assert pump(sim, friend, lambda: sim.daemon.state()["link"] == "up")
    finally:
        friend.close()
        sim.close()


def test_a_board_the_broker_stops_passing_messages_to_hears_again(
    proxy: MqttProxy, mosquitto: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A connection that stays up while nothing reaches the board (a fourth
    attack left a Mosquitto doing this under a flood, for good): the board
    sends itself an echo after a minute of silence, and connects again when
    even that does not come back. The friend reaches the broker directly."""
    caplog.set_level(logging.WARNING, logger="popref")
    config = parse_config({"remote": {"broker": proxy.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    direct = replace(parse_link(sim.links[-1]), broker=mosquitto.url)
    friend = RemoteClient(direct, name="friend")
    friend.start()
    try:
        act(sim, "drop 4")
        first = friend.request("5", 1)  # heard: a move asked, made, and seen
        assert pump(sim, friend, lambda: first in friend.replies), dict(proxy.counts)
        act(sim, "drop 5", "drop 4")
        assert pump(sim, friend, lambda: seen(friend).get("ply") == 3)
        proxy.delay(1e6, count=1, direction=DOWN)  # the next message down, and all after it
        seq = friend.request("5", 3)
        held = proxy.wait_for(lambda: proxy.counts["delay"] == 1, WAIT)
        assert held, dict(proxy.counts)  # held in the proxy: the board is deaf
        sim.advance(LISTEN)  # a minute of silence: the echo goes out, and is held too
        assert sim.daemon.state()["remote"] is None
        sim.advance(ECHO_WAIT)  # no echo: a new connection, through which the request comes
        assert pump(sim, friend, lambda: seq in friend.replies)
        assert friend.replies[seq]["ok"] and sim.daemon.state()["remote"] == "5"
        assert sim.daemon.state()["moves"] == ["4", "5", "4"]
        assert any("not even its own echo" in r.getMessage() for r in caplog.records)
    finally:
        friend.close()
        sim.close()


def test_a_friend_the_broker_stops_passing_messages_to_hears_again(
    proxy: MqttProxy, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The same on the friend's side (a linked grid's too): a request left
    unanswered with nothing at all from the broker for DEAF seconds makes the
    client connect again. The board reaches the broker directly."""
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    clock = FakeClock()  # the friend's own: its patience runs out by it, not by real time
    behind = replace(parse_link(sim.links[-1]), broker=proxy.url)
    friend = RemoteClient(behind, name="friend", clock=clock)
    friend.start()
    try:
        act(sim, "drop 4")
        assert pump(sim, friend, lambda: seen(friend).get("ply") == 1)
        proxy.delay(1e6, count=1, direction=DOWN)  # the next message down, and all after it
        seq = friend.request("5", 1)
        # the board takes it; its answer is held in the proxy
        assert pump(sim, friend, lambda: sim.daemon.state()["remote"] == "5")
        assert proxy.wait_for(lambda: proxy.counts["delay"] == 1, WAIT)
        clock.advance(DEAF - 1)
        friend.resend()
        assert not friend.answered(seq) and proxy.counts["connections"] == 1
        clock.advance(1)  # DEAF with nothing heard: a new connection, and the answer through it
        assert pump(sim, friend, lambda: friend.answered(seq)), dict(proxy.counts)
        assert proxy.counts["connections"] == 2
    finally:
        friend.close()
        sim.close()
