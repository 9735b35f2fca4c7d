"""The simulated grid: physics, faults, and what its lights read back, all
through the real GPIO backend on mock pins."""

from __future__ import annotations

from typing import Any

import pytest

from engine.colour import Colour
from hardware.clock import FakeClock
from hardware.display import Alert, ColumnLight, Display, Lamp
from hardware.events import DiscEntered, DiscLeft, SensorCleared, SensorFault, SliderMoved
from hardware.sim.grid import Physics, SimGridError, build_simulated_gpio
from hardware.sim.seam import Beam

R, Y = Colour.RED, Colour.YELLOW


class Sim:
    def __init__(
        self, columns: int = 7, rows: int = 6, physics: Physics | None = None, seed: int = 0
    ) -> None:
        self.clock = FakeClock()
        self.backend, self.grid, self.lights = build_simulated_gpio(
            columns, rows, self.clock, physics=physics, seed=seed
        )
        self.backend.open(lambda: None)

    def run(self, until: float) -> list[Any]:
        """Run the grid and poll the backend at every change and deadline, as
        the daemon's loop would."""
        events: list[Any] = []
        while True:
            times = [
                t
                for t in (self.grid.next_time(), self.backend.next_deadline())
                if t is not None and t <= until
            ]
            if not times:
                break
            self.grid.run_until(min(times))
            events += self.backend.poll(self.clock())
        self.grid.run_until(until)
        return events + self.backend.poll(until)


@pytest.fixture
def sim() -> Any:
    s = Sim(physics=Physics.clean())
    yield s
    s.backend.close()


def test_discs_fall_to_the_bottom_and_stack(sim: Sim) -> None:
    sim.grid.drop(4, R)
    sim.grid.drop(4, Y, at=1.0)
    sim.grid.drop(1, R, at=2.0)
    assert sim.run(3.0) == [DiscEntered(4, 0.0), DiscEntered(4, 1.0), DiscEntered(1, 2.0)]
    assert sim.grid.rows()[-2:] == ["...Y...", "R..R..."]
    assert sim.grid.columns_content()[3] == (R, Y)


def test_a_disc_lands_only_after_its_fall_time(sim: Sim) -> None:
    sim.grid.drop(2, R)
    sim.grid.run_until(0.19)
    assert sim.grid.columns_content()[1] == ()
    # the state a page reads counts it where it lands: the referee took it
    # from the entry beam already
    assert sim.grid.rows()[-1] == "......." and sim.grid.rows(falling=True)[-1] == ".R....."
    sim.grid.run_until(0.2)
    assert sim.grid.columns_content()[1] == (R,)
    assert sim.grid.rows()[-1] == sim.grid.rows(falling=True)[-1] == ".R....."


@pytest.mark.parametrize("seed", range(40))
def test_a_disc_never_overtakes_the_one_falling_below_it(seed: int) -> None:
    """Found by the soak (issue 14, seed 4711): fall times were drawn per
    disc, so a second disc dropped 50 ms after the first could land beneath
    it. A column is one disc wide: discs stack in the order they passed the
    entry beam, which is the order the referee sees."""
    s = Sim(physics=Physics(fall=(0.15, 0.25)), seed=seed)
    s.grid.drop(3, R)
    s.grid.drop(3, Y, at=0.05)
    entered = s.run(2.0)
    assert [e.column for e in entered] == [3, 3]
    assert s.grid.columns_content()[2] == (R, Y)
    s.backend.close()


def test_pop_returns_the_bottom_disc_and_the_rest_falls(sim: Sim) -> None:
    for i, colour in enumerate([R, Y, R]):
        sim.grid.drop(5, colour, at=i * 0.5)
    sim.run(2.0)
    assert sim.grid.pop(5, at=2.0) == R
    events = sim.run(3.0)
    assert events == [DiscLeft(5, 2.0 + 0.25 - 0.03)]
    assert sim.grid.columns_content()[4] == (Y, R)


def test_impossible_actions_are_refused() -> None:
    s = Sim(columns=4, rows=4, physics=Physics.clean())
    try:
        for i in range(4):
            s.grid.drop(1, R, at=i * 0.1)
        with pytest.raises(SimGridError, match="column 1 is full"):
            s.grid.drop(1, R)
        with pytest.raises(SimGridError, match="column 2 has no disc to pop"):
            s.grid.pop(2)
        with pytest.raises(SimGridError, match="no column 5"):
            s.grid.drop(5, R)
    finally:
        s.backend.close()


def test_the_slider_empties_the_grid_within_half_a_second() -> None:
    s = Sim(physics=Physics(), seed=3)
    try:
        for i in range(12):
            s.grid.drop(1 + i % 3, R if i % 2 else Y, at=i * 0.3)
        s.run(5.0)
        s.grid.open_slider(at=5.0)
        events = s.run(5.5)
        assert events[0] == SliderMoved(open=True, at=5.0)
        left = [e for e in events if isinstance(e, DiscLeft)]
        assert sorted(e.column for e in left) == [1] * 4 + [2] * 4 + [3] * 4
        assert all(e.at < 5.5 for e in left)
        assert s.grid.columns_content() == ((),) * 7
        s.grid.drop(2, R, at=6.0)  # straight through the open slider
        through = s.run(7.0)
        assert through[0] == DiscEntered(2, 6.0)
        assert [type(e) for e in through] == [DiscEntered, DiscLeft]
        assert s.grid.columns_content()[1] == ()
    finally:
        s.backend.close()


