"""The link's secret stays off what others read: ``popref simulate --join``
alone takes the link from ``$POPREF_LINK`` (as ``popref play`` does), not
from the command line anyone reads with ``ps``; and the lock's holder,
named to a second daemon and kept in a file anyone reads, is named without
the secret of a link on its command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main
from controller.remote.link import hide_secrets
from controller.store.statelock import LOCK_NAME, StateDirBusy, lock_state_dir
from tests.test_remote_join_options import LINK, POP10_LINK, SECRET

WAIT = 30.0  # seconds for a process to start and take its lock, on a loaded machine


def test_join_alone_takes_the_link_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POPREF_LINK", POP10_LINK)
    script = tmp_path / "script.txt"
    script.write_text("wait 0\n")
    argv = ["simulate", "--join", "--json", "--script", str(script)]
    assert main([*argv, "--state-dir", str(tmp_path / "state")]) == 0
    state = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert state["rules"] == "pop10" and state["remote_colour"] == "red"  # the link's


def test_join_alone_without_the_variable_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POPREF_LINK", raising=False)
    assert main(["simulate", "--join", "--script", os.devnull]) == 2
    assert capsys.readouterr().err == (
        "popref simulate: --join: give the invitation link, or set POPREF_LINK to it and "
        "pass --join alone\n"
    )


def test_a_damaged_link_in_the_variable_says_where_it_came_from(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POPREF_LINK", LINK.split("&k=")[0])
    assert main(["simulate", "--join", "--script", os.devnull]) == 2
    err = capsys.readouterr().err
    assert err.startswith("popref simulate: --join ($POPREF_LINK): [remote] join: ")
    assert "cut short" in err and err.count("\n") == 1


def test_the_lock_names_its_holder_without_the_link_s_secret(tmp_path: Path) -> None:
    command = f"popref simulate --join '{LINK}' --state-dir {tmp_path}"
    held = lock_state_dir(tmp_path, command, shown=hide_secrets)  # as the daemon takes it
    try:
        kept = (tmp_path / LOCK_NAME).read_text()
        assert SECRET not in kept and "&k=(hidden)&c=yellow" in kept
        with pytest.raises(StateDirBusy) as busy:
            lock_state_dir(tmp_path, "popref run", shown=hide_secrets)
        assert SECRET not in str(busy.value) and "k=(hidden)" in str(busy.value)
    finally:
        held.release()


def test_a_lock_written_with_the_secret_is_quoted_without_it(tmp_path: Path) -> None:
    # a holder that wrote its command whole (a popref before this one)
    held = lock_state_dir(tmp_path, "popref run")
    try:
        (tmp_path / LOCK_NAME).write_text(f"{os.getpid()} popref simulate --join '{LINK}'\n")
        with pytest.raises(StateDirBusy) as busy:
            lock_state_dir(tmp_path, "popref run", shown=hide_secrets)
        assert SECRET not in str(busy.value) and "k=(hidden)" in str(busy.value)
    finally:
        held.release()


@pytest.fixture
def joined(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """``popref simulate --join LINK`` holding its state directory."""
    state = tmp_path / "b"
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "simulate", "--join", LINK,
         "--script", "-", "--json", "--state-dir", str(state)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + WAIT
        while not _holds(state / LOCK_NAME, process.pid):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        yield process, state
    finally:
        process.kill()
        process.wait(WAIT)
        assert process.stdin is not None
        process.stdin.close()


def _holds(lock: Path, pid: int) -> bool:
    try:
        return lock.read_text().startswith(f"{pid} ")
    except FileNotFoundError:
        return False


def test_a_second_grid_on_a_joined_state_directory_is_not_told_the_secret(
    joined: tuple[subprocess.Popen[bytes], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    process, state = joined
    assert (
        main(["simulate", "--join", LINK, "--script", os.devnull, "--state-dir", str(state)]) == 2
    )
    err = capsys.readouterr().err
    assert err.startswith(f"popref simulate: {state} is in use by process {process.pid} (")
    assert SECRET not in err and "k=(hidden)" in err
    assert SECRET not in (state / LOCK_NAME).read_text()
