"""Linked grids in Pop 10 and Pop Out (tests/test_remote_linked.py plays
Classic): pops are copied across like drops, a Pop 10 player who scores
moves again, and both grids end with the same moves, scores and result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.remote.link import parse_link
from controller.simulator.simulation import Simulation
from engine import Colour, new_game, parse_move
from tests.broker import Mosquitto
from tests.test_remote_linked import both, linked_pair, same_game, waits
from tests.test_remote_seat import act

pytestmark = pytest.mark.slow

BOARD = {"columns": 4, "rows": 4}
# random legal games (seeded), kept as records: a Pop 10 game in which each
# player has scored once (Red's p4, Yellow's p1; a 4 x 4 grid holds too few
# discs of a colour for 10), and a Pop Out game Red wins
POP10 = "3 2 4 1 4 1 3 2 4 3 2 1 2 1 4 3 p4 p3 4 p1"
POPOUT = (
    "4 4 1 3 p1 4 4 3 p4 3 2 p3 2 3 2 1 p2 p4 3 p3 p2 2 3 1 1 p4 4 p1 p4 1 4 p1 4 2 p2 p2 p1 p2 4"
)


@pytest.fixture
def grids(
    request: pytest.FixtureRequest, mosquitto: Mosquitto, tmp_path: Path
) -> Iterator[tuple[Simulation, Simulation]]:
    with linked_pair(mosquitto, tmp_path, request.param, BOARD) as pair:
        assert parse_link(pair[0].links[-1]).rules == request.param
        yield pair


def physical(move: str) -> str:
    return f"pop {move[1:]}" if move.startswith("p") else f"drop {move}"


def play(a: Simulation, b: Simulation, rules: str, record: str) -> None:
    """Each move made on the grid of the colour to move, then copied on the
    other (a Pop 10 player who scored moves again, on the same grid)."""
    game = new_game(rules, (BOARD["columns"], BOARD["rows"]))
    for ply, move in enumerate(record.split(), start=1):
        owner, copier = (a, b) if game.to_move is Colour.RED else (b, a)
        game.play(parse_move(move))
        act(owner, physical(move))
        assert len(owner.daemon.referee.game.moves) == ply, owner.daemon.state()
        assert both(a, b, waits(copier, move)), copier.daemon.state()
        act(copier, physical(move))
        assert len(copier.daemon.referee.game.moves) == ply, copier.daemon.state()


def agree(a: Simulation, b: Simulation, record: str) -> dict[str, object]:
    same_game(a, b)
    state_a, state_b = a.daemon.state(), b.daemon.state()
    for key in ("moves", "scores", "result", "to_move", "board"):
        assert state_a[key] == state_b[key], key
    assert state_a["moves"] == record.split()
    return state_a


@pytest.mark.parametrize("grids", ["pop10"], indirect=True)
def test_a_pop10_game_scores_the_same_on_both_grids(grids: tuple[Simulation, Simulation]) -> None:
    a, b = grids
    play(a, b, "pop10", POP10)
    state = agree(a, b, POP10)
    assert state["scores"] == {"red": 1, "yellow": 1} and state["result"] is None


@pytest.mark.parametrize("grids", ["popout"], indirect=True)
def test_a_popout_game_ends_with_the_same_result_on_both_grids(
    grids: tuple[Simulation, Simulation],
) -> None:
    a, b = grids
    play(a, b, "popout", POPOUT)
    assert agree(a, b, POPOUT)["result"] == "red"
