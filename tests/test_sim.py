"""The simulator (hardware/sim/): a backend to the daemon, and a player who
sees only the lights."""

from __future__ import annotations

from pathlib import Path

from controller.daemon.config import parse_config
from controller.simulator.script import parse_script
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from hardware.backend import Counting
from hardware.clock import FakeClock
from hardware.events import DiscEntered
from hardware.sim.backend import build_simulated
from hardware.sim.broken import BrokenLights
from hardware.sim.gpio import PinLightReader


def test_the_grid_runs_before_each_poll_and_its_times_are_deadlines() -> None:
    clock = FakeClock()
    table = build_simulated(7, 6, clock)
    backend = table.backend
    backend.open(lambda: None)
    try:
        assert backend.inner.next_deadline() == 0.5  # the GPIO inputs re-read their levels
        table.grid.drop(2, Colour.YELLOW, at=0.25)
        assert backend.next_deadline() == 0.25  # the grid's own schedule
        assert backend.poll_marked(0.2) == []
        assert backend.poll_marked(1.0) == [(DiscEntered(2, at=0.25), None)]
    finally:
        backend.close()


def test_a_gpio_board_ignores_a_sensor_board_mark() -> None:
    table = build_simulated(7, 6, FakeClock())
    assert isinstance(table.backend, Counting)
    assert not isinstance(table.backend.inner, Counting)
    table.backend.resume({"boot": 1})  # a journal written over the serial link
    assert table.board is None


def test_the_serial_link_closes_its_board_with_the_backend() -> None:
    clock = FakeClock()
    table = build_simulated(7, 6, clock, link="serial")
    assert table.board is not None and isinstance(table.backend.inner, Counting)
    table.backend.open(lambda: None)
    table.backend.close()
    assert table.board.firmware.stream.fd is None  # unplugged


# -- the simulated player ----------------------------------------------------------


def test_the_simulated_player_goes_by_the_lights_not_the_referee(tmp_path: Path) -> None:
    sim = Simulation(parse_config({"game": {"rules": "popout"}}, "test"), tmp_path)
    try:
        for text in ("drop 1", "drop 2", "pop 1"):
            (action,) = parse_script(text, "test")
            assert sim.act(action).mistakes == []
        assert sim.daemon.referee.game.to_move is Colour.YELLOW
        assert sim.asked_colour(3) is Colour.YELLOW  # the yellow turn light is lit
        assert isinstance(sim.lights, PinLightReader)
        sim.lights = BrokenLights(sim.lights, {"turn red", "turn yellow"})
        # with both turn lamps broken, all they know is that they dropped yellow last
        assert sim.asked_colour(3) is Colour.RED
        (action,) = parse_script("slider open", "test")
        sim.act(action)
        assert sim.asked_colour(3) is Colour.RED  # an empty grid: Red starts
    finally:
        sim.close()
