"""Two linked grids as two real ``popref simulate`` processes against a real
Mosquitto (tests/broker.py): grid A invites (``--remote yellow``), grid B
joins (``--join LINK``), each with a ``--script`` whose person copies the
other grid's moves after ``wait MS`` and with ``--json``, whose lines the
test reads. Then ``kill -9`` of either process mid-game, or of both, each
started again on its state directory: the game resumes with nothing lost or
doubled, and both journals end with the same record hash.

A script cannot wait for an event, only for real time, so the scripts of
two processes keep a schedule: the owner of a move makes it at the start of
its slot (:data:`SLOT`) and the other grid copies it at the start of the next,
just before making its own.
Where one grid is a process and the other runs in this process, the test
copies each move as soon as its ``remote`` says it waits (no schedule)."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from itertools import count, pairwise
from pathlib import Path
from typing import IO, Any

import pytest

from controller.daemon.config import parse_config
from controller.remote.message import record_hash
from controller.simulator.simulation import Simulation
from tests.broker import Mosquitto
from tests.test_remote_linked import RED_WINS, grid_a, grid_b
from tests.test_remote_seat import WAIT, act

pytestmark = pytest.mark.slow

SLOT = 1500  # ms: a move's owner to its copy; covers the broker and the processes' start
LONG = 600_000  # ms: a process waiting to be killed
RED, YELLOW = "a", "b"  # the grid that owns each colour's moves: A invites, B joins
SCRIPTS = count()  # each process's script file has a name of its own


def owner(ply: int) -> str:
    return RED if ply % 2 else YELLOW


class Grid:
    """One ``popref simulate --script FILE --json`` process and its lines."""

    def __init__(self, args: list[str], script: str, state_dir: Path) -> None:
        path = state_dir.parent / f"{state_dir.name}-{next(SCRIPTS)}.txt"
        path.write_text(script, encoding="utf-8")
        command = [sys.executable, "-m", "controller.cli", "simulate", *args]
        command += ["--script", str(path), "--json", "--state-dir", str(state_dir)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.states: list[dict[str, Any]] = []
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            if line.startswith("{"):  # not the invitation's link
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def next(self) -> dict[str, Any]:
        """The JSON object of the next action."""
        state = self.lines.get(timeout=WAIT * 3)
        assert state is not None, self.error()
        self.states.append(state)
        return state

    def until(self, moves: int) -> dict[str, Any]:
        """The first JSON object whose game has ``moves`` moves."""
        while len((state := self.next())["moves"]) != moves:
            pass
        return state

    def finish(self) -> list[dict[str, Any]]:
        """Every JSON object until the script's end, which must be a clean exit."""
        while (state := self.lines.get(timeout=WAIT * 3)) is not None:
            self.states.append(state)
        assert self.process.wait(WAIT) == 0, self.error()
        return self.states

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(WAIT)
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(WAIT)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def error(self) -> str:
        assert self.process.stderr is not None
        self.process.wait(WAIT)
        return self.process.stderr.read()


def schedule(grid: str, moves: tuple[str, ...], first: int = 1, made: int = 0) -> str:
    """``grid``'s script for plies ``first`` on (but for those up to ``made``,
    already on its grid): each move made at the start of its slot, copied by
    the other grid at the start of the next, just before its own move."""
    lines: list[str] = []
    now = 0
    for ply in range(max(first, made + 1), len(moves) + 1):
        due = ply - first + (0 if owner(ply) == grid else 1)
        if due > now:
            lines.append(f"wait {(due - now) * SLOT}")
        lines.append(f"drop {moves[ply - 1]}")
        now = due
    return "\n".join(lines) + "\n"


def reactive(grid: str, moves: tuple[str, ...], first: int = 1, then: str = "") -> str:
    """``grid``'s script against a grid the test drives, which copies at once:
    a whole slot for each of the other grid's moves to come; then ``then``."""
    lines = [
        f"drop {move}" if owner(ply) == grid else f"wait {2 * SLOT}\ndrop {move}"
        for ply, move in enumerate(moves[first - 1 :], start=first)
    ]
    return "\n".join([*lines, then]) + "\n"


