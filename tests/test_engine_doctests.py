"""The examples in the engine's docstrings are tests too."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine",
    "engine.bitboard",
    "engine.colour",
    "engine.dropgame",
    "engine.errors",
    "engine.explain",
    "engine.game",
    "engine.move",
    "engine.records",
    "engine.rules",
    "engine.start",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