def test_a_drop_through_the_open_slider_passes_both_beams(sim: Sim) -> None:
    sim.grid.open_slider()
    sim.grid.drop(3, R, at=1.0)
    assert sim.run(2.0) == [SliderMoved(True, 0.0), DiscEntered(3, 1.0), DiscLeft(3, 1.2)]
    sim.grid.close_slider(at=2.0)
    assert sim.run(3.0) == [SliderMoved(False, 2.0)]


@pytest.mark.parametrize("seed", range(5))
def test_rough_physics_with_bounce_still_counts_every_disc(seed: int) -> None:
    s = Sim(physics=Physics.rough(), seed=seed)
    try:
        t = 0.0
        for i in range(42):  # fill the grid, two quick drops per column at times
            column = 1 + i % 7
            s.grid.drop(column, R if i % 2 else Y, at=t)
            t += 0.05 if i % 3 else 0.4
        events = s.run(t + 1)
        entered = [e.column for e in events if isinstance(e, DiscEntered)]
        assert sorted(entered) == sorted(1 + i % 7 for i in range(42))
        assert all(len(c) == 6 for c in s.grid.columns_content())
    finally:
        s.backend.close()


def test_missed_edges_are_repaired_by_the_level_reread() -> None:
    s = Sim(physics=Physics(missed_edges=0.5), seed=1)
    try:
        for i in range(20):
            s.grid.drop(1 + i % 7, R, at=i * 1.0)
        events = s.run(25.0)
        # a missed blocking edge loses that disc (too short for a re-read to
        # see), but a missed clearing edge never leaves a beam believed blocked
        assert not any(isinstance(e, SensorFault) for e in events)
        assert all(not level for level in s.backend.inputs.levels().values())
    finally:
        s.backend.close()


def test_a_stuck_beam_is_reported_then_cleared(sim: Sim) -> None:
    sim.grid.stick_beam(Beam.ENTRY, 6, at=1.0, duration=5.0)
    events = sim.run(7.0)
    assert [type(e) for e in events] == [SensorFault, SensorCleared]
    assert events[0].sensor == "entry 6" and events[0].at == pytest.approx(4.0)


def test_button_hold_through_the_grid(sim: Sim) -> None:
    from hardware.events import ButtonHeld, ButtonPressed

    sim.grid.press_button(at=1.0)
    sim.grid.hold_button(at=3.0)
    assert sim.run(6.0) == [ButtonPressed(1.2), ButtonHeld(5.0)]


def test_the_light_reader_sees_only_what_the_pins_show(sim: Sim) -> None:
    lights = [ColumnLight()] * 7
    lights[2] = ColumnLight(Lamp.DROP, R)
    lights[4] = ColumnLight(Lamp.ERROR)
    sim.backend.show(Display(columns=tuple(lights), turn=R, scores=(4, 10), alert=Alert.ERROR))
    shown = sim.lights.shown()
    assert shown.columns == (None, None, "on", None, "on", None, None)
    assert shown.turn_red and not shown.turn_yellow and shown.buzzer
    assert shown.scores == (4, 10)
    sim.run(2.0)
    shown = sim.lights.shown()
    assert shown.blinking == {5}
    assert shown.columns[4] == "on"  # blinking, whatever its phase now
    assert not shown.buzzer
    assert shown.scores == (4, 10)  # detached dials stay where they were driven


def test_simulated_boards_of_every_size_work() -> None:
    for columns, rows in [(4, 4), (7, 6), (12, 10)]:
        s = Sim(columns, rows, Physics.clean())
        try:
            s.grid.drop(columns, R)
            assert s.run(1.0) == [DiscEntered(columns, 0.0)]
        finally:
            s.backend.close()


def test_load_puts_discs_in_place_without_any_sensor_seeing_them(sim: Sim) -> None:
    sim.grid.load([[R, Y], [], [], [], [], [], [Y]])
    assert sim.run(1.0) == []
    assert sim.grid.rows()[-1] == "R.....Y"
    assert sim.grid.pop(1) == R
    with pytest.raises(SimGridError, match="cannot load 2 columns"):
        sim.grid.load([[], []])


def test_the_configured_gpio_backend_builds_the_mapped_board(clock: FakeClock) -> None:
    from controller.daemon.config import parse_config
    from hardware.gpio_backend import gpio_backend

    config = parse_config({"board": {"backend": "gpio"}, "gpio": {"pin_factory": "mock"}}, "t")
    backend = gpio_backend(config.pin_map(), config.board.rows, clock)
    backend.open(lambda: None)
    try:
        assert (backend.columns, backend.rows, backend.pins.slider) == (7, 6, "GPIO2")
        backend.factory.pin("GPIO4").drive_low()
        clock.set(0.04)
        backend.factory.pin("GPIO4").drive_high()
        assert backend.poll(1.0) == [DiscEntered(1, 0.0)]
    finally:
        backend.close()


def test_a_colour_sensing_simulated_grid_reports_disc_colours() -> None:
    clock = FakeClock()
    backend, grid, _ = build_simulated_gpio(
        12, 10, clock, physics=Physics.clean(), colour_sensing=True
    )
    backend.open(lambda: None)
    try:
        assert backend.senses_colour
        grid.drop(1, Y)
        grid.drop(12, R, at=1.0)
        grid.drop(1, R, at=2.0)
        grid.settle()
        assert backend.poll(clock() + 1) == [
            DiscEntered(1, 0.0, Y),
            DiscEntered(12, 1.0, R),
            DiscEntered(1, 2.0, R),
        ]
    finally:
        backend.close()
