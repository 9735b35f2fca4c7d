"""The examples in every module's docstrings are tests too: engine, hardware,
controller and bench (the firmware's examples and the board's stand-ins need a
board: they show ``Example::``, not ``>>>``)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("engine", "hardware", "controller", "bench")
# MicroPython's machine/neopixel/micropython as the simulated board loads them:
# importable only under those names, beside each other (hardware/sim/board/firmware.py)
BOARD_ONLY = "hardware.sim.board.standins."


def modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        path = importlib.import_module(package).__path__
        found = pkgutil.walk_packages(path, prefix=package + ".")
        # a __main__ module is a program: importing it runs it
        names += [
            info.name
            for info in found
            if not info.name.startswith(BOARD_ONLY) and not info.name.endswith(".__main__")
        ]
    return sorted(names)


MODULES = modules()


def test_every_package_is_searched() -> None:
    assert {
        "engine.rules",
        "hardware.looks",
        "controller.referee.core",
        "bench.soaklib.lights",
    } <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
