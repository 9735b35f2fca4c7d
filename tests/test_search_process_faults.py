"""A search process that stops answering or dies costs no move and never
spins the daemon: it is replaced past its grace (or at once when it dies), the
new one searches the same position again, and after a second failure the
computer thinks in the daemon at a low level. Real child processes, stopped
with SIGSTOP and killed with SIGKILL; the budget and the grace run on a fake
clock, and the tests wait on the thinker's wake-ups, never on time."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.computer.process import FALLBACK_LEVEL, ProcessThinker
from controller.computer.thinker import Answer, Job
from controller.daemon.assembly import assemble
from controller.daemon.config import Config, parse_config
from controller.referee.verdict import Verdict
from controller.simulator.simulation import Simulation
from controller.store.journal import Journal
from engine import new_game
from engine.solver.limits import search_seconds
from engine.solver.opponent import Opponent
from hardware.clock import FakeClock, monotonic
from tests.test_run import collect

WAIT = 60.0  # seconds a test waits for a child process before it fails
BUDGET = 5.0
GRACE = 2.0


class Woken:
    """The thinker's wake-up as an event the test can wait on."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def __call__(self) -> None:
        self.event.set()

    def wait(self) -> bool:
        woken = self.event.wait(WAIT)
        self.event.clear()
        return woken


def winning() -> Job:
    """Red wins in column 4; the first legal move (column 1) loses the game."""
    game = new_game("classic")
    for move in ["4", "5", "4", "5", "4", "5"]:
        game.play(move)
    return Job("computer", ("win",), game, level=3, seed=1)


def endless() -> Job:
    """Full strength on an empty Pop Out board: it searches until hurried."""
    return Job("computer", ("long",), new_game("popout"), level=10, seed=0)


@pytest.fixture
def thinker() -> Iterator[tuple[ProcessThinker, FakeClock]]:
    clock = FakeClock()
    process = ProcessThinker(clock, budget=BUDGET, grace=GRACE)
    try:
        yield process, clock
    finally:
        if process.pid is not None:  # a stopped child would keep close() waiting
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGCONT)
        process.close()


def started_child(process: ProcessThinker) -> int:
    """Start the search process with a quick job and return its pid."""
    woken = Woken()
    quick = winning()
    process.start(quick, woken)
    assert woken.wait()
    assert [answer.job for answer in process.answers()] == [quick]
    assert process.pid is not None
    return process.pid


def stop(pid: int) -> None:
    os.kill(pid, signal.SIGSTOP)


def poll(process: ProcessThinker, clock: FakeClock, at: float) -> None:
    """Step the thinker as the daemon's loop does at ``at``; it must never
    ask to be stepped again at or before that time (a loop that spins)."""
    clock.set(at)
    process.poll(at)
    due = process.next_deadline()
    assert due is None or due > at


def answer(process: ProcessThinker, woken: Woken) -> Answer:
    assert woken.wait()
    (found,) = process.answers()
    return found


def test_a_stopped_search_process_is_replaced_past_its_grace_and_searches_again(
    thinker: tuple[ProcessThinker, FakeClock],
) -> None:
    process, clock = thinker
    first = started_child(process)
    stop(first)
    woken, job = Woken(), winning()
    process.start(job, woken)
    deadline = clock() + search_seconds(BUDGET)
    assert process.next_deadline() == deadline
    poll(process, clock, deadline)  # hurried: it does not answer
    assert process.next_deadline() == deadline + GRACE
    assert process.notice() is None
    poll(process, clock, deadline + GRACE)
    assert process.pid not in (None, first)
    notice = process.notice()
    assert notice is not None and "a new one thinks again" in notice
    found = answer(process, woken)
    assert found.job is job and str(found.move) == "4"  # searched, not the first legal move
    assert process.notice() is None  # a child answers again
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # killed and reaped, not left stopped


def test_a_search_process_killed_mid_thought_searches_again(
    thinker: tuple[ProcessThinker, FakeClock],
) -> None:
    process, clock = thinker
    first = started_child(process)
    stop(first)  # so that it dies holding the job, before it can answer
    woken, job = Woken(), winning()
    process.start(job, woken)
    os.kill(first, signal.SIGKILL)
    assert woken.wait()  # the loop is told at once, not at the deadline
    assert process.answers() == []
    poll(process, clock, clock())
    found = answer(process, woken)
    assert found.job is job and str(found.move) == "4"
    assert process.pid not in (None, first)


