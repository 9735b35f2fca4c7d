"""Script files for ``popref simulate --script``: every line is an action or
one line of error naming the line, whatever bytes the file holds."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.simulator.script import (
    EXCERPT,
    VERBS,
    ScriptError,
    decode_utf8,
    parse_line,
    parse_script,
)

BOUND = 300  # no error line is longer than this, however long the script line


def run_script(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> tuple[int, str]:
    path = tmp_path / "script.txt"
    path.write_bytes(data)
    status = main(["simulate", "--script", str(path), "--json"])
    captured = capsys.readouterr()
    return status, captured.err


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (b"drop 4\n\xff\xfe drop 3\n", "line 2 is not UTF-8"),
        (b"drop 4\ndrop 3 \xe9\n", "line 2 is not UTF-8"),
        (codecs.BOM_UTF16_LE + "drop 4\n".encode("utf-16-le"), "UTF-16; save it as UTF-8"),
        ("drop ²\n".encode(), "line 1 ('drop ²'): drop needs a column number"),
        ("wait ¹²\n".encode(), "line 1 ('wait ¹²'): wait needs milliseconds"),
        (b"wait 1" + b"0" * 400 + b"\n", "wait needs milliseconds"),
        (b"wait 999999999999\n", "wait at most"),
        (b"drop 99999999999\n", "column 99999999999 is not on the grid"),
    ],
)
def test_bad_bytes_and_numbers_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, named: str
) -> None:
    status, err = run_script(tmp_path, capsys, data)
    assert status == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert named in err


def test_a_utf8_byte_order_mark_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(codecs.BOM_UTF8 + b"drop 4\r\ndrop 4\r\n")
    assert main(["simulate", "--script", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 2 and '"moves": ["4", "4"]' in out


def test_a_huge_line_is_quoted_once_and_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = run_script(tmp_path, capsys, b"x" * 10_000_000 + b"\n")
    assert status == 2
    assert len(err) - len(str(tmp_path)) < BOUND and err.count("x" * EXCERPT) == 1
    assert "(10000000 characters)" in err


def test_a_huge_valid_line_is_echoed_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.txt"
    path.write_text("drop" + " " * 1_000_000 + "4\n")
    assert main(["simulate", "--script", str(path), "--json"]) == 0
    assert capsys.readouterr().out.startswith('{"action": "drop 4", ')


def test_lines_are_counted_as_editors_count_them() -> None:
    # a form feed or U+2028 inside a line does not start a new one
    with pytest.raises(ScriptError, match="line 2 "):
        parse_script("drop 1 \x0c\njump", "s.txt")


def test_decode_names_the_line_of_the_bad_byte() -> None:
    with pytest.raises(ScriptError, match=r"s.txt: line 3 is not UTF-8 text \(byte 0xc3\)"):
        decode_utf8(b"a\nb\n\xc3(\n", "s.txt")


# every verb a script line can become (controller/simulator/script.py's Action)
@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(
    line=st.one_of(
        st.text(max_size=200),
        st.text(alphabet=st.characters(codec="utf-8"), min_size=1000, max_size=5000),
        st.builds(
            lambda verb, arg: f"{verb} {arg}",
            st.sampled_from(["drop", "pop", "wait", "slider", "press", "hold", "DROP"]),
            st.text(max_size=30),
        ),
    ),
    number=st.integers(min_value=1, max_value=10**6),
)
def test_any_line_is_an_action_or_one_bounded_error(line: str, number: int) -> None:
    try:
        action = parse_line(line, number, "s.txt", 7)
    except ScriptError as error:
        message = str(error)
        assert message.startswith(f"s.txt: line {number} (")
        assert "\n" not in message and "\r" not in message
        assert len(message) < BOUND + EXCERPT
        assert message.isprintable()
        return
    if action is not None:
        assert action.line == number
        assert action.verb in VERBS
        assert len(action.text) < BOUND
