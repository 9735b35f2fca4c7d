"""Sensors on gpiozero's MockFactory pins, through GpioInputs/GpioBackend."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.colour import Colour
from hardware.clock import FakeClock
from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    DiscEntered,
    DiscLeft,
    SensorCleared,
    SensorFault,
    SliderMoved,
)
from hardware.gpio_backend import GpioBackend
from hardware.pinmap import PinMap

ENTRY3, EXIT5, SLIDER, BUTTON = "GPIO27", "GPIO24", "GPIO2", "GPIO3"


class Board:
    """A GpioBackend on the mock factory, and helpers that move its pins at
    given clock times."""

    def __init__(self, factory: Any, clock: FakeClock, pins: PinMap) -> None:
        self.factory, self.clock = factory, clock
        self.wakes = 0
        self.backend = GpioBackend(pins, factory, clock)
        self.backend.open(self.wake)

    def wake(self) -> None:
        self.wakes += 1

    def level(self, pin: str, high: bool, at: float) -> None:
        self.clock.set(at)
        mock = self.factory.pin(pin)
        mock.drive_high() if high else mock.drive_low()

    def poll(self, at: float) -> list[Any]:
        self.clock.set(at)
        return self.backend.poll(at)


@pytest.fixture
def board(mock_factory: Any, clock: FakeClock) -> Iterator[Board]:
    b = Board(mock_factory, clock, PinMap.default())
    yield b
    b.backend.close()


def test_idle_board_has_no_events_and_only_the_reread_deadline(board: Board) -> None:
    assert board.poll(0.0) == []
    assert board.backend.next_deadline() == 0.5


def test_callbacks_only_record_and_wake(board: Board) -> None:
    board.level(ENTRY3, False, 1.0)
    board.level(ENTRY3, True, 1.04)
    assert board.wakes == 2
    assert len(board.backend.inputs._raw) == 2  # nothing debounced on the pin's thread


@pytest.mark.parametrize(
    ("pin", "event"),
    [
        (ENTRY3, DiscEntered(3, 1.0)),
        (EXIT5, DiscLeft(5, 1.0)),
        ("GPIO4", DiscEntered(1, 1.0)),
        ("GPIO12", DiscLeft(7, 1.0)),
    ],
)
def test_each_beam_passage_is_one_event(board: Board, pin: str, event: Any) -> None:
    for high, at in [(False, 1.0), (True, 1.001), (False, 1.003), (True, 1.04)]:
        board.level(pin, high, at)
    assert board.poll(1.04) == []
    deadline = board.backend.next_deadline()
    assert deadline == pytest.approx(1.048)
    assert board.poll(1.045) == []
    assert board.poll(deadline or 0) == [event]


def test_two_discs_60ms_apart_in_one_column_are_two_events(board: Board) -> None:
    for high, at in [(False, 0.0), (True, 0.04), (False, 0.06), (True, 0.1)]:
        board.level(ENTRY3, high, at)
    assert board.poll(0.2) == [DiscEntered(3, 0.0), DiscEntered(3, 0.06)]


def test_events_from_several_sensors_come_oldest_first(board: Board) -> None:
    board.level(EXIT5, False, 0.0)
    board.level(ENTRY3, False, 0.01)
    board.level(ENTRY3, True, 0.03)
    board.level(EXIT5, True, 0.05)
    assert board.poll(0.2) == [DiscLeft(5, 0.0), DiscEntered(3, 0.01)]


def test_slider_open_and_close_with_bounce(board: Board) -> None:
    for high, at in [(False, 1.0), (True, 1.002), (False, 1.004)]:
        board.level(SLIDER, high, at)
    assert board.poll(1.02) == [SliderMoved(open=True, at=1.0)]
    board.level(SLIDER, True, 2.0)
    assert board.poll(2.02) == [SliderMoved(open=False, at=2.0)]


def test_button_press_and_hold(board: Board) -> None:
    board.level(BUTTON, False, 1.0)
    board.level(BUTTON, True, 1.3)
    assert board.poll(1.4) == [ButtonPressed(1.3)]
    board.level(BUTTON, False, 5.0)
    t = 5.0
    while t < 7.0:  # poll at each deadline, as the daemon does
        assert board.poll(t) == []
        t = board.backend.next_deadline() or 99.0
    assert t == pytest.approx(7.0)
    assert board.poll(t) == [ButtonHeld(7.0)]
    board.level(BUTTON, True, 9.0)
    assert board.poll(9.1) == []


def test_a_stuck_beam_is_a_fault_with_advice_then_cleared(board: Board) -> None:
    board.level(EXIT5, False, 1.0)
    events = board.poll(4.0)
    assert events == [SensorFault("exit 5", events[0].message, 4.0)]
    assert "column 5" in events[0].message and "remove" in events[0].message
    board.level(EXIT5, True, 6.0)
    assert board.poll(6.1) == [SensorCleared("exit 5", 6.008)]


def test_a_missed_clear_edge_is_repaired_by_the_reread(board: Board) -> None:
    board.level(ENTRY3, False, 1.0)
    board.clock.set(1.04)
    board.factory.pin(ENTRY3)._change_state(True)  # the level rises; no edge reported
    assert board.poll(1.1) == []
    assert board.poll(1.5) == [DiscEntered(3, 1.0)]


def test_active_high_sensors(mock_factory: Any, clock: FakeClock) -> None:
    pins = PinMap.parse({"exit_active": "high", "entry_active": "high"}, 7)
    board = Board(mock_factory, clock, pins)
    try:
        board.level(ENTRY3, True, 1.0)
        board.level(ENTRY3, False, 1.04)
        assert board.poll(1.1) == [DiscEntered(3, 1.0)]
    finally:
        board.backend.close()


def test_the_colour_bit_is_read_when_the_beam_is_blocked(
    mock_factory: Any, clock: FakeClock
) -> None:
    table = {
        "entry": [4, 5],
        "exit": [6, 7],
        "slider": 2,
        "button": 3,
        "colour": [8, 9],
        "colour_high": "yellow",
    }
    board = Board(mock_factory, clock, PinMap.parse(table, 2))
    try:
        board.level("GPIO8", True, 1.0)  # a yellow disc reaches the beam
        board.level("GPIO4", False, 1.0)
        board.level("GPIO8", False, 1.02)  # the bit changes while the disc passes
        board.level("GPIO4", True, 1.04)
        board.level("GPIO5", False, 2.0)  # column 2's bit stays low: red
        board.level("GPIO5", True, 2.04)
        assert board.poll(3.0) == [
            DiscEntered(1, 1.0, Colour.YELLOW),
            DiscEntered(2, 2.0, Colour.RED),
        ]
        assert board.backend.senses_colour
    finally:
        board.backend.close()


def test_close_releases_every_pin(mock_factory: Any, clock: FakeClock) -> None:
    board = Board(mock_factory, clock, PinMap.default())
    board.backend.close()
    again = GpioBackend(PinMap.default(), mock_factory, clock)
    again.open(lambda: None)  # would raise GPIOPinInUse if anything were still held
    again.close()


def test_edges_still_arrive_after_a_garbage_collection(board: Board) -> None:
    # gpiozero keeps pin callbacks by weak reference; a collected callback
    # would silently stop every event
    import gc

    gc.collect()
    board.level(ENTRY3, False, 1.0)
    board.level(ENTRY3, True, 1.04)
    assert board.poll(1.2) == [DiscEntered(3, 1.0)]
