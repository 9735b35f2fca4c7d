"""One daemon per state directory: a second ``popref run`` or ``popref
simulate`` (every mode) on a directory in use changes nothing there and says
in one line which process holds it (exit 2); ``popref games`` reads it
without the lock; the lock goes with its holder, however it ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.store.statelock import LOCK_NAME, StateDirBusy, lock_state_dir
from tests.test_run import COMMAND, SIMULATE, collect, environment

POPREF = [sys.executable, "-m", "controller.cli"]


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """``popref run`` serving a state directory, ready."""
    state = tmp_path / "state"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(60)
    config = tmp_path / "config.toml"
    # the computer thinks for ten minutes: nothing is written meanwhile (with
    # the repetition rule, so that Red's first move is searched: Pop Out's own
    # opening table, engine/solver/openings.py, answers at once)
    config.write_text(
        '[game]\nrules = "popout"\nrepetition = 3\n'
        '[opponent]\nplays = "red"\nlevel = 10\nthink_ms = 600000\n'
    )
    process = subprocess.Popen(
        [*COMMAND, "--config", str(config), "--state-dir", str(state)],
        env=environment(NOTIFY_SOCKET=str(tmp_path / "notify"), WATCHDOG_USEC="2000000"),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        collect(sock, "READY=1", "STATUS=The computer (Red) is thinking.")
        # the loop pings after its first step, which started the search
        collect(sock, "WATCHDOG=1")
        yield process, state
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        sock.close()
        assert process.returncode == 0, err
        assert "damaged" not in err


def refused(err: str, holder: subprocess.Popen[str], state: Path, command: str) -> None:
    assert err.count("\n") == 1, err
    assert err.startswith(f"{command}: {state} is in use by process {holder.pid} (popref run ")
    assert "or pass another --state-dir" in err and "Traceback" not in err


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # the command in parentheses may hold spaces: the parent follows the last ")"
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def contents(state: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in state.iterdir() if p.is_file()}


def test_a_second_popref_run_is_refused_and_writes_nothing(
    holder: tuple[subprocess.Popen[str], Path],
) -> None:
    process, state = holder
    before = contents(state)
    done = subprocess.run(
        [*COMMAND, "--state-dir", str(state), "--rules", "pop10"],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    refused(done.stderr, process, state, "popref run")
    assert contents(state) == before


@pytest.mark.parametrize(
    "mode",
    [["--script", "{script}"], ["--script", "{script}", "--json"], [], ["--web", "127.0.0.1:1"]],
    ids=["script", "json", "by-hand", "web"],
)
def test_popref_simulate_in_every_mode_is_refused_and_writes_nothing(
    holder: tuple[subprocess.Popen[str], Path], tmp_path: Path, mode: list[str]
) -> None:
    process, state = holder
    script = tmp_path / "moves.txt"
    script.write_text("drop 4\n")
    before = contents(state)
    done = subprocess.run(
        [*SIMULATE, "--state-dir", str(state), *(m.format(script=script) for m in mode)],
        env=environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout
    refused(done.stderr, process, state, "popref simulate")
    assert contents(state) == before


def test_popref_games_reads_a_directory_in_use(
    holder: tuple[subprocess.Popen[str], Path],
) -> None:
    _, state = holder
    done = subprocess.run(
        [*POPREF, "games", "--state-dir", str(state)],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.startswith("No finished games in"), done


def test_the_search_process_does_not_inherit_the_lock(
    holder: tuple[subprocess.Popen[str], Path],
) -> None:
    process, state = holder
    lock = str(state / LOCK_NAME)
    children = children_of(process.pid)
    assert children  # the computer is thinking in its search process
    for child in children:
        assert lock not in open_files(child)  # a search outliving it cannot keep the game locked


def open_files(pid: int) -> list[str]:
    """What process ``pid`` has open; a file it closes (or the process, if
    it ends) while they are read is simply not among them."""
    found: list[str] = []
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except FileNotFoundError:
        return found
    for descriptor in descriptors:
        try:
            found.append(os.readlink(descriptor))
        except FileNotFoundError:
            continue
    return found


def test_the_lock_goes_with_a_killed_holder(tmp_path: Path) -> None:
    state = tmp_path / "state"
    code = (
        "import sys, pathlib; from controller.store.statelock import lock_state_dir; "
        "lock_state_dir(pathlib.Path(sys.argv[1]), 'popref run'); print('held', flush=True); "
        "sys.stdin.read()"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, str(state)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    with pytest.raises(StateDirBusy, match=f"in use by process {process.pid} \\(popref run\\)"):
        lock_state_dir(state)
    process.kill()
    process.wait(timeout=60)
    lock_state_dir(state, "popref simulate").release()


def test_the_holder_is_named_only_as_far_as_it_is_printable_and_short(tmp_path: Path) -> None:
    held = lock_state_dir(tmp_path, "popref run \x1b[31m" + "x" * 500)
    try:
        with pytest.raises(StateDirBusy) as busy:
            lock_state_dir(tmp_path)
        message = str(busy.value)
        assert "\x1b" not in message and len(message) < 400 and "..." in message
    finally:
        held.release()


def test_a_fifo_in_place_of_the_lock_is_one_line(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / LOCK_NAME)
    with pytest.raises(StateDirBusy, match="is a FIFO, not a file; remove it"):
        lock_state_dir(tmp_path)
