"""Two linked grids against a real Mosquitto (tests/broker.py): grid A
invites (``--remote yellow``), grid B joins with its link (``--join``), each
a whole daemon on its simulated grid, in one process. Each person copies the
other grid's moves; both journals end with the same game."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.daemon.config import parse_config
from controller.referee.commands import RulesChosen
from controller.remote.link import parse_link
from controller.remote.message import record_hash, topics
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from tests.broker import Mosquitto
from tests.test_remote_seat import WAIT, act

pytestmark = pytest.mark.slow

Table = dict[str, Any]  # a TOML table, as parse_config reads it

# a short Classic game Red wins in column 4: Red's moves on A, Yellow's on B
RED_WINS = ("4", "5", "4", "5", "4", "5", "4")


def grid_a(
    mosquitto: Mosquitto, state_dir: Path, rules: str = "classic", board: Table | None = None
) -> Simulation:
    config = parse_config({"remote": {"broker": mosquitto.url}, "board": board or {}}, "a.toml")
    return Simulation(config, state_dir, rules, remote=Colour.YELLOW)


def grid_b(link: str, state_dir: Path, board: Table | None = None) -> Simulation:
    config = parse_config({"remote": {"join": link}, "board": board or {}}, "b.toml")
    return Simulation(config, state_dir, parse_link(link).rules)


@contextmanager
def linked_pair(
    mosquitto: Mosquitto, tmp_path: Path, rules: str = "classic", board: Table | None = None
) -> Iterator[tuple[Simulation, Simulation]]:
    """Grid A inviting, grid B joining with its link, once the link is up."""
    a = grid_a(mosquitto, tmp_path / "a", rules, board)
    b = grid_b(a.links[-1], tmp_path / "b", board)
    try:
        assert both(a, b, lambda: linked(a, b))
        yield a, b
    finally:
        b.close()
        a.close()


@pytest.fixture
def grids(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[tuple[Simulation, Simulation]]:
    with linked_pair(mosquitto, tmp_path) as pair:
        yield pair


def both(a: Simulation, b: Simulation, done: Callable[[], bool]) -> bool:
    """Run both daemons in real time until ``done()``; False after WAIT seconds."""
    for _ in range(int(WAIT / 0.05)):
        if done():
            return True
        a.wait_real(0.025)
        b.wait_real(0.025)
    return done()


def linked(a: Simulation, b: Simulation) -> bool:
    return bool(a.daemon.state()["link"] == b.daemon.state()["link"] == "up")


def waits(sim: Simulation, move: str) -> Callable[[], bool]:
    return lambda: sim.daemon.state()["remote"] == move


def play(a: Simulation, b: Simulation, moves: tuple[str, ...]) -> None:
    """Each move made on its owner's grid, then copied on the other's."""
    for ply, move in enumerate(moves, start=1):
        owner, copier = (a, b) if ply % 2 else (b, a)
        act(owner, f"drop {move}")
        assert len(owner.daemon.referee.game.moves) == ply
        assert both(a, b, waits(copier, move)), copier.daemon.state()
        act(copier, f"drop {move}")
        assert len(copier.daemon.referee.game.moves) == ply


def same_game(a: Simulation, b: Simulation) -> None:
    game_a, game_b = a.daemon.referee.game, b.daemon.referee.game
    assert record_hash(game_a) == record_hash(game_b)
    assert a.daemon.remote is not None and b.daemon.guest is not None
    assert a.daemon.remote.diverged is None and b.daemon.guest.diverged is None


def test_a_whole_game_ends_with_the_same_record_on_both_grids(
    grids: tuple[Simulation, Simulation],
) -> None:
    a, b = grids
    play(a, b, RED_WINS)
    same_game(a, b)
    for sim in grids:
        state = sim.daemon.state()
        assert state["result"] == "red" and state["link"] == "up"
        assert state["remote"] is None


def test_a_wrongly_copied_move_is_repaired_not_committed(
    grids: tuple[Simulation, Simulation],
) -> None:
    a, b = grids
    act(a, "drop 4")
    assert both(a, b, waits(b, "4"))
    act(b, "drop 3 red")  # not the move lit
    assert not b.daemon.referee.game.moves and b.daemon.state()["remote"] == "4"
    act(b, "pop 3", "drop 4")
    assert len(b.daemon.referee.game.moves) == 1
    act(b, "drop 5")  # Yellow's own, on B
    assert both(a, b, waits(a, "5"))
    assert len(a.daemon.referee.game.moves) == 1  # lit on A, not made yet
    act(a, "drop 5")
    same_game(a, b)


def test_a_local_move_before_the_other_grid_s_is_a_mistake(
    grids: tuple[Simulation, Simulation],
) -> None:
    a, b = grids
    act(b, "drop 2 yellow")  # Red, on A, has not moved
    assert not b.daemon.referee.game.moves
    act(b, "pop 2")
    play(a, b, RED_WINS[:2])
    same_game(a, b)


@contextmanager
def spying(mosquitto: Mosquitto, a: Simulation) -> Iterator[tuple[Any, list[tuple[str, bytes]]]]:
    """A broker client of the test's own, recording every message on the
    board and remote topics of A's game, to publish them again."""
    seen: list[tuple[str, bytes]] = []
    game = parse_link(a.links[-1]).game
    spy = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="spy")
    spy.on_message = lambda client, userdata, message: seen.append(
        (message.topic, bytes(message.payload))
    )
    spy.connect("127.0.0.1", mosquitto.port)
    spy.subscribe([(topics(game).board, 1), (topics(game).remote, 1)])
    spy.loop_start()
    try:
        yield spy, seen
    finally:
        spy.loop_stop()
        spy.disconnect()


