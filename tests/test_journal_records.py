"""Every journal record is checked against what the daemon writes: anything
else is "damaged at line N", the file is moved aside, one line, exit 2.

Each journal here has good checksums and sequence numbers: only the content
is wrong, so these are the cases the checksum cannot catch.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.store.journal import decode

DEEP = "[" * 100_000 + "]" * 100_000


def journal_lines(state: Path) -> list[str]:
    """The JSON text of each line of the journal."""
    raw = (state / "journal").read_bytes().splitlines()
    return [json.dumps(decode(line)[1], separators=(",", ":")) for line in raw]


def write_lines(state: Path, texts: list[str]) -> None:
    data = b""
    for number, text in enumerate(texts, 1):
        body = b"%d %s" % (number, text.encode())
        data += b"%08x %s\n" % (zlib.crc32(body), body)
    (state / "journal").write_bytes(data)


def run_script(tmp_path: Path, state: Path, *lines: str) -> int:
    path = tmp_path / "script.txt"
    path.write_text("".join(f"{line}\n" for line in lines))
    return main(["simulate", "--script", str(path), "--json", "--state-dir", str(state)])


@pytest.fixture
def state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A journal of a snapshot, two drops and a restart."""
    state = tmp_path / "state"
    assert run_script(tmp_path, state, "drop 4", "drop 5") == 0
    assert run_script(tmp_path, state, "wait 10") == 0
    capsys.readouterr()
    return state


def edit_snapshot(texts: list[str], **changes: Any) -> str:
    record = json.loads(texts[0])
    for key, value in changes.items():
        if value is KeyError:
            del record["snapshot"][key]
        else:
            record["snapshot"][key] = value
    return json.dumps(record)


CASES: list[tuple[str, int, Any]] = [
    # (what, line, how to change the lines)
    ("Infinity", 2, lambda t: t[1].replace('"at":', '"at":Infinity,"x":')),
    ("NaN", 3, lambda t: t[2].replace('"at":', '"at":NaN,"x":')),
    ("a huge number", 2, lambda t: t[1].replace('"at":', '"at":1e999,"x":')),
    ("a column as text", 2, lambda t: t[1].replace('"c":4', '"c":"4"')),
    ("a column as true", 2, lambda t: t[1].replace('"c":4', '"c":true')),
    ("no time", 2, lambda t: t[1].replace('"at":', '"x":')),
    ("an unknown event", 2, lambda t: t[1].replace('"e":"drop"', '"e":"jump"')),
    ("deep nesting", 2, lambda t: t[1].replace('"at":', f'"deep":{DEEP},"at":')),
    ("resumed false", 4, lambda t: t[3].replace("true", "false")),
    ("an unknown record", 3, lambda t: '{"hello":1}'),
    ("a second snapshot", 2, lambda t: t[0]),
    ("no snapshot first", 1, lambda t: t[1]),
    ("archived as text", 3, lambda t: '{"archived":"1"}'),
    ("unknown rules", 1, lambda t: edit_snapshot(t, rules="chess")),
    ("unknown next rules", 1, lambda t: edit_snapshot(t, next_rules="chess")),
    ("moves missing", 1, lambda t: edit_snapshot(t, moves=KeyError)),
    ("moves not a list", 1, lambda t: edit_snapshot(t, moves="4 5")),
    ("an illegal move", 1, lambda t: edit_snapshot(t, moves=["p4"])),
    ("a bad grid letter", 1, lambda t: edit_snapshot(t, grid=["X", "", "", "", "", "", ""])),
    ("a slider of 1", 1, lambda t: edit_snapshot(t, slider_open=1)),
    ("game number 0", 1, lambda t: edit_snapshot(t, game_number=0)),
    ("a size of three", 1, lambda t: edit_snapshot(t, size=[7, 6, 1])),
    ("a snapshot not an object", 1, lambda t: '{"snapshot":[1]}'),
    ("a bad board mark", 2, lambda t: t[1][:-1] + ',"board":{"boot":1}}'),
]


@pytest.mark.parametrize(("what", "line", "change"), CASES, ids=[c[0] for c in CASES])
def test_a_record_with_the_wrong_content_is_damage_at_its_line(
    tmp_path: Path,
    state: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    line: int,
    change: Any,
) -> None:
    texts = journal_lines(state)
    assert len(texts) == 4, texts  # snapshot, drop, drop, resumed
    texts[line - 1] = change(texts)
    write_lines(state, texts)
    damaged = (state / "journal").read_bytes()
    assert run_script(tmp_path, state, "drop 3") == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"is damaged at line {line} (" in err
    assert (state / "journal.damaged-1").read_bytes() == damaged
    assert not (state / "journal").exists()
    # the next start begins afresh (systemd restarts into a new game, not a crash)
    assert run_script(tmp_path, state, "wait 10") == 0


def test_a_complete_last_line_with_a_bad_checksum_is_damage_not_a_power_cut(
    tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = (state / "journal").read_bytes()
    broken = data[:-5] + (b"X" if data[-5:-4] != b"X" else b"Y") + data[-4:]
    (state / "journal").write_bytes(broken)
    assert run_script(tmp_path, state, "drop 3") == 2
    err = capsys.readouterr().err
    assert "damaged at line 4 (bad checksum)" in err
    assert (state / "journal.damaged-1").read_bytes() == broken


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        (lambda raw: raw[:2] + raw[1:], 3),  # a line duplicated
        (lambda raw: raw[:1] + raw[2:], 2),  # a line lost
        (lambda raw: [raw[0], raw[2], raw[1], *raw[3:]], 2),  # two lines swapped
    ],
    ids=["duplicated", "dropped", "swapped"],
)
def test_duplicated_dropped_or_swapped_lines_are_noticed(
    tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str], edit: Any, line: int
) -> None:
    raw = (state / "journal").read_bytes().splitlines(keepends=True)
    (state / "journal").write_bytes(b"".join(edit(raw)))
    assert run_script(tmp_path, state, "drop 3") == 2
    err = capsys.readouterr().err
    assert f"damaged at line {line} (numbered" in err and err.count("\n") == 1


def test_a_fifo_in_place_of_the_journal_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "journal")
    assert run_script(tmp_path, state, "drop 3") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a FIFO, not a file" in err