def test_a_second_failure_leaves_the_thinking_to_the_daemon_at_a_low_level(
    thinker: tuple[ProcessThinker, FakeClock],
) -> None:
    process, clock = thinker
    stop(started_child(process))
    woken, job = Woken(), endless()
    process.start(job, woken)
    poll(process, clock, clock() + search_seconds(BUDGET))
    poll(process, clock, clock() + GRACE)
    second = process.pid
    assert second is not None
    stop(second)  # the new one is stopped too, mid-search
    poll(process, clock, clock() + search_seconds(BUDGET))
    poll(process, clock, clock() + GRACE)
    found = answer(process, woken)
    expected = Opponent(job.game.rules, FALLBACK_LEVEL, job.seed).choose(job.game).move
    assert found.job is job and found.move == expected
    notice = process.notice()
    assert notice is not None and f"level {FALLBACK_LEVEL} at most" in notice
    assert process.pid is None  # no search process any more
    # and from then on, every search runs in the daemon
    again = winning()
    process.start(again, woken)
    assert str(answer(process, woken).move) == "4" and process.pid is None


# -- through the daemon ------------------------------------------------------------


class Tapped:
    """The daemon's thinker, with its wake-ups also told to the test."""

    def __init__(self, inner: ProcessThinker, woken: Woken) -> None:
        self.inner = inner
        self.woken = woken

    def start(self, job: Job, wake: Callable[[], None]) -> None:
        def both() -> None:
            wake()
            self.woken()

        self.inner.start(job, both)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def red_at_level_3() -> Config:
    return parse_config({"opponent": {"plays": "red", "level": 3}}, "test.toml")


def journalled_moves(state: Path) -> list[str]:
    return [r["computer"] for r in Journal(state / "journal").load().records if "computer" in r]


def expected_first_move(state: Path) -> str:
    seat = Journal(state / "journal").load().records[0]["snapshot"]["computer"]
    game = new_game("classic")
    return str(Opponent(game.rules, seat["level"], seat["seed"]).choose(game).move)


def test_a_stopped_search_process_neither_stalls_nor_spins_the_simulated_daemon(
    thinker: tuple[ProcessThinker, FakeClock], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    process, clock = thinker
    stop(started_child(process))
    woken = Woken()
    state = tmp_path / "state"
    simulation = Simulation(red_at_level_3(), state, thinker=Tapped(process, woken), clock=clock)
    try:
        steps = 0
        step = simulation.daemon.step

        def counted(now: float) -> list[Verdict]:
            nonlocal steps
            steps += 1
            return step(now)

        monkeypatch.setattr(simulation.daemon, "step", counted)
        simulation.advance(search_seconds(BUDGET) + GRACE)  # the computer thinks at time 0
        # the backend's half-second ticks, the deadline and the grace's end;
        # a loop spinning on a past deadline would take 100,000 steps here
        assert steps < 100
        fault = simulation.display().fault
        assert fault is not None and "a new one thinks again" in fault
        assert woken.wait()  # the new search process answers
        simulation.advance(0.0)
        assert journalled_moves(state) == [expected_first_move(state)]
        assert simulation.display().fault is None
    finally:
        simulation.close()


def test_the_daemon_plays_on_and_pings_the_watchdog_while_its_search_process_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    process = ProcessThinker(monotonic, budget=0.2, grace=0.5)
    first = started_child(process)
    stop(first)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(WAIT)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setenv("WATCHDOG_USEC", "200000")
    state = tmp_path / "state"
    daemon = assemble(None, None, state, monotonic, config=red_at_level_3(), thinker=process).daemon
    steps = 0
    step = daemon.step

    def counted(now: float) -> list[Verdict]:
        nonlocal steps
        steps += 1
        return step(now)

    monkeypatch.setattr(daemon, "step", counted)
    serving = threading.Thread(target=daemon.run, name="test-daemon")
    try:
        with caplog.at_level(logging.WARNING, logger="popref"):
            daemon.open()
            serving.start()
            seen = collect(sock, "STATUS=The computer (Red) is thinking.")
            seen = collect(sock, "STATUS=The computer's move:", limit=10_000)
    finally:
        daemon.stop()
        serving.join(WAIT)
        with contextlib.suppress(ProcessLookupError):
            os.kill(first, signal.SIGCONT)
        daemon.close()
        sock.close()
    assert seen.count("WATCHDOG=1") >= 1  # pinged while the search was stuck: the loop lives
    assert steps < 1000  # the loop waited on its wake-up instead of spinning
    assert journalled_moves(state) == [expected_first_move(state)]
    assert "search process did not answer" in caplog.text
