"""The simulated grid as a backend: the daemon sees only backends."""

from __future__ import annotations

import doctest
import importlib

import pytest

from engine.colour import Colour
from hardware.backend import Counting
from hardware.clock import FakeClock
from hardware.events import DiscEntered
from hardware.sim.backend import build_simulated


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


@pytest.mark.parametrize(
    "name",
    ["hardware.sim.backend", "hardware.sim.grid", "hardware.sim.gpio", "hardware.sim.mockpins"],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
