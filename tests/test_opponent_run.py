"""``popref run`` against the computer as systemd runs it: the watchdog keeps
being pinged while the computer thinks, and a ``kill -9`` mid-thought resumes
the same game, the same seat and seed, and the computer thinks again."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.store.journal import Journal
from engine import new_game, parse_move
from tests.test_run import COMMAND, collect, environment


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(30)
    yield sock
    sock.close()


def records(state: Path) -> list[dict[str, Any]]:
    return Journal(state / "journal").load().records


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task")
    return [int(c) for task in tasks.iterdir() for c in (task / "children").read_text().split()]


def _ended(pid: int, timeout: float) -> bool:
    """Wait for a process that is not ours to end (a pidfd turns readable)."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([descriptor], [], [], timeout)
        return bool(readable)
    finally:
        os.close(descriptor)


def write_config(path: Path, think_ms: int) -> Path:
    # with the repetition rule, so that Red's first move is searched: Pop
    # Out's own opening table (engine/solver/openings.py) answers at once
    path.write_text(
        '[game]\nrules = "popout"\nrepetition = 3\n'
        f'[opponent]\nplays = "red"\nlevel = 10\nthink_ms = {think_ms}\nseed = 5\n'
    )
    return path


def test_kill_9_mid_thought_resumes_and_the_watchdog_is_pinged_meanwhile(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    state = tmp_path / "state"
    env = environment(NOTIFY_SOCKET=notify_socket.getsockname(), WATCHDOG_USEC="200000")
    long = write_config(tmp_path / "long.toml", 600_000)  # thinks for ten minutes
    process = subprocess.Popen(
        [*COMMAND, "--config", str(long), "--state-dir", str(state)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        seen = collect(notify_socket, "STATUS=The computer (Red) is thinking.")
        pings = 0
        while pings < 5:  # the loop keeps pinging while the search runs
            message = notify_socket.recv(4096).decode()
            assert not message.startswith("STATUS=The computer's move"), seen
            pings += message == "WATCHDOG=1"
        assert process.poll() is None
        children = _children(process.pid)
        assert children  # the search process (and multiprocessing's helper)
    finally:
        process.kill()
        process.wait(timeout=30)
    for child in children:  # the search notices its daemon is gone and ends
        assert _ended(child, timeout=30), f"process {child} outlived the daemon"
    before = records(state)
    assert not any("computer" in r for r in before[1:])  # killed mid-thought
    seat = before[0]["snapshot"]["computer"]
    assert seat["colour"] == "red" and seat["level"] == 10

    short = write_config(tmp_path / "short.toml", 300)
    process = subprocess.Popen(
        [*COMMAND, "--config", str(short), "--state-dir", str(state)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        seen = collect(notify_socket, "STATUS=The computer's move:")
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Resumed the game from the journal (0 moves)." in err
    after = records(state)
    assert after[0]["snapshot"]["computer"] == seat  # the game's own seat and seed
    moves = [r["computer"] for r in after if "computer" in r and isinstance(r["computer"], str)]
    assert len(moves) == 1 and new_game("popout").is_legal(parse_move(moves[0]))
    shown = next(m for m in seen if m.startswith("STATUS=The computer's move:"))
    assert f"column {parse_move(moves[0]).column}" in shown
