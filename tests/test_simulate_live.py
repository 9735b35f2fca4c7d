"""``popref simulate --script -``: standard input acted on line by line as
it arrives, an object printed after each action and after each change no
action made (the other grid's move lit), as real processes a harness feeds
(bench/linked.py ``--processes``); a hostile line is one line of error."""

from __future__ import annotations

import contextlib
import io
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.simulator.live import LONGEST_LINE
from tests.broker import Mosquitto
from tests.test_remote_linked import grid_a
from tests.test_remote_seat import WAIT, act


class Fed:
    """A ``popref simulate --script - --json`` process, fed a line at a time."""

    def __init__(self, *args: str) -> None:
        command = [sys.executable, "-m", "controller.cli", "simulate", "--script", "-", "--json"]
        self.process = subprocess.Popen(
            [*command, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.objects: queue.Queue[dict[str, Any] | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for line in stream:
            if line.startswith(b"{"):
                self.objects.put(json.loads(line))
        self.objects.put(None)

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def until(self, wanted: Callable[[dict[str, Any]], bool], pump: Callable[[], None]) -> Any:
        """The first object that is ``wanted``, ``pump()`` run between looks."""
        for _ in range(int(WAIT / 0.05)):
            with contextlib.suppress(queue.Empty):
                state = self.objects.get(timeout=0.05)
                assert state is not None, self.ended()
                if wanted(state):
                    return state
            pump()
        raise AssertionError(f"no such object within {WAIT} s")

    def ended(self) -> tuple[int, str]:
        """Its exit status and standard error, once its input is closed."""
        assert self.process.stdin is not None and self.process.stderr is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        status = self.process.wait(WAIT)
        return status, self.process.stderr.read().decode()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(WAIT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()


@pytest.fixture
def fed() -> Iterator[Callable[..., Fed]]:
    started: list[Fed] = []

    def start(*args: str) -> Fed:
        started.append(Fed(*args))
        return started[-1]

    yield start
    for process in started:
        process.close()


@pytest.mark.slow
def test_the_other_grid_s_move_is_printed_as_it_is_lit_without_an_action(
    mosquitto: Mosquitto, tmp_path: Path, fed: Callable[..., Fed]
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    try:
        b = fed("--join", a.links[-1], "--state-dir", str(tmp_path / "b"))

        def pump() -> None:
            a.wait_real(0.02)

        up = b.until(lambda state: state["link"] == "up", pump)
        assert up["action"] is None  # the link came up by itself
        act(a, "drop 4")  # Red, A's colour
        lit = b.until(lambda state: state["remote"] == "4", pump)
        assert lit["action"] is None and lit["moves"] == []
        b.write(b"drop 4\n")  # the copy, made on B as its light asks
        copied = b.until(lambda state: state["action"] is not None, pump)
        assert copied["action"] == "drop 4" and copied["moves"] == ["4"]
        assert copied["remote"] is None
        assert b.ended() == (0, "")
    finally:
        a.close()


HOSTILE = {
    "not UTF-8": (b"drop \xff\n", "line 3 is not UTF-8 text (byte 0xff)"),
    "too long": (b"#" * (LONGEST_LINE + 1) + b"\n", f"line 3 is longer than {LONGEST_LINE}"),
    "no action": (b"launch 4\n", "line 3 ('launch 4'): unknown action 'launch'"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_line_after_actions_taken_is_one_line_of_error(
    name: str, tmp_path: Path, fed: Callable[..., Fed]
) -> None:
    line, error = HOSTILE[name]
    grid = fed("--state-dir", str(tmp_path))
    grid.write(b"\xef\xbb\xbfdrop 4\n")
    # printed before the next line is written: the line was taken as it came
    assert grid.until(lambda state: True, lambda: None)["moves"] == ["4"]
    grid.write(b"# a comment\n" + line + b"drop 3\n")
    status, err = grid.ended()
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"popref simulate: -: {error}"), err
    assert (tmp_path / "journal").exists()  # the game so far is kept


def simulate(data: bytes) -> tuple[int, str, list[dict[str, Any]]]:
    """``popref simulate --script - --json`` in this process, ``data`` its input."""
    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setattr(sys, "stdin", stdin)
        status = main(["simulate", "--script", "-", "--json"])
    objects = [json.loads(line) for line in out.getvalue().splitlines()]
    return status, err.getvalue(), objects


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200).filter(lambda line: b"\n" not in line))
def test_any_line_is_an_action_or_one_line_of_error_after_the_actions_before(
    line: bytes,
) -> None:
    status, err, objects = simulate(b"drop 4\n" + line + b"\ndrop 3\n")
    assert objects[0]["moves"] == ["4"]
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("popref simulate: -: line 2")
        assert len(objects) == 1
    else:
        assert status == 0 and err == "" and objects[-1]["action"] == "drop 3"
