"""No won game is ever lost, and a full disk never stops the referee.

The disk fills up in-process (``bench.soaklib.diskfull``: ``os.write`` and
``os.fsync`` fail with ENOSPC under the state directory, exactly where the
journal's and the archive's writes would fail), and once for real on a tiny
tmpfs when this machine lets the test mount one.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.soaklib.diskfull import full_disk
from controller.daemon.config import parse_config
from controller.daemon.saving import STORAGE_RETRY
from controller.simulator.script import parse_script
from controller.simulator.simulation import Simulation
from controller.store.journal import Journal
from tests.test_opponent_daemon import died

WIN = ["drop 1", "drop 2"] * 3 + ["drop 1"]  # Red wins a Classic game


def start(state: Path) -> Simulation:
    return Simulation(parse_config({}, "test"), state)


def act(sim: Simulation, *lines: str) -> None:
    for line in lines:
        (action,) = parse_script(line, "test")
        sim.act(action)


def archived(state: Path) -> list[str]:
    games = state / "games"
    return sorted(p.name for p in games.glob("*.txt")) if games.exists() else []


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


def test_a_game_won_while_nothing_can_be_written_is_archived_when_space_returns(
    state: Path,
) -> None:
    sim = start(state)
    try:
        act(sim, *WIN[:-1])
        with full_disk(state):
            act(sim, WIN[-1])
            assert sim.state("won")["result"] == "red"
            fault = sim.display().fault
            assert fault is not None and "No space left on device" in fault
            act(sim, "slider open", "slider close", "drop 4")  # the next game goes on meanwhile
            assert sim.state("next")["moves"] == ["4"]
        assert archived(state) == []
        act(sim, "drop 5")  # the first write that works catches up
        assert len(archived(state)) == 1 and sim.display().fault is None
        assert sim.daemon.archive.games()[0].result == "red"
    finally:
        sim.close()
    again = start(state)
    try:
        assert again.state("resumed")["moves"] == ["4", "5"]
        assert len(archived(state)) == 1
    finally:
        again.close()


def test_space_returning_while_nobody_plays_is_noticed_by_itself(state: Path) -> None:
    sim = start(state)
    try:
        act(sim, *WIN[:-1])
        with full_disk(state):
            act(sim, WIN[-1])
        assert sim.display().fault is not None and archived(state) == []
        act(sim, f"wait {int(STORAGE_RETRY * 1000) + 100}")
        assert sim.display().fault is None
        assert len(archived(state)) == 1
    finally:
        sim.close()


def test_a_full_archive_disk_at_the_end_of_a_game_is_a_fault_not_a_crash(state: Path) -> None:
    """The journal still takes the winning move, the archive cannot: the
    daemon used to crash, and crash again at every restart."""
    sim = start(state)
    try:
        act(sim, *WIN[:-1])
        with full_disk(state / "games"):
            act(sim, WIN[-1])
            fault = sim.display().fault
            assert fault is not None and fault.startswith("Cannot save the game (No space left")
            sim.close()
            # systemd restarts it while the disk is still full: it referees on
            sim = start(state)
            assert sim.state("resumed")["result"] == "red"
            assert sim.display().fault is not None
            act(sim, "slider open", "slider close", "drop 3")
            assert sim.state("next")["moves"] == ["3"]
        assert archived(state) == []
        act(sim, "drop 4")
        assert len(archived(state)) == 1 and sim.display().fault is None
    finally:
        sim.close()
    again = start(state)
    try:
        assert again.state("resumed")["moves"] == ["3", "4"]
        assert len(archived(state)) == 1
    finally:
        again.close()


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_full_archive_is_known_by_its_error_number_not_its_words(state: Path, code: int) -> None:
    """A quota as well as a full disk asks the owner to free space: the
    archive's error carries the system's error number, so nothing is decided
    on the system's wording of it."""
    sim = start(state)
    try:
        act(sim, *WIN[:-1])
        with full_disk(state / "games", code):
            act(sim, WIN[-1])
            fault = sim.display().fault
            assert fault is not None and f"({os.strerror(code)})" in fault
            assert "free space in" in fault
    finally:
        sim.close()


