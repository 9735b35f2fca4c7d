"""The examples in every module's docstrings are tests too: engine, hardware,
controller, bench and the suite's own helpers (the firmware's examples and
the board's stand-ins need a board: they show ``Example::``, not ``>>>``).

Only modules with examples are collected, once each: a module without one
would pass having run nothing. A module whose examples are its documentation
(:data:`DOCUMENTED`) fails when it loses them, and so does a ``>>>`` that
doctest cannot see (outside a docstring), which would never run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

PACKAGES = ("engine", "hardware", "controller", "bench", "tests")
# MicroPython's machine/neopixel/micropython as the simulated board loads them:
# importable only under those names, beside each other (hardware/sim/board/firmware.py)
BOARD_ONLY = "hardware.sim.board.standins."
# The modules whose examples show how they are used: each must keep some.
DOCUMENTED = frozenset(
    {
        "bench.soaklib.diskfull",
        "bench.soaklib.faults",
        "bench.soaklib.lights",
        "controller.cli.argtypes",
        "controller.cli.positions",
        "controller.cli.run",
        "controller.daemon.wakeup",
        "controller.referee.fields",
        "controller.simulator.script",
        "controller.store.archive",
        "controller.store.entries",
        "controller.store.journal",
        "controller.store.persist",
        "engine.rules",
        "engine.solver",
        "engine.solver.book",
        "engine.solver.bookbuild",
        "engine.solver.classic",
        "engine.solver.limits",
        "engine.solver.opponent",
        "engine.solver.search",
        "hardware.looks",
        "hardware.sim.backend",
        "hardware.sim.board.ticks",
        "hardware.sim.board.timeline",
        "hardware.sim.gpio",
        "hardware.sim.grid",
        "hardware.sim.mockpins",
    }
)
FINDER = doctest.DocTestFinder()


def modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        path = importlib.import_module(package).__path__
        found = pkgutil.walk_packages(path, prefix=package + ".")
        names += [info.name for info in found if _has_examples_to_find(info.name)]
    return sorted(names)


def _has_examples_to_find(name: str) -> bool:
    # a __main__ module is a program: importing it runs it; a test module's
    # docstring says what it tests, and pytest runs its functions
    last = name.rpartition(".")[2]
    return not (
        name.startswith(BOARD_ONLY)
        or last == "__main__"
        or (name.startswith("tests.") and (last.startswith("test_") or last == "conftest"))
    )


def example_count(name: str) -> int:
    return sum(len(test.examples) for test in FINDER.find(importlib.import_module(name)))


MODULES = modules()
WITH_EXAMPLES = [name for name in MODULES if example_count(name)]


def test_every_package_is_searched() -> None:
    assert {
        "engine.rules",
        "hardware.looks",
        "controller.referee.core",
        "bench.soaklib.lights",
        "tests.colourvision",
    } <= set(MODULES)


def test_the_documented_modules_keep_their_examples() -> None:
    assert set(MODULES) >= DOCUMENTED, sorted(DOCUMENTED - set(MODULES))
    assert not DOCUMENTED - set(WITH_EXAMPLES), sorted(DOCUMENTED - set(WITH_EXAMPLES))


def test_every_example_is_where_doctest_finds_it() -> None:
    unseen = []
    for name in set(MODULES) - set(WITH_EXAMPLES):
        source = importlib.import_module(name).__file__ or ""
        if source.endswith(".py") and ">>> " in Path(source).read_text(encoding="utf-8"):
            unseen.append(name)
    assert not unseen, f"examples outside any docstring, never run: {sorted(unseen)}"


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
