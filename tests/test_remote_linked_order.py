"""The joining grid against any order of arrival (docs/remote.md, "Linked
grids"): the inviting grid's signed messages of a game (its moves, its
retained states, its presence) delivered duplicated, reordered and delayed
as Hypothesis picks, fed to the guest's own message path (no broker: the
link names a port nobody listens on). A message about ply *p* can arrive
only once this grid made every one of its own moves before *p* (the
inviting grid cannot know them sooner); past that, any order. The person
at this grid copies whatever is lit and makes this grid's moves on its
turn. This grid's game is always a beginning of the inviting grid's (never
a move out of order or twice), and once everything has arrived it is the
whole game."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.daemon.config import parse_config
from controller.remote.link import Link, parse_link
from controller.remote.message import BOARD, Message, body, record_hash, seal, topics
from controller.simulator.simulation import Simulation
from engine import Colour, Game, new_game, parse_move
from tests.broker import free_port
from tests.test_remote_linked import RED_WINS
from tests.test_remote_seat import act

pytestmark = pytest.mark.slow  # two daemons for each example

Sent = tuple[int, str, bytes]  # the ply it is about, its topic, the sealed message


def invitation(state_dir: Path) -> str:
    """A link from a real inviting grid whose broker is not there."""
    url = f"mqtt://127.0.0.1:{free_port()}"
    config = parse_config({"remote": {"broker": url}}, "a.toml")
    a = Simulation(config, state_dir, "classic", remote=Colour.YELLOW)
    try:
        return a.links[-1]
    finally:
        a.close()


def messages(link: Link, moves: tuple[str, ...]) -> list[Sent]:
    """What the inviting grid says in a game of ``moves``, numbered in order:
    its presence, then after each move its ``move`` message and its retained
    state, as controller/remote/host.py words them."""
    names = topics(link.game)
    sent: list[Sent] = []

    def say(ply: int, topic: str, kind: str, value: dict[str, object]) -> None:
        message = Message(link.game, BOARD, len(sent) + 1, kind, body(value))
        sent.append((ply, topic, seal(link.key, message)))

    say(0, names.board, "presence", {"up": True, "conn": "a1"})
    game: Game = new_game("classic")
    for ply, move in enumerate(moves, start=1):
        game.play(parse_move(move))
        hashed = record_hash(game)
        say(ply, names.board, "move", {"ply": ply, "move": move, "hash": hashed})
        played = [str(m) for m in game.moves]
        say(ply, names.state, "state", {"ply": ply, "moves": played, "remote_seq": 0})
    return sent


def mine(ply: int) -> bool:
    return ply % 2 == 0  # the joining grid plays Yellow


def person(b: Simulation, moves: tuple[str, ...]) -> None:
    """The person at the joining grid: copies what is lit, else makes this
    grid's next move on its turn."""
    b.advance(0.0)
    state = b.daemon.state()
    made = len(state["moves"])
    if state["remote"] is not None:
        act(b, f"drop {state['remote']}")
    elif made < len(moves) and mine(made + 1) and state["to_move"] == "yellow":
        act(b, f"drop {moves[made]}")
    played = [str(m) for m in b.daemon.referee.game.moves]
    assert played == list(moves[: len(played)]), played
    lit = b.daemon.state()["remote"]
    assert lit is None or lit == moves[len(played)], (lit, played)


def deliverable(sent: list[Sent], b: Simulation) -> list[Sent]:
    """What the inviting grid can have said by now: nothing about a ply
    after one of this grid's moves it has not made."""
    made = len(b.daemon.referee.game.moves)
    return [m for m in sent if not any(mine(p) and p > made for p in range(1, m[0] + 1))]


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_any_order_of_arrival_applies_each_move_once_in_order(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory(prefix="popref-order-") as scratch:
        link = invitation(Path(scratch) / "a")
        config = parse_config({"remote": {"join": link}}, "b.toml")
        b = Simulation(config, Path(scratch) / "b", "classic")
        try:
            guest = b.daemon.guest
            assert guest is not None
            sent = messages(parse_link(link), RED_WINS)
            for _ in range(data.draw(st.integers(0, 60), label="arrivals")):
                ready = deliverable(sent, b)
                _, topic, payload = data.draw(st.sampled_from(ready), label="message")
                guest.client._arrived(topic, payload)
                if data.draw(st.booleans(), label="the person looks"):
                    person(b, RED_WINS)
            # then everything arrives (again), in order, as often as it takes
            for _ in range(len(RED_WINS) + 1):
                for _, topic, payload in deliverable(sent, b):
                    guest.client._arrived(topic, payload)
                    person(b, RED_WINS)
            assert [str(m) for m in b.daemon.referee.game.moves] == list(RED_WINS)
            assert record_hash(b.daemon.referee.game) == record_hash(replayed(RED_WINS))
            assert guest.diverged is None
        finally:
            b.close()


def replayed(moves: tuple[str, ...]) -> Game:
    game = new_game("classic")
    for move in moves:
        game.play(parse_move(move))
    return game
