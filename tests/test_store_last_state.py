"""The finished game's last state kept for its last word
(controller/store/last_state.py): anything in its place that is not one of
ours reads as none, and nothing there blocks or breaks a start."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.store.last_state import FILE, MOST, keep, kept


def test_a_state_kept_is_read_back_for_its_own_game_only(tmp_path: Path) -> None:
    keep(tmp_path, "g1", {"result": "draw", "board": [[None]]})
    assert kept(tmp_path, "g1") == {"result": "draw", "board": [[None]]}
    assert kept(tmp_path, "g2") is None
    keep(tmp_path, "g2", {"result": "red"})  # the next finished game's replaces it
    assert kept(tmp_path, "g1") is None
    assert (tmp_path / FILE).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[]",
        b'{"game": "g1"}',
        b'{"game": "g1", "state": "red"}',
        b'{"game": "g1", "state": {"a": 1}}' + b" " * MOST,
    ],
    ids=["empty", "text", "bytes", "a list", "no state", "a state not an object", "too long"],
)
def test_anything_else_reads_as_none(tmp_path: Path, content: bytes) -> None:
    (tmp_path / FILE).write_bytes(content)
    assert kept(tmp_path, "g1") is None


def test_a_fifo_or_a_directory_in_its_place_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / FILE)  # opened to read, a FIFO would block
    assert kept(tmp_path, "g1") is None
    os.unlink(tmp_path / FILE)
    (tmp_path / FILE).mkdir()
    assert kept(tmp_path, "g1") is None
