"""Pin factories: lgpio on a Pi, gpiozero's mock pins on a laptop.

The factory is always chosen explicitly: gpiozero's automatic fallback would
hide a missing or broken lgpio behind a factory that cannot drive the board.

>>> factory = make_pin_factory("mock")
>>> type(factory).__name__
'MockFactory'
"""

from __future__ import annotations

import glob
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.errors import HardwareError
from hardware.pinmap import HEADER_40_REVISION, FactoryName

INSTALL_HINT = (
    "install lgpio with pip install 'popref[pi]' or the Raspberry Pi OS package python3-lgpio"
)


def make_pin_factory(
    name: FactoryName,
    run_dir: str | os.PathLike[str] | None = None,
    *,
    revision: int = HEADER_40_REVISION,
    dev_dir: str = "/dev",
    access: Callable[[str, int], bool] = os.access,
) -> Any:
    """Return the gpiozero pin factory ``[gpio] pin_factory`` names (the
    pin map checked the name): lgpio, or gpiozero's own mock pins for a GPIO
    board on a laptop (the simulated grid drives mock pins of its own that
    remember when they changed, :mod:`hardware.sim.mockpins`).

    ``run_dir`` is where lgpio may write its notification FIFO (``LG_WD``);
    ``dev_dir`` and ``access`` exist so tests can stand in for /dev.
    Raises :class:`HardwareError` with one line saying what to do.
    """
    if name == "mock":
        # PWM-capable mock pins everywhere: servos need them, plain LEDs and
        # inputs do not mind.
        return MockFactory(revision=f"{revision:x}", pin_class=MockPWMPin)
    return _lgpio_factory(run_dir, dev_dir, access)


def _lgpio_factory(
    run_dir: str | os.PathLike[str] | None, dev_dir: str, access: Callable[[str, int], bool]
) -> Any:
    chips = sorted(glob.glob(os.path.join(dev_dir, "gpiochip*")))
    if not chips:
        raise HardwareError(
            f"no GPIO chip in {dev_dir} (not a Raspberry Pi?); "
            'use the sim backend or pin_factory = "mock" here'
        )
    denied = [c for c in chips if not access(c, os.R_OK | os.W_OK)]
    if denied:
        raise HardwareError(
            f"permission denied on {denied[0]}; add this user to group "
            "gpio (sudo adduser $USER gpio) and log in again"
        )
    # lgpio changes into LG_WD at import to create its FIFO; an unwritable
    # directory makes the import fail, so give it one that is ours.
    directory = (
        Path(run_dir)
        if run_dir is not None
        else Path(os.environ.get("RUNTIME_DIRECTORY", "/run/popref"))
    )
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise HardwareError(
            f"cannot create the run directory {directory} for lgpio "
            f"({error.strerror}); set state_dir or RUNTIME_DIRECTORY to a "
            "writable directory"
        ) from None
    os.environ["LG_WD"] = str(directory)
    try:
        importlib.import_module("lgpio")
    except ImportError:
        raise HardwareError(
            f"no usable pin factory: lgpio is not installed; {INSTALL_HINT}"
        ) from None
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    except Exception as error:  # lgpio.error, gpiozero's PinUnknownPi, OSError
        raise HardwareError(
            f"the lgpio pin factory failed: {error}; check that this is a "
            "Raspberry Pi and nothing else holds the GPIO lines"
        ) from None