def copied(states: list[dict[str, Any]], grid: str, moves: tuple[str, ...]) -> None:
    """Each of the other grid's moves was lit before it was copied (``remote``),
    with the link up, and nothing was lit once the game was over."""
    for before, after in pairwise(states):
        made = len(after["moves"]) - len(before["moves"])
        ply = len(after["moves"])
        if made == 1 and owner(ply) != grid and after["action"].startswith("drop"):
            assert before["remote"] == moves[ply - 1], (before, after)
            assert before["link"] == "up", before
    last = states[-1]
    # not the link: the other process may have finished, and said goodbye, first
    assert last["remote"] is None and last["result"] == "red", last


def journalled(state_dir: Path, rules: str = "classic") -> tuple[list[str], str]:
    """The game ``state_dir``'s journal holds, and its record hash, read by a
    daemon without a link once the process is gone."""
    simulation = Simulation(parse_config({}, "test.toml"), state_dir, rules)
    try:
        game = simulation.daemon.referee.game
        return [str(move) for move in game.moves], record_hash(game)
    finally:
        simulation.close()


def same_journals(a: Path, b: Path, moves: tuple[str, ...]) -> None:
    game_a, game_b = journalled(a), journalled(b)
    assert game_a == game_b and game_a[0] == list(moves)


