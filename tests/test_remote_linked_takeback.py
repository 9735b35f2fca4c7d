"""The agreed takeback on two linked grids against a real Mosquitto (issue
23): either grid asks, the other sees the question and agrees or declines;
only both asking takes the last move back, on both grids, each person
repairing their own; the journals end equal. A replayed word changes
nothing, and a restart mid-takeback resumes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.simulator.simulation import Simulation
from tests.broker import Mosquitto
from tests.test_remote_linked import (
    RED_WINS,
    both,
    grid_a,
    grid_b,
    linked_pair,
    play,
    same_game,
    spying,
    waits,
)
from tests.test_remote_seat import WAIT, act

pytestmark = pytest.mark.slow


def moves(sim: Simulation) -> list[str]:
    return [str(move) for move in sim.daemon.referee.game.moves]


def asked_of(sim: Simulation) -> bool:
    """Whether ``sim``'s board shows the other grid's takeback question."""
    question = sim.daemon.state()["takeback"]
    return question is not None and question["heard"] is True


def play_on(a: Simulation, b: Simulation, more: tuple[str, ...]) -> None:
    """As the linked tests' ``play``, from the moves both grids have now."""
    done = len(moves(a))
    for ply, move in enumerate(more, start=done + 1):
        owner, copier = (a, b) if ply % 2 else (b, a)
        act(owner, f"drop {move}")
        assert len(moves(owner)) == ply
        assert both(a, b, waits(copier, move)), copier.daemon.state()
        act(copier, f"drop {move}")
        assert len(moves(copier)) == ply


def repaired(sim: Simulation, column: int) -> None:
    """The person follows the lights: the disc taken back comes out."""
    state = sim.daemon.state()
    assert state["lights"][column - 1] == "error", state["status"]
    act(sim, f"pop {column}")
    assert sim.daemon.state()["fault"] is None


def agreed(a: Simulation, b: Simulation, left: list[str], column: int) -> None:
    """Yellow's grid (B) has asked; Red's (A) sees the question and agrees:
    both games are ``left``, and each person takes the disc out of ``column``."""
    assert both(a, b, lambda: asked_of(a))
    act(a, "takeback")
    assert both(a, b, lambda: moves(a) == moves(b) == left)
    for sim in (a, b):
        repaired(sim, column)