def test_replayed_and_duplicated_messages_are_ignored(
    mosquitto: Mosquitto, grids: tuple[Simulation, Simulation]
) -> None:
    a, b = grids
    game = parse_link(a.links[-1]).game
    with spying(mosquitto, a) as (spy, seen):
        play(a, b, RED_WINS[:4])
        for topic, payload in seen * 2:  # every message again, twice, in its order
            spy.publish(topic, payload, qos=1).wait_for_publish(WAIT)
        for topic, payload in reversed(seen):  # and backwards
            spy.publish(topic, payload, qos=1).wait_for_publish(WAIT)
        spy.publish(topics(game).board, b"{}", qos=1).wait_for_publish(WAIT)  # a marker
        assert both(
            a, b, lambda: b.daemon.guest is not None and not b.daemon.guest.client.unanswered()
        )
        assert len(a.daemon.referee.game.moves) == len(b.daemon.referee.game.moves) == 4
        assert a.daemon.state()["remote"] is None and b.daemon.state()["remote"] is None
        same_game(a, b)


def test_a_broker_restart_shows_the_link_down_then_heals(
    mosquitto: Mosquitto, grids: tuple[Simulation, Simulation]
) -> None:
    a, b = grids
    play(a, b, RED_WINS[:2])
    mosquitto.stop()
    assert both(a, b, lambda: a.daemon.state()["link"] == b.daemon.state()["link"] == "down")
    assert "link" in (b.daemon.state()["fault"] or "")
    mosquitto.start()
    assert both(a, b, lambda: linked(a, b))
    act(a, "drop 4")
    assert both(a, b, waits(b, "4"))
    act(b, "drop 4")
    same_game(a, b)


