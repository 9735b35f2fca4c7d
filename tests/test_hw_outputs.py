"""Outputs on MockFactory pins (MockPWMPin for servos): lights, blink, bars,
servo dials with detach, buzzer beeps, degrading to what exists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.colour import Colour
from hardware.clock import FakeClock
from hardware.display import Alert, ColumnLight, Display, Lamp
from hardware.outputs import GpioOutputs
from hardware.pinmap import PinMap
from hardware.sim.gpio import PinLightReader

# every GPIO of the header but GPIO0/1 (the HAT EEPROM's, refused): no pin is
# left for Yellow's turn light, and the buzzer takes its GPIO15
FULL = {
    "entry": [4, 5],
    "exit": [6, 7],
    "slider": 2,
    "button": 3,
    "column_rgb": [[8, 9, 10], [11, 12, 13]],
    "turn_red": 14,
    "score_red_bar": [16, 17, 18, 19, 20, 21, 22, 23, 24, 25],
    "score_red_servo": 26,
    "score_yellow_servo": 27,
    "buzzer": 15,
}


def lamps(*lights: ColumnLight, **kwargs: Any) -> Display:
    return Display(columns=lights, **kwargs)


class Outputs:
    def __init__(self, factory: Any, clock: FakeClock, pins: PinMap) -> None:
        self.factory, self.clock = factory, clock
        self.outputs = GpioOutputs(pins, factory, clock)
        self.outputs.open()

    def state(self, pin: Any) -> float:
        return float(self.factory.pin(pin).state)

    def at(self, t: float) -> None:
        self.clock.set(t)
        self.outputs.poll(t)


@pytest.fixture
def plain(mock_factory: Any, clock: FakeClock) -> Iterator[Outputs]:
    o = Outputs(mock_factory, clock, PinMap.default())
    yield o
    o.outputs.close()


@pytest.fixture
def full(mock_factory: Any, clock: FakeClock) -> Iterator[Outputs]:
    o = Outputs(mock_factory, clock, PinMap.parse(FULL, 2))
    yield o
    o.outputs.close()


def dark7(**changes: ColumnLight) -> tuple[ColumnLight, ...]:
    return tuple(changes.get(f"c{i}", ColumnLight()) for i in range(1, 8))


def test_plain_column_lights_and_turn_lights(plain: Outputs) -> None:
    plain.outputs.show(
        lamps(*dark7(c1=ColumnLight(Lamp.DROP), c3=ColumnLight(Lamp.WINNING)), turn=Colour.YELLOW)
    )
    assert [plain.state(p) for p in PinMap.default().column_lights] == [1, 0, 1, 0, 0, 0, 0]
    assert (plain.state(14), plain.state(15)) == (0, 1)
    assert plain.outputs.next_deadline() is None  # nothing blinks: no timer


def test_error_blinks_fast_and_chosen_slowly_on_the_blink_clock(plain: Outputs) -> None:
    plain.outputs.show(lamps(*dark7(c1=ColumnLight(Lamp.ERROR), c2=ColumnLight(Lamp.CHOSEN))))
    seen = []
    while plain.clock() < 1.0:
        seen.append((plain.state(16), plain.state(20)))
        plain.at(plain.outputs.next_deadline() or 99)
    assert [s[0] for s in seen] == [1, 0] * 4  # fast: 0.125 s phases
    assert [s[1] for s in seen] == [1, 1, 0, 0] * 2  # slow: 0.25 s phases (hardware.looks)


def test_show_is_idempotent(plain: Outputs) -> None:
    display = lamps(*dark7(c1=ColumnLight(Lamp.ERROR)))
    plain.outputs.show(display)
    plain.at(0.125)
    changes = len(plain.factory.pin(16).states)
    plain.outputs.show(display)  # the same state again: the blink phase is kept
    assert len(plain.factory.pin(16).states) == changes
    assert plain.outputs.next_deadline() == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("light", "rgb"),
    [
        (ColumnLight(Lamp.DROP, Colour.RED), (1, 0, 0)),
        (ColumnLight(Lamp.DROP_OR_POP, Colour.YELLOW), (1, 1, 0)),
        (ColumnLight(Lamp.DROP), (1, 1, 1)),
        (ColumnLight(Lamp.ERROR, Colour.RED), (0, 0, 1)),
        (ColumnLight(Lamp.WINNING, Colour.RED), (0, 1, 1)),
        (ColumnLight(Lamp.OFF, Colour.RED), (0, 0, 0)),
    ],
)
def test_rgb_lamp_colours(full: Outputs, light: ColumnLight, rgb: tuple[int, ...]) -> None:
    full.outputs.show(lamps(light, ColumnLight()))
    assert tuple(full.state(p) for p in (8, 9, 10)) == rgb


def test_score_bars_light_one_led_per_point(full: Outputs) -> None:
    full.outputs.show(lamps(ColumnLight(), ColumnLight(), scores=(3, 7)))
    assert [full.state(p) for p in range(16, 26)] == [1, 1, 1] + [0] * 7
    full.outputs.show(lamps(ColumnLight(), ColumnLight(), scores=None))
    assert [full.state(p) for p in range(16, 26)] == [0] * 10


def test_servo_dials_move_then_detach_after_settling(full: Outputs) -> None:
    full.outputs.show(lamps(ColumnLight(), ColumnLight(), scores=(5, 10)))
    assert full.state(26) == pytest.approx(0.075)  # 0 degrees: 1.5 ms at 50 Hz
    assert full.state(27) == pytest.approx(0.10)  # +90 degrees: 2 ms
    assert full.outputs.next_deadline() == pytest.approx(0.6)
    full.at(0.59)
    assert full.state(26) > 0
    full.at(0.6)
    assert (full.state(26), full.state(27)) == (0, 0)  # detached: no pulses, no jitter
    assert full.outputs.next_deadline() is None
    full.outputs.show(lamps(ColumnLight(), ColumnLight(), scores=(5, 10)))
    assert full.state(26) == 0  # the same score does not wake the servo again


def test_buzzer_beeps_once_for_an_error_three_times_for_a_win(full: Outputs) -> None:
    full.outputs.show(lamps(ColumnLight(), ColumnLight(), alert=Alert.ERROR))
    assert full.state(15) == 1
    full.at(0.1)
    assert full.state(15) == 0 and full.outputs.next_deadline() is None
    full.at(1.0)
    full.outputs.show(lamps(ColumnLight(), ColumnLight(), alert=Alert.WIN))
    pattern = []
    while (t := full.outputs.next_deadline()) is not None:
        pattern.append(full.state(15))
        full.at(t)
    pattern.append(full.state(15))
    assert pattern == [1, 0, 1, 0, 1, 0]


def test_a_board_with_only_sensors_accepts_any_display(mock_factory: Any, clock: FakeClock) -> None:
    pins = PinMap.parse({"entry": [4, 5], "exit": [6, 7], "slider": 2, "button": 3}, 2)
    outputs = GpioOutputs(pins, mock_factory, clock)
    outputs.open()
    outputs.show(
        lamps(
            ColumnLight(Lamp.ERROR), ColumnLight(), turn=Colour.RED, scores=(1, 2), alert=Alert.WIN
        )
    )
    assert outputs.next_deadline() is None
    outputs.close()


def test_close_turns_everything_off(full: Outputs) -> None:
    full.outputs.show(
        lamps(
            ColumnLight(Lamp.DROP, Colour.RED),
            ColumnLight(Lamp.DROP),
            turn=Colour.RED,
            scores=(10, 10),
            alert=Alert.ERROR,
        )
    )
    full.outputs.close()
    assert all(full.state(p) == 0 for p in [8, 11, 12, 13, 14, 16, 25, 1])


def test_servo_range_is_the_part_of_the_servos_travel_a_dial_sweeps(
    mock_factory: Any, clock: FakeClock
) -> None:
    """[-45, 45] is a quarter turn each way of the middle, not the whole
    travel relabelled: 0 points at 1.25 ms, 10 at 1.75 ms (a maker's dial
    drawn on a quarter circle)."""
    dials = {k: v for k, v in FULL.items() if k != "score_red_bar"}
    pins = PinMap.parse({**dials, "servo_range": [-45, 45]}, 2)
    quarter = Outputs(mock_factory, clock, pins)
    try:
        quarter.outputs.show(lamps(ColumnLight(), ColumnLight(), scores=(0, 10)))
        assert quarter.state(26) == pytest.approx(1.25 / 20)
        assert quarter.state(27) == pytest.approx(1.75 / 20)
        # the simulated grid reads the dials back as the scores they show
        quarter.outputs.show(lamps(ColumnLight(), ColumnLight(), scores=(3, 8)))
        assert PinLightReader(pins, mock_factory, clock).shown().scores == (3, 8)
    finally:
        quarter.outputs.close()