@pytest.fixture
def link(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[str]:
    """An invitation made on grid A's state directory, so that both processes
    can be started at the same moment (A resumes it, and prints it again)."""
    a = grid_a(mosquitto, tmp_path / "a")
    invited = a.links[-1]
    a.close()
    yield invited


def a_process(mosquitto: Mosquitto, tmp_path: Path, script: str) -> Grid:
    args = ["--remote", "yellow", "--broker", mosquitto.url]
    return Grid(args, script, tmp_path / "a")


def b_process(link: str, tmp_path: Path, script: str) -> Grid:
    return Grid(["--join", link], script, tmp_path / "b")


def finish(a: Grid, b: Grid, tmp_path: Path) -> None:
    """Both scripts run to the game's end, each copying the other's moves,
    and both journals hold the same game."""
    try:
        copied(a.finish(), RED, RED_WINS)
        copied(b.finish(), YELLOW, RED_WINS)
    finally:
        a.close()
        b.close()
    same_journals(tmp_path / "a", tmp_path / "b", RED_WINS)


def test_two_processes_play_one_game_each_copying_the_other_s_moves(
    mosquitto: Mosquitto, link: str, tmp_path: Path
) -> None:
    a = a_process(mosquitto, tmp_path, schedule(RED, RED_WINS))
    b = b_process(link, tmp_path, schedule(YELLOW, RED_WINS))
    finish(a, b, tmp_path)


def drive(sim: Simulation, grid: str, moves: tuple[str, ...], first: int, last: int) -> None:
    """The grid in this process plays plies ``first`` to ``last``: its own at
    once, the other grid's as soon as they are lit to be copied."""
    for ply in range(first, last + 1):
        move = moves[ply - 1]
        if owner(ply) != grid:
            for _ in range(int(WAIT / 0.05)):
                if sim.daemon.state()["remote"] == move:
                    break
                sim.wait_real(0.05)
            assert sim.daemon.state()["remote"] == move, sim.daemon.state()
        act(sim, f"drop {move}")
        assert len(sim.daemon.referee.game.moves) == ply, sim.daemon.state()


KILLED_AFTER = 3  # plies made when a process is killed: A's second move, maybe not yet sent


@pytest.mark.parametrize("victim", [RED, YELLOW])
def test_a_process_killed_mid_game_resumes_with_nothing_lost_or_doubled(
    victim: str, mosquitto: Mosquitto, link: str, tmp_path: Path
) -> None:
    other = YELLOW if victim == RED else RED

    def start(script: str) -> Grid:
        if victim == RED:
            return a_process(mosquitto, tmp_path, script)
        return b_process(link, tmp_path, script)

    def survivor() -> Simulation:
        if victim == RED:
            return grid_b(link, tmp_path / "b")
        return grid_a(mosquitto, tmp_path / "a")

    played = RED_WINS[:KILLED_AFTER]
    grid = start(reactive(victim, played, then=f"wait {LONG}"))
    sim = survivor()
    try:
        drive(sim, other, RED_WINS, 1, KILLED_AFTER - (victim == RED))
        grid.until(KILLED_AFTER)  # the victim made or copied the third move
        grid.kill()
        grid = start(reactive(victim, RED_WINS, KILLED_AFTER + 1))
        drive(sim, other, RED_WINS, KILLED_AFTER + 1 - (victim == RED), len(RED_WINS))
        copied(grid.finish(), victim, RED_WINS)
        assert sim.daemon.state()["result"] == "red"
    finally:
        grid.close()
        sim.close()
    same_journals(tmp_path / "a", tmp_path / "b", RED_WINS)


def test_both_processes_killed_mid_game_and_started_again(
    mosquitto: Mosquitto, link: str, tmp_path: Path
) -> None:
    # A made the third move (perhaps not yet sent) and B has not copied it
    a_first = schedule(RED, RED_WINS[:KILLED_AFTER]) + f"wait {LONG}\n"
    b_first = schedule(YELLOW, RED_WINS[: KILLED_AFTER - 1]) + f"wait {LONG}\n"
    a = a_process(mosquitto, tmp_path, a_first)
    b = b_process(link, tmp_path, b_first)
    try:
        a.until(KILLED_AFTER)
        b.until(KILLED_AFTER - 1)
        a.kill()
        b.kill()
        a = a_process(mosquitto, tmp_path, schedule(RED, RED_WINS, KILLED_AFTER, KILLED_AFTER))
        b = b_process(link, tmp_path, schedule(YELLOW, RED_WINS, KILLED_AFTER))
        finish(a, b, tmp_path)
    finally:
        a.close()
        b.close()


def test_a_joined_process_follows_the_next_game_on_the_same_link(
    mosquitto: Mosquitto, link: str, tmp_path: Path
) -> None:
    """B a real process, given only the first link: once A (here) begins its
    next game, B follows it by itself, and after B's slider the two grids
    play it, each move lit on the other."""
    following = "\n".join(
        [f"wait {3 * SLOT}", "slider open", "slider close", f"wait {2 * SLOT}", "drop 4", "drop 5"]
    )
    b = b_process(link, tmp_path, reactive(YELLOW, RED_WINS, then=following))
    sim = grid_a(mosquitto, tmp_path / "a")
    try:
        drive(sim, RED, RED_WINS, 1, len(RED_WINS))
        b.until(len(RED_WINS))  # the winning move copied there too
        act(sim, "slider open", "slider close")  # A's next game, on the same link
        assert sim.links[-1] != link
        for _ in range(int(WAIT / 0.05)):  # B's slider begins it there
            if sim.daemon.state()["link"] == "up" and sim.daemon.state()["linked"]:
                break
            sim.wait_real(0.05)
        assert sim.daemon.state()["linked"] == "inviting", sim.daemon.state()
        drive(sim, RED, ("4", "5"), 1, 2)
        states = b.finish()
    finally:
        b.close()
        sim.close()
    over = next(i for i, state in enumerate(states) if state["result"] == "red")
    copied(states[: over + 1], YELLOW, RED_WINS)
    lit = [before["remote"] for before, after in pairwise(states) if after["action"] == "drop 4"]
    assert lit[-1] == "4"  # the next game's first move was lit on B before it was copied
    assert journalled(tmp_path / "b")[0] == journalled(tmp_path / "a")[0] == ["4", "5"]