def test_an_agreed_takeback_undoes_the_move_on_both_grids_and_play_goes_on(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    with linked_pair(mosquitto, tmp_path) as (a, b):
        play(a, b, RED_WINS[:3])  # Red's 4, Yellow's 5, Red's 4 on both grids
        act(b, "takeback")  # Yellow's grid asks
        assert both(a, b, lambda: asked_of(a))
        assert (
            "The other side asks to take back Red's drop into column 4"
            in a.daemon.state()["status"]
        )
        assert moves(a) == moves(b) == ["4", "5", "4"]  # nothing until both agree
        act(a, "takeback")  # Red's grid agrees
        assert both(a, b, lambda: moves(a) == moves(b) == ["4", "5"])
        for sim in (a, b):
            repaired(sim, 4)  # the lights: take the top disc of column 4 out
        play_on(a, b, ("3", "5", "4", "5", "4", "5"))  # Red's third move again, another one
        same_game(a, b)
        assert a.daemon.state()["result"] == b.daemon.state()["result"] == "yellow"


def test_a_declined_takeback_changes_neither_game(mosquitto: Mosquitto, tmp_path: Path) -> None:
    with linked_pair(mosquitto, tmp_path) as (a, b):
        play(a, b, RED_WINS[:2])
        act(a, "takeback")
        assert both(a, b, lambda: asked_of(b))
        act(b, "decline")
        assert both(
            a,
            b,
            lambda: (
                a.daemon.state()["takeback"] is None or not a.daemon.state()["takeback"]["asked"]
            ),
        )
        assert moves(a) == moves(b) == ["4", "5"]
        play_on(a, b, RED_WINS[2:])
        same_game(a, b)


def test_asked_by_both_at_once_both_take_back_once(mosquitto: Mosquitto, tmp_path: Path) -> None:
    with linked_pair(mosquitto, tmp_path) as (a, b):
        play(a, b, RED_WINS[:2])
        act(a, "takeback")
        act(b, "takeback")
        assert both(a, b, lambda: moves(a) == moves(b) == ["4"])
        assert both(a, b, lambda: a.daemon.state()["epoch"] == b.daemon.state()["epoch"] == 1)
        for sim in (a, b):
            repaired(sim, 5)
        play_on(a, b, ("6",))
        same_game(a, b)


def test_a_replayed_takeback_word_changes_nothing(mosquitto: Mosquitto, tmp_path: Path) -> None:
    with linked_pair(mosquitto, tmp_path) as (a, b), spying(mosquitto, a) as (spy, seen):
        play(a, b, RED_WINS[:2])
        act(b, "takeback")
        agreed(a, b, ["4"], 5)
        play_on(a, b, ("5",))  # Yellow's move again, the same one
        for topic, payload in [*seen, *reversed(seen)]:  # the takeback's words among them
            spy.publish(topic, payload, qos=1).wait_for_publish(WAIT)
        # a broker keeps each topic's order: once these two moves are across,
        # every message published again before them has been taken or dropped
        play_on(a, b, ("3", "6"))
        assert moves(a) == moves(b) == ["4", "5", "3", "6"]
        assert a.daemon.state()["takeback"] is None and b.daemon.state()["takeback"] is None
        assert a.daemon.state()["epoch"] == b.daemon.state()["epoch"] == 1
        same_game(a, b)


def test_a_restart_mid_takeback_resumes_it(mosquitto: Mosquitto, tmp_path: Path) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    link = a.links[-1]
    b = grid_b(link, tmp_path / "b")
    try:
        play(a, b, RED_WINS[:3])
        act(b, "takeback")
        assert both(a, b, lambda: asked_of(a))
        a.close()  # A goes away with the question asked of it
        a = grid_a(mosquitto, tmp_path / "a")
        assert a.daemon.state()["takeback"]["heard"] is True  # journalled
        b.close()  # and B, having asked
        b = grid_b(link, tmp_path / "b")
        assert b.daemon.state()["takeback"]["asked"] is True
        act(a, "takeback")
        assert both(a, b, lambda: moves(a) == moves(b) == ["4", "5"])
        for sim in (a, b):
            repaired(sim, 4)
        play_on(a, b, ("3",))
        same_game(a, b)
    finally:
        b.close()
        a.close()


def test_a_takeback_asked_before_the_other_grid_copied_the_move_waits_for_the_copy(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """Yellow asks at once after its own move, before Red's grid has it: the
    word is for a position Red's grid has not reached; it is said again
    until Red's person copies the move, and then heard."""
    with linked_pair(mosquitto, tmp_path) as (a, b):
        play(a, b, RED_WINS[:1])
        act(b, "drop 5", "takeback")
        assert both(a, b, waits(a, "5"))
        assert not asked_of(a)  # not a question about a position A does not have
        act(a, "drop 5")
        agreed(a, b, ["4"], 5)
        play_on(a, b, ("6",))
        same_game(a, b)


def test_after_a_no_the_same_grid_may_ask_again_and_be_heard(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A declined request, then a new one at the same position: the old no,
    said again, must not answer the new question."""
    with linked_pair(mosquitto, tmp_path) as (a, b):
        play(a, b, RED_WINS[:2])
        act(a, "takeback")
        assert both(a, b, lambda: asked_of(b))
        act(b, "decline")
        assert both(a, b, lambda: a.daemon.state()["takeback"] is None)
        act(a, "takeback")  # asks again
        assert both(a, b, lambda: asked_of(b))
        guest = b.daemon.guest
        assert guest is not None and both(
            a, b, lambda: guest.deadline(0.0) is None
        )  # no more to say
        assert a.daemon.state()["takeback"]["asked"] is True  # not declined by the old no
        act(b, "takeback")
        assert both(a, b, lambda: moves(a) == moves(b) == ["4"])
        same_game(a, b)
