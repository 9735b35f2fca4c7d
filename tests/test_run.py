"""``popref run`` as systemd runs it: readiness, status, watchdog, SIGTERM,
and one-line errors at start-up."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

COMMAND = [sys.executable, "-m", "controller.cli", "run"]
SIMULATE = [sys.executable, "-m", "controller.cli", "simulate"]


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(30)
    yield sock
    sock.close()


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "STATE_DIRECTORY")}
    env.update(extra)
    return env


def collect(sock: socket.socket, *wanted: str, limit: int = 500) -> list[str]:
    """Datagrams until each of ``wanted`` has started one (the socket's
    timeout and ``limit`` bound the wait)."""
    seen: list[str] = []
    while not all(any(m.startswith(w) for m in seen) for w in wanted):
        assert len(seen) < limit, f"no {wanted} in {seen[:20]}"
        seen.append(sock.recv(4096).decode())
    return seen


def test_ready_status_watchdog_and_a_clean_stop(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    env = environment(
        NOTIFY_SOCKET=notify_socket.getsockname(), WATCHDOG_USEC="200000", LG_WD=str(tmp_path)
    )
    process = subprocess.Popen(
        [*COMMAND, "--state-dir", str(tmp_path / "state"), "--rules", "pop10"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        messages = collect(notify_socket, "READY=1", "STATUS=", "WATCHDOG=1")
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "STATUS=Red to drop, Pop 10 0:0." in messages
    assert collect(notify_socket, "STOPPING=1")[-1] == "STOPPING=1"
    assert "Traceback" not in err
    journal = (tmp_path / "state" / "journal").read_text()
    assert '"rules":"pop10"' in journal


def test_a_restart_resumes_the_journal(tmp_path: Path, notify_socket: socket.socket) -> None:
    state = tmp_path / "state"
    script = tmp_path / "moves.txt"
    script.write_text("drop 4\ndrop 4\n")
    subprocess.run(
        [*SIMULATE, "--script", str(script), "--state-dir", str(state), "--json"],
        env=environment(),
        check=True,
        capture_output=True,
        timeout=60,
    )
    process = subprocess.Popen(
        [*COMMAND, "--state-dir", str(state)],
        env=environment(NOTIFY_SOCKET=notify_socket.getsockname()),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        messages = collect(notify_socket, "STATUS=")
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert "Resumed the game from the journal (2 moves)." in err
    assert any("STATUS=Red to move, Classic." in m for m in messages)


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ('[board]\nbackend = "gpio"\n[gpio]\npin_factory = "lgpio"\n', "no GPIO chip"),
        ('[board]\nbackend = "serial"\n', "[serial] port"),
        ("[daemon]\nstate_dir = 7\n", "[daemon] state_dir"),
    ],
)
def test_start_up_errors_are_one_line(tmp_path: Path, config: str, named: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(config)
    done = subprocess.run(
        [*COMMAND, "--config", str(path), "--state-dir", str(tmp_path / "state")],
        env=environment(RUNTIME_DIRECTORY=str(tmp_path / "run")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and named in done.stderr, done.stderr
    assert done.stderr.startswith("popref run: ")


def test_a_state_directory_that_cannot_be_used_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = subprocess.run(
        [*COMMAND, "--state-dir", str(blocker / "state")],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and str(blocker) in done.stderr, done.stderr
