"""The simulated grid's discs kept between runs (``sim-grid.json``): any
content either reads as a grid or stops ``popref simulate`` with one line
(the damaged file moved aside, exit 2), never a traceback or a hang."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cli import main
from engine.colour import Colour
from hardware.sim.grid import grid_from_saved, saved_grid

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
columns = st.lists(st.lists(st.sampled_from(list(Colour)), max_size=16), max_size=16)


@given(columns)
def test_a_saved_grid_reads_back_as_it_was(grid: list[list[Colour]]) -> None:
    assert grid_from_saved(saved_grid(grid)) == grid


@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps({"columns": v}).encode()))
def test_any_content_reads_as_a_grid_or_is_refused_with_a_reason(data: bytes) -> None:
    try:
        grid = grid_from_saved(data)
    except ValueError as error:
        assert str(error) and "\n" not in str(error)
    else:
        assert grid_from_saved(saved_grid(grid)) == grid  # read exactly, nothing coerced


def run(tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    script = tmp_path / "moves.txt"
    script.write_text("drop 4\n")
    # --json: no log lines on standard error, only the one line of an error
    status = main(["simulate", "--script", str(script), "--json", "--state-dir", str(state)])
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b'{"columns": ["RQ"]}', b'{"columns": 7}', b"[" * 5000, b"\xff\xfe", b"[]"],
)
def test_a_damaged_saved_grid_is_one_line_and_moved_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    state = tmp_path / "state"
    assert run(tmp_path, state, capsys)[0] == 0
    journal = (state / "journal").read_bytes()
    (state / "sim-grid.json").write_bytes(content)
    status, err = run(tmp_path, state, capsys)
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("popref simulate: the saved simulated grid ") and "damaged" in err
    assert (state / "sim-grid.json.damaged-1").read_bytes() == content
    assert (state / "journal").read_bytes() == journal  # the game is untouched
    assert run(tmp_path, state, capsys)[0] == 0  # and the next start begins with an empty grid


def test_a_fifo_in_place_of_the_saved_grid_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "sim-grid.json")
    status, err = run(tmp_path, state, capsys)
    assert status == 2 and err.count("\n") == 1, err
    assert "is a FIFO, not a file; remove it" in err
