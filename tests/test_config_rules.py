"""``[game] rules`` keeps applying once a game is saved: from the next game
on, or to the saved game itself before its first move, and the log says so."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.daemon.config import parse_config
from controller.simulator.script import parse_script
from controller.simulator.simulation import Simulation


def start(state: Path, rules: str) -> Simulation:
    return Simulation(parse_config({"game": {"rules": rules}}, "popref.toml"), state)


def act(sim: Simulation, text: str) -> None:
    for action in parse_script(text, "test"):
        sim.act(action)


def test_new_rules_apply_from_the_next_game_and_the_log_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state"
    sim = start(state, "classic")
    try:
        act(sim, "drop 4\ndrop 4")
    finally:
        sim.close()
    caplog.set_level(logging.INFO, logger="popref")
    sim = start(state, "popout")
    try:
        referee = sim.daemon.referee
        assert [str(m) for m in referee.game.moves] == ["4", "4"]  # this game goes on
        assert (referee.game.rules.name, referee.next_rules) == ("classic", "popout")
        assert "The next game will be Pop Out." in caplog.messages
        assert "(popref.toml says [game] rules = popout.)" in caplog.messages
        act(sim, "slider open\nslider close\nhold\nhold")
        assert sim.daemon.referee.game.rules.name == "popout"
    finally:
        sim.close()


def test_a_saved_game_without_moves_takes_the_new_rules_at_once(tmp_path: Path) -> None:
    state = tmp_path / "state"
    start(state, "classic").close()
    sim = start(state, "pop10")
    try:
        assert sim.daemon.referee.game.rules.name == "pop10"
    finally:
        sim.close()


def test_a_mode_button_choice_stands_while_the_configuration_is_unchanged(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    sim = start(state, "classic")
    try:
        act(sim, "press")  # before the first move: Pop Out, for this game
        assert sim.daemon.referee.game.rules.name == "popout"
    finally:
        sim.close()
    sim = start(state, "classic")
    try:
        assert sim.daemon.referee.game.rules.name == "popout"
    finally:
        sim.close()