def test_either_grid_restarted_mid_game_resumes_with_nothing_lost(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    link = a.links[-1]
    b = grid_b(link, tmp_path / "b")
    try:
        play(a, b, RED_WINS[:2])
        act(a, "drop 4")  # Red's third, not yet seen on B
        b.close()
        b = grid_b(link, tmp_path / "b")
        assert both(a, b, waits(b, "4"))
        act(b, "drop 4", "drop 5")
        a.close()
        a = grid_a(mosquitto, tmp_path / "a")
        assert a.links[-1] == link  # the same invitation, resumed
        assert both(a, b, waits(a, "5"))
        act(a, "drop 5")
        same_game(a, b)
    finally:
        b.close()
        a.close()


def spent(sim: Simulation) -> Callable[[], bool]:
    return lambda: sim.daemon.guest is not None and sim.daemon.guest.spent


def following(sim: Simulation, link: str) -> Callable[[], bool]:
    """The grid plays ``link``'s game now, with no spent link."""
    return lambda: (
        sim.daemon.guest is not None
        and not sim.daemon.guest.spent
        and sim.daemon.guest.link == parse_link(link)
    )


def test_a_new_game_on_the_joined_grid_takes_none_of_the_linked_game_s_moves(
    grids: tuple[Simulation, Simulation],
) -> None:
    """The link names one game: once it is over, a new game on the grid that
    joined takes none of its moves (a new user's B replayed the old game's
    moves as the other grid's). It waits for the other grid's next game,
    which the same link leads to, and joins it once that grid begins it."""
    a, b = grids
    play(a, b, RED_WINS)
    act(b, "slider open", "slider close")  # B's next game, before A's
    assert b.daemon.referee.remote.invitation is None
    guest = b.daemon.guest
    assert guest is not None and guest.waits(b.daemon.referee) and not guest.spent
    assert "joins its next game when that grid begins it" in str(b.daemon.state()["status"])
    act(a, "slider open", "slider close")  # A's next game, on the same link
    assert both(a, b, following(b, a.links[-1]))
    assert both(a, b, lambda: linked(a, b))
    state = b.daemon.state()
    assert state["moves"] == [] and state["fault"] is None
    assert "began its next game on the same link" in str(state["status"])
    play(a, b, RED_WINS[:2])
    act(a, "hold", "hold")  # A abandons that game: a new link, which B is not given
    assert both(a, b, spent(b))
    assert b.daemon.state()["link"] == "down"
    assert "join the link of its next game" in str(b.daemon.display().fault)


def test_an_old_link_leads_on_to_the_other_grid_s_next_games(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A finished game's link, given to a fresh grid after the other grid
    moved on, leads to the game that grid began next on it, link after
    link; where that grid abandoned a game, the link is spent, and said so
    (not "the link is down" for ever)."""
    with linked_pair(mosquitto, tmp_path) as (a, b):
        play(a, b, RED_WINS)
        old = a.links[-1]
        act(a, "slider open", "slider close")  # A's next game, on the same link
        late = grid_b(old, tmp_path / "late")
        try:
            assert both(a, late, following(late, a.links[-1]))
        finally:
            late.close()
        act(a, "drop 4", "hold", "hold")  # A abandons it midway: a new link
        late = grid_b(old, tmp_path / "later")
        try:
            assert both(a, late, spent(late))
            assert late.daemon.referee.remote.invitation is None
            assert "link is spent" in str(late.daemon.display().fault)
        finally:
            late.close()


def test_a_grid_away_when_the_next_game_began_follows_it_all_the_same(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The finished game's last word names the next game. A broker that lost
    its retained messages (restarted without persistence) while B was away
    is told it again by A, with A's state, so B, back, still follows."""
    a = grid_a(mosquitto, tmp_path / "a")
    first = a.links[-1]
    b = grid_b(first, tmp_path / "b")
    try:
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS)
        b.close()
        act(a, "slider open", "slider close")  # A's next game, with B away
        mosquitto.restart()  # nothing retained
        remote = a.daemon.remote
        assert remote is not None
        assert both(a, a, lambda: remote.connection.connected.is_set())
        b = grid_b(first, tmp_path / "b")  # B's configuration names the first link still
        assert both(a, b, following(b, a.links[-1]))
        act(b, "slider open", "slider close")
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS[:2])
    finally:
        b.close()
        a.close()


def test_a_grid_killed_before_the_finished_game_s_last_word_went_out_says_it_once_back(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A killed between journalling its next game and publishing the finished
    game's last word, which names that game: back, A had only its journal,
    which holds the next game, so B waited for it for good. The finished
    game's last state, kept on disk, gives the word again."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(a.links[-1], tmp_path / "b")
    try:
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS)
        mosquitto.stop()  # the last word cannot go out...
        act(a, "slider open", "slider close")  # ...when A's next game is journalled
        a.close()  # and A dies with it unsaid
        mosquitto.start()  # a broker that retained nothing
        a = grid_a(mosquitto, tmp_path / "a")
        assert both(a, b, following(b, a.links[-1]))
        act(b, "slider open", "slider close")
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS[:2])
        same_game(a, b)
    finally:
        b.close()
        a.close()


