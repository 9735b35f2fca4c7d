"""A house rule changed between two runs (``[game] repetition``,
``both_lines``) reaches the next game, never the game already in progress:
the journal keeps the game's own, so a restart replays its moves under the
rules they were played by. Before, the resumed game took the new
configuration's, and a Pop Out game whose start position had come round
again came back drawn, its later moves turned into a repair."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.daemon.config import parse_config
from controller.simulator.script import parse_line
from controller.simulator.simulation import Simulation

# Pop Out: each pops a disc of its own back out, and the position after the
# first two moves comes round again (its second time: a draw under
# repetition = 2; the grid is never empty, which would be a draw of its own)
AROUND = ["drop 4", "drop 5", "drop 4", "drop 5", "pop 4", "pop 5", "drop 1", "drop 2"]
MOVES = ["4", "5", "4", "5", "p4", "p5", "1", "2"]


def table(state_dir: Path, **game: Any) -> Simulation:
    return Simulation(parse_config({"game": {"rules": "popout", **game}}, "test.toml"), state_dir)


def act(sim: Simulation, *lines: str) -> dict[str, Any]:
    for number, line in enumerate(lines, start=1):
        action = parse_line(line, number, "test")
        assert action is not None
        sim.act(action)
    state: dict[str, Any] = sim.daemon.state()
    return state


def both_lines(sim: Simulation) -> str:
    """Who wins a pop that completes lines for both, in the game in progress."""
    return sim.daemon.referee.game.rules.both_lines


def test_a_changed_repetition_rule_waits_for_the_next_game(tmp_path: Path) -> None:
    sim = table(tmp_path)
    played = act(sim, *AROUND)
    assert played["moves"] == MOVES and played["result"] is None
    sim.close()
    sim = table(tmp_path, repetition=2)
    try:
        resumed = sim.daemon.state()
        assert resumed["moves"] == played["moves"] and resumed["result"] is None
        assert resumed["fault"] is None and resumed["grid"] == played["grid"]
        assert sim.daemon.referee.game.rules.repetition is None  # the game's own
        # the next game is the configuration's: the same moves now draw
        act(sim, "slider open", "slider close", "hold")  # abandoned: a new game
        drawn = act(sim, *AROUND[:6])
        assert drawn["moves"] == MOVES[:6] and drawn["result"] == "draw"
    finally:
        sim.close()


def test_a_changed_rule_on_both_lines_waits_for_the_next_game(tmp_path: Path) -> None:
    sim = table(tmp_path, both_lines="opponent")
    act(sim, "drop 4")
    sim.close()
    sim = table(tmp_path)
    try:
        assert both_lines(sim) == "opponent"
        act(sim, "slider open", "slider close", "hold")  # abandoned: a new game
        assert both_lines(sim) == "popper"
    finally:
        sim.close()
