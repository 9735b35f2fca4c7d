"""Shared fixtures: gpiozero's mock pin factory, reset after every test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.clock import FakeClock


@pytest.fixture
def mock_factory() -> Iterator[Any]:
    """``Device.pin_factory`` set to a fresh ``MockFactory`` with PWM pins, as
    gpiozero's own test suite does; closed and reset afterwards."""
    saved = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        factory.close()
        Device.pin_factory = saved


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