class Crash(BaseException):
    """A power cut at one exact point: nothing after it runs."""


def test_a_crash_between_archiving_and_journalling_it_archives_the_game_once(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_append = Journal.append

    def append(self: Journal, record: dict[str, Any]) -> None:
        if "archived" in record:
            raise Crash
        real_append(self, record)

    sim = start(state)
    act(sim, *WIN[:-1])
    with monkeypatch.context() as patch:
        patch.setattr(Journal, "append", append)
        with pytest.raises(Crash):
            act(sim, WIN[-1])
    assert len(archived(state)) == 1
    sim.daemon.journal.close()
    died(sim)
    again = start(state)  # replays the winning move: the game is already saved
    try:
        assert again.state("resumed")["result"] == "red"
        assert len(archived(state)) == 1
        act(again, "slider open", "slider close")
        assert len(archived(state)) == 1
    finally:
        again.close()


def test_a_crash_before_the_record_is_written_completes_the_save(state: Path) -> None:
    """The facts file claims the number first: a crash before the record
    itself is written leaves the game half-saved; the retry finishes it."""
    sim = start(state)
    act(sim, *WIN)
    sim.close()
    (record,) = (state / "games").glob("*.txt")
    record.unlink()
    again = start(state)
    again.daemon.journal.close()
    died(again)
    lines = (state / "journal").read_bytes().splitlines(keepends=True)
    # forget that it was archived: as if the crash came before that record
    kept = [line for line in lines if b'"archived"' not in line and b'"resumed"' not in line]
    (state / "journal").write_bytes(b"".join(kept))
    third = start(state)
    try:
        assert archived(state) == [record.name]
        assert len(list((state / "games").glob("*.json"))) == 1
    finally:
        third.close()


@pytest.fixture
def tiny_filesystem(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, if this machine lets the test mount one."""
    mount = shutil.which("mount")
    point = tmp_path / "tiny"
    point.mkdir()
    if mount is None or os.geteuid() != 0:
        pytest.skip("a real full disk needs root to mount a tiny tmpfs; the in-process one ran")
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=1m", "popref-test", str(point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tiny tmpfs here ({done.stderr.strip()}); in-process ran")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def fill(directory: Path) -> Path:
    """Fill the file system of *directory* to the last byte."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as file:
        try:
            while True:
                file.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC
        try:
            while True:
                file.write(b"\0")
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


def test_a_real_full_disk_at_the_end_of_a_game(tiny_filesystem: Path) -> None:
    state = tiny_filesystem / "state"
    sim = start(state)
    try:
        act(sim, *WIN[:-1])
        filler = fill(tiny_filesystem)
        act(sim, WIN[-1])
        fault = sim.display().fault
        assert fault is not None and "No space left on device" in fault
        filler.unlink()
        act(sim, f"wait {int(STORAGE_RETRY * 1000) + 100}")
        assert sim.display().fault is None
        assert len(archived(state)) == 1
    finally:
        sim.close()


def test_a_real_full_disk_leaves_no_half_written_file_behind(tiny_filesystem: Path) -> None:
    state = tiny_filesystem / "state"
    start(state).close()
    filler = fill(tiny_filesystem)
    try:
        # the configuration names other rules and opponent: each is written down
        changed = {"game": {"rules": "popout"}, "opponent": {"plays": "red", "level": 2}}
        sim = Simulation(parse_config(changed, "test"), state)
        act(sim, "drop 4")
        sim.close()
    finally:
        filler.unlink()
    assert sorted(p.name for p in state.iterdir() if p.suffix in (".new", ".tmp")) == []


def test_the_soaks_storage_faults_run_clean(tmp_path: Path) -> None:
    from bench.soaklib.storagefaults import storage_faults
    from bench.soaklib.tally import Tally

    tally = Tally()
    storage_faults(("classic", "popout"), seed=5, rounds=2, workdir=tmp_path, tally=tally)
    assert tally.problems == [] and tally.clean
    assert tally.injected["disk-full"] == tally.repaired["disk-full"] >= 1
    assert tally.injected["board-size"] == tally.repaired["board-size"] == 2
