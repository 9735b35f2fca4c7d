"""bench/linked.py's games (bench/soaklib/linkedgrids.py, and with
``--processes`` linkedprocs.py) against a real Mosquitto: a game per event
kind that heals by itself ends clean, and the harness does notice two grids
that disagree."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from bench.soaklib.gridproc import GridProcess
from bench.soaklib.linkedgame import LinkedPlan
from bench.soaklib.linkedgrids import LinkedGrids
from bench.soaklib.linkedprocs import LinkedProcesses
from bench.soaklib.linkedtally import Latency, LinkedTally
from controller.remote.message import record_hash
from tests.broker import Mosquitto

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("preset", "event"), [("popout", "cut-10s"), ("five", "kill-9-B"), ("classic", "quiet")]
)
def test_a_linked_game_through_its_event_ends_clean(
    mosquitto: Mosquitto, tmp_path: Path, preset: str, event: str
) -> None:
    tally, latency = LinkedTally(), Latency()
    plan = LinkedPlan(0, preset, seed=5, event=event, at=1, cut_scale=0.1)
    LinkedGrids(plan, mosquitto, tmp_path, tally, latency).play()
    assert tally.clean, tally.problems
    assert tally.moves_compared >= 3 and tally.moves == tally.moves_compared
    assert tally.injected[event] == (event != "quiet")
    assert tally.detected[event] == tally.repaired[event] == tally.injected[event]
    assert latency.quiet if event == "quiet" else latency.noisy_times


def test_two_grids_that_disagree_are_counted(
    mosquitto: Mosquitto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one grid's record hash misread: the harness must not call it the same game
    hashes = iter(range(10**6))
    monkeypatch.setattr(
        "bench.soaklib.linkedgrids.record_hash", lambda game: f"{record_hash(game)}{next(hashes)}"
    )
    tally = LinkedTally()
    plan = LinkedPlan(0, "classic", seed=5, event="quiet", at=1)
    LinkedGrids(plan, mosquitto, tmp_path, tally, Latency()).play()
    assert tally.journal_divergences == 1 and not tally.clean


@pytest.mark.parametrize(
    ("preset", "event", "killed"),
    [("classic", "kill-9-A", 1), ("five", "kill-9-B", 1), ("popout", "both-restarted", 2)],
)
def test_grid_processes_killed_with_sigkill_resume_with_nothing_lost(
    mosquitto: Mosquitto,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    preset: str,
    event: str,
    killed: int,
) -> None:
    statuses: list[int | None] = []
    kill = GridProcess.kill

    def recorded(grid: GridProcess) -> None:
        kill(grid)
        statuses.append(grid.process.returncode)

    monkeypatch.setattr(GridProcess, "kill", recorded)
    tally, latency = LinkedTally(), Latency()
    plan = LinkedPlan(0, preset, seed=5, event=event, at=1, cut_scale=0.1)
    LinkedProcesses(plan, mosquitto, tmp_path, tally, latency).play()
    assert statuses == [-signal.SIGKILL] * killed  # real processes, really killed
    assert tally.clean, tally.problems
    assert tally.moves_compared >= 3 and tally.moves == tally.moves_compared
    assert tally.detected[event] == tally.repaired[event] == tally.injected[event] == 1
    assert latency.noisy_times  # to B's light, each of A's moves


def test_grid_processes_whose_journals_disagree_are_counted(
    mosquitto: Mosquitto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one journal's record hash misread: the harness must not call it the same game
    hashes = iter(range(10**6))
    monkeypatch.setattr(
        "bench.soaklib.linkedprocs.record_hash",
        lambda game: f"{record_hash(game)}{next(hashes)}",
    )
    tally = LinkedTally()
    plan = LinkedPlan(0, "classic", seed=5, event="quiet", at=1)
    LinkedProcesses(plan, mosquitto, tmp_path, tally, Latency()).play()
    assert tally.journal_divergences == 1 and not tally.clean