def test_rules_chosen_on_the_inviting_grid_before_the_first_move_are_played_on_both(
    grids: tuple[Simulation, Simulation],
) -> None:
    """A's owner chose Pop Out after B had joined with a Classic link (or
    followed one): the two grids played two games from the first move on,
    said only as a divergence. B's game, not begun, takes A's rules."""
    a, b = grids
    a.daemon.submit(RulesChosen("popout"))  # as A's page chooses them
    assert both(a, b, lambda: a.daemon.referee.game.rules.name == "popout")
    assert both(a, b, lambda: b.daemon.referee.game.rules.name == "popout")
    said = "The other grid chose Pop Out for this game: this grid plays it too."
    assert said in str(b.daemon.state()["status"])
    play(a, b, RED_WINS)
    same_game(a, b)
    assert a.daemon.state()["result"] == b.daemon.state()["result"] == "red"


def test_the_joined_grid_does_not_abandon_a_linked_game_in_progress(
    grids: tuple[Simulation, Simulation],
) -> None:
    """A hold on B would part the grids (a new user's B began a new game and
    replayed A's moves against its own): it is refused with the reason, and
    the game goes on on both grids."""
    a, b = grids
    play(a, b, RED_WINS[:2])
    act(b, "hold", "hold")
    assert [str(m) for m in b.daemon.referee.game.moves] == ["4", "5"]
    assert not b.daemon.referee.abandon_armed
    play_from = RED_WINS[2:]
    act(a, f"drop {play_from[0]}")
    assert both(a, b, waits(b, play_from[0]))


def test_a_grid_given_the_next_link_mid_game_ends_the_old_game_and_joins(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A abandoned and gave B its new link; B, restarted with it, had the
    old game in its journal, held to the old link and could not leave it.
    Now B's old game is its own (the fault says to hold the button), and a
    new game there is the new link's."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(a.links[-1], tmp_path / "b")
    try:
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS[:2])
        act(a, "hold", "hold")  # A abandons: a new game, a new link
        assert a.daemon.referee.not_begun()
        b.close()
        b = grid_b(a.links[-1], tmp_path / "b")
        assert both(a, b, lambda: b.daemon.referee.remote.invitation is None)
        assert "hold the mode button" in str(b.daemon.display().fault)
        act(b, "hold", "hold")  # the old game ends here too
        for grid in (a, b):
            act(grid, "slider open", "slider close")  # each grid emptied for the new game
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS[:1])
        same_game(a, b)
    finally:
        b.close()
        a.close()


def test_each_grid_s_state_says_which_joined_which(mosquitto: Mosquitto, tmp_path: Path) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    published: list[dict[str, Any]] = []
    a.daemon.on_state = published.append
    b = grid_b(a.links[-1], tmp_path / "b")
    try:
        assert both(a, b, lambda: linked(a, b) and a.daemon.state()["linked"] == "inviting")
        assert both(a, b, lambda: published[-1]["linked"] == "inviting")  # the page learns it
        assert b.daemon.state()["linked"] == "joined"
    finally:
        b.close()
        a.close()


def test_a_lost_broker_is_said_in_words_not_paho_s_unspecified_error(
    mosquitto: Mosquitto, grids: tuple[Simulation, Simulation], caplog: pytest.LogCaptureFixture
) -> None:
    a, b = grids
    caplog.set_level(logging.WARNING, logger="popref")
    mosquitto.stop()
    assert both(a, b, lambda: a.daemon.state()["link"] == b.daemon.state()["link"] == "down")
    said = [
        record.getMessage() for record in caplog.records if "trying again" in record.getMessage()
    ]
    assert said and all(line.endswith(": the connection ended; trying again.") for line in said)


def test_the_grid_that_joins_plays_the_inviting_grid_s_house_rules(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    house = {"repetition": 3, "both_lines": "opponent"}
    config = parse_config({"remote": {"broker": mosquitto.url}, "game": house}, "a.toml")
    a = Simulation(config, tmp_path / "a", "popout", remote=Colour.YELLOW)
    b = grid_b(a.links[-1], tmp_path / "b")
    try:
        assert both(a, b, lambda: linked(a, b))
        table = b.daemon.referee.table
        assert (table.repetition, table.both_lines) == (3, "opponent")
        assert b.daemon.referee.game.rules.name == "popout"
    finally:
        b.close()
        a.close()
