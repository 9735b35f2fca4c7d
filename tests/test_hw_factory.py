"""Choosing the pin factory, and the one-line errors when lgpio cannot work."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from gpiozero import LED, AngularServo

from hardware.errors import HardwareError
from hardware.factory import make_pin_factory


def test_mock_factory_drives_servos_on_pwm_pins() -> None:
    factory = make_pin_factory("mock")
    try:
        servo = AngularServo(18, pin_factory=factory)
        servo.angle = 0
        assert factory.pin(18).state == pytest.approx(0.075)  # 1.5 ms at 50 Hz
        led = LED(17, pin_factory=factory)
        led.on()
        assert factory.pin(17).state == 1
    finally:
        factory.close()


def test_no_gpio_chip_says_to_use_the_simulator(tmp_path: Any) -> None:
    with pytest.raises(HardwareError, match=r"no GPIO chip in .*use the sim backend"):
        make_pin_factory("lgpio", tmp_path / "run", dev_dir=str(tmp_path))


def test_permission_denied_names_the_chip_and_the_gpio_group(tmp_path: Any) -> None:
    (tmp_path / "gpiochip0").touch()
    with pytest.raises(
        HardwareError,
        match=r"permission denied on .*gpiochip0; add this "
        r"user to group gpio",
    ):
        make_pin_factory(
            "lgpio", tmp_path / "run", dev_dir=str(tmp_path), access=lambda path, mode: False
        )


def test_missing_lgpio_says_what_to_install_and_sets_lg_wd(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "gpiochip0").touch()
    monkeypatch.setitem(sys.modules, "lgpio", None)  # importing it now fails
    monkeypatch.delenv("LG_WD", raising=False)
    run_dir = tmp_path / "run"
    with pytest.raises(HardwareError) as error:
        make_pin_factory("lgpio", run_dir, dev_dir=str(tmp_path))
    message = str(error.value)
    assert message.startswith("no usable pin factory")
    assert "pip install 'popref[pi]'" in message and "python3-lgpio" in message
    assert os.environ["LG_WD"] == str(run_dir) and run_dir.is_dir()


def test_an_unwritable_run_directory_is_reported(tmp_path: Any) -> None:
    (tmp_path / "gpiochip0").touch()
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(HardwareError, match="cannot create the run directory"):
        make_pin_factory("lgpio", blocker / "run", dev_dir=str(tmp_path))
