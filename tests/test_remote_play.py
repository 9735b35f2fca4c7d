"""``popref simulate --remote`` and ``popref play LINK`` as a person (or a test
outside the repository) runs them, against a real Mosquitto: a whole game,
and a daemon killed with SIGKILL mid-game that resumes with nothing lost."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from controller.cli.play import play
from controller.daemon.config import parse_config
from controller.referee.invitation import b64url
from controller.remote.client import RemoteClient
from controller.remote.link import Link, parse_link
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from tests.broker import Mosquitto
from tests.test_remote_seat import WAIT, act, pump, state
from tests.test_remote_seat import play as seat_play

POPREF = [sys.executable, "-m", "controller.cli"]
# Long enough for the friend's request to arrive on a loaded machine (it
# takes milliseconds); the script waits this long in real time each time.
FRIEND_MS = 5000


def simulate(mosquitto: Mosquitto, state_dir: Path, script: str) -> subprocess.Popen[str]:
    path = state_dir.with_name(state_dir.name + f"-{len(script)}.txt")
    path.write_text(script)
    return subprocess.Popen(
        [
            *POPREF,
            "simulate",
            "--json",
            "--remote",
            "yellow",
            "--broker",
            mosquitto.url,
            "--state-dir",
            str(state_dir),
            "--script",
            str(path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def first_link(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("http"), (line, process.stderr.read() if process.stderr else "")
    return line.strip()


def play_link(link: str, started: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    """``popref play LINK``, its standard streams piped."""
    friend = subprocess.Popen(
        [*POPREF, "play", link],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    started.append(friend)
    return friend


def states(stream: IO[str] | None) -> list[dict[str, Any]]:
    assert stream is not None
    return [json.loads(line) for line in stream.read().splitlines() if line.startswith("{")]


def play_briefly(
    link: str, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``popref play --timeout TIMEOUT LINK`` given one move, to its end."""
    return subprocess.run(
        [*POPREF, "play", "--timeout", f"{timeout:g}", link],
        capture_output=True,
        text=True,
        timeout=WAIT,
        input="4\n",
        env=env,
    )


@pytest.fixture
def finish() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes a test started, killed if it fails before they end."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def test_a_whole_game_with_a_remote_seat_through_popref_play(
    mosquitto: Mosquitto, tmp_path: Path, finish: list[subprocess.Popen[str]]
) -> None:
    # Red at the grid wins in column 1; the friend plays Yellow in column 2
    wait = f"wait {FRIEND_MS}"
    script = "\n".join(["drop 1", wait, "drop 2"] * 3 + ["drop 1", ""])
    board = simulate(mosquitto, tmp_path / "state", script)
    finish.append(board)
    link = first_link(board)
    friend = play_link(link, finish)
    said, complaints = friend.communicate("2\n2\n2\n", timeout=4 * FRIEND_MS / 1000 + WAIT)
    assert friend.returncode == 0, complaints
    played = [json.loads(line) for line in said.splitlines()]
    assert [state["moves"] for state in played] == [
        ["1", "2"],
        ["1", "2", "1", "2"],
        ["1", "2", "1", "2", "1", "2"],
    ]
    assert all(state["you"] == "yellow" for state in played)
    # the grid as the board sent it, not a disc behind the game
    assert all(state["grid"] == state["board"] for state in played)
    board.wait(timeout=WAIT)
    outcome = states(board.stdout)
    assert outcome[-1]["moves"] == ["1", "2", "1", "2", "1", "2", "1"]
    assert outcome[-1]["result"] == "red" and outcome[-1]["fault"] is None
    assert all("remote" in state and "computer" in state for state in outcome)
    assert outcome[1]["remote"] == "2"  # after the first wait, the friend's move waits
    # no broker address for browsers: no QR code for a phone, but what to add
    assert board.stderr is not None and "Only popref play can open this link" in board.stderr.read()


def test_a_daemon_killed_mid_game_resumes_the_invitation_and_the_pending_move(
    mosquitto: Mosquitto, tmp_path: Path, finish: list[subprocess.Popen[str]]
) -> None:
    state_dir = tmp_path / "state"
    first = simulate(mosquitto, state_dir, "drop 4\nwait 600000\n")
    finish.append(first)
    link = first_link(first)
    friend = play_link(link, finish)
    assert friend.stdin is not None
    friend.stdin.write("3\n")
    friend.stdin.flush()
    watcher = RemoteClient(parse_link(link), name="watcher")
    watcher.start()
    try:
        assert watcher.wait(lambda: (watcher.state or {}).get("remote") == "3", WAIT)
    finally:
        watcher.close()
    first.send_signal(signal.SIGKILL)  # mid-wait: the request is journalled, not yet made
    first.wait()

    second = simulate(mosquitto, state_dir, f"wait 500\ndrop 3\ndrop 5\nwait {FRIEND_MS}\ndrop 2\n")
    finish.append(second)
    assert first_link(second) == link  # the same invitation, the same secret
    friend.stdin.write("2\n")
    friend.stdin.close()
    said = friend.stdout.read() if friend.stdout else ""
    friend.wait(timeout=WAIT)
    assert friend.returncode == 0, friend.stderr.read() if friend.stderr else ""
    assert [json.loads(line)["moves"] for line in said.splitlines()] == [
        ["4", "3"],
        ["4", "3", "5", "2"],
    ]
    second.wait(timeout=WAIT)
    resumed = states(second.stdout)
    assert resumed[0]["remote"] == "3" and resumed[0]["moves"] == ["4"]
    assert resumed[-1]["moves"] == ["4", "3", "5", "2"] and resumed[-1]["fault"] is None


def test_popref_play_says_in_one_line_what_is_wrong(mosquitto: Mosquitto, tmp_path: Path) -> None:
    done = subprocess.run(
        [*POPREF, "play", "http://x/remote#v=1"], capture_output=True, text=True, timeout=WAIT
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "popref play: the link is cut short: it has no game (g); copy all of it\n"
    # the link from the environment, where other users cannot read it
    hidden = {**os.environ, "POPREF_LINK": "http://x/remote#v=1"}
    done = subprocess.run(
        [*POPREF, "play"], capture_output=True, text=True, timeout=WAIT, env=hidden
    )
    assert done.stderr == "popref play: the link is cut short: it has no game (g); copy all of it\n"
    nothing = {name: value for name, value in os.environ.items() if name != "POPREF_LINK"}
    done = subprocess.run(
        [*POPREF, "play"], capture_output=True, text=True, timeout=WAIT, env=nothing
    )
    assert done.returncode == 2
    assert done.stderr == "popref play: give the invitation link, or set POPREF_LINK to it\n"
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    link = sim.links[-1]
    sim.close()  # the invitation stays on the broker, nobody answers any more
    mosquitto.stop()
    done = play_briefly(link, 1)
    assert done.returncode == 2
    # why, when the broker is why: not "is popref running?"
    assert done.stderr == (
        "popref play: no state from the board within 1 s; the broker at "
        f"{mosquitto.url}: nothing answers on its port (connection refused)\n"
    )


def test_a_line_that_is_not_a_move_or_not_taken_is_said_and_the_next_is_played(
    mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    # the player reads its own client; the test watches through another
    client, watcher = (RemoteClient(parse_link(sim.links[-1]), name=n) for n in ("p", "w"))
    out = io.StringIO()  # what popref play prints
    status: list[int] = []

    try:
        client.start()
        watcher.start()
        act(sim, "drop 4")
        assert pump(sim, watcher, lambda: (watcher.state or {}).get("ply") == 1)
        lines = ["x9\n", "# a comment\n", "p4\n", "4\n"]
        player = threading.Thread(target=lambda: status.append(play(client, lines, out, WAIT)))
        player.start()
        assert pump(sim, watcher, lambda: state(watcher).get("remote") == "4")
        act(sim, "drop 4")
        while player.is_alive():
            pump(sim, watcher, lambda: not player.is_alive())
        player.join()
    finally:
        client.close()
        watcher.close()
        sim.close()
    assert status == [2] and [
        json.loads(line)["moves"] for line in out.getvalue().splitlines()
    ] == [["4", "4"]]
    complaints = capsys.readouterr().err.splitlines()
    assert complaints[0].startswith("popref play: line 1 ('x9'): ")
    assert complaints[1].startswith("popref play: line 3 ('p4'): the board did not take it: ")
    assert len(complaints) == 2


def test_simulate_remote_needs_a_broker() -> None:
    done = subprocess.run(
        [*POPREF, "simulate", "--remote", "red", "--script", os.devnull],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "popref simulate: --remote: a remote player needs a broker; "
        "pass --broker mqtt://HOST:PORT\n"
    )


def test_simulate_names_the_option_that_invited(mosquitto: Mosquitto, tmp_path: Path) -> None:
    # not the configuration file (or its defaults), which says nothing of it
    config = tmp_path / "popref.toml"
    config.write_text('[board]\nbackend = "sim"\n')
    command = ["simulate", "--remote", "yellow", "--broker", mosquitto.url]
    done = subprocess.run(
        [*POPREF, *command, "--config", str(config), "--state-dir", str(tmp_path / "state"),
         "--script", os.devnull],
        capture_output=True, text=True, timeout=WAIT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "(--remote says [remote] plays = yellow.)" in done.stdout + done.stderr
    assert "popref.toml says [remote]" not in done.stdout + done.stderr


def test_simulate_shows_a_qr_code_where_browsers_can_open_the_link(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    command = ["simulate", "--remote", "yellow", "--broker", mosquitto.url]
    done = subprocess.run(
        [*POPREF, *command, "--web-broker", mosquitto.ws_url, "--state-dir", str(tmp_path),
         "--script", os.devnull],
        capture_output=True, text=True, timeout=WAIT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    link = done.stdout.splitlines()[0]
    assert parse_link(link).web_broker == mosquitto.ws_url
    assert "█" in done.stdout and "Only popref play" not in done.stdout  # the QR code, as text


def test_simulate_web_broker_needs_a_broker(tmp_path: Path) -> None:
    done = subprocess.run(
        [*POPREF, "simulate", "--web-broker", "ws://127.0.0.1:9001", "--script", os.devnull,
         "--state-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=WAIT,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "popref simulate: --web-broker: it is the browsers' way to a broker; "
        "pass --broker mqtt://HOST:PORT too\n"
    )


def test_popref_play_on_a_finished_game_s_link_names_the_next_game(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """After a game finished through the link, the grid's next game is on
    the same link: ``popref play`` given the old one says so, with the next
    game's link to play it (kept off the command line, in the environment)."""
    config = parse_config({"remote": {"broker": mosquitto.url}}, "t.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    old = sim.links[-1]
    client = RemoteClient(parse_link(old), name="friend")
    client.start()
    try:
        assert pump(sim, client, lambda: client.state is not None)
        seat_play(sim, client, 1, 2, 1, 2, 1, 2, 1)  # Red wins in column 1
        act(sim, "slider open", "slider close")  # the next game, on the same link
        assert pump(sim, client, lambda: state(client).get("invitation") == "ended")
        assert sim.links[-1] != old
        ran = play_briefly(old, 5)
        assert ran.returncode == 2 and ran.stdout == ""
        assert ran.stderr.strip().endswith(
            f"the game is over (red) and the grid began its next game on this link; to play "
            f"it: POPREF_LINK='{sim.links[-1]}' popref play"
        ), ran.stderr
    finally:
        client.close()
        sim.close()


def moves_printed(out: io.StringIO) -> list[list[str]]:
    """The moves of each state popref play printed, one JSON object a line."""
    return [json.loads(line)["moves"] for line in out.getvalue().splitlines()]


def until(sim: Simulation, done: Callable[[], bool]) -> bool:
    """Run the daemon in real time until ``done()``; False after WAIT s."""
    for _ in range(int(WAIT / 0.05)):
        if done():
            return True
        sim.wait_real(0.05)
    return done()


@pytest.mark.parametrize("silent", [False, True])
def test_popref_play_follow_plays_on_in_the_grid_s_next_game(
    mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str], silent: bool
) -> None:
    """With --follow the line after a game waits for the grid's next game on
    the same link (as long as its people take to begin it) and is played
    there; without it, popref play stops at the end (the test above). A
    next game whose board says nothing within --timeout is one line and
    exit status 2."""
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    client = RemoteClient(parse_link(sim.links[-1]), name="p")
    opened: list[RemoteClient] = []
    timeout = 2.0 if silent else WAIT

    def follow(link: Link) -> RemoteClient:
        if silent:  # a game nobody publishes on
            link = dataclasses.replace(link, game=b64url(bytes(16)))
        opened.append(RemoteClient(link, name="p-next"))
        opened[-1].start()
        return opened[-1]

    out = io.StringIO()  # what popref play prints
    status: list[int] = []

    def asked(move: str) -> Callable[[], bool]:
        return lambda: sim.daemon.state()["remote"] == move

    try:
        client.start()
        lines = ["2\n", "2\n", "2\n", "3\n"]
        player = threading.Thread(
            target=lambda: status.append(play(client, lines, out, timeout, follow))
        )
        player.start()
        for _ in range(3):
            act(sim, "drop 1")
            assert until(sim, asked("2"))
            act(sim, "drop 2")
        act(sim, "drop 1")  # Red wins
        assert sim.daemon.state()["result"] == "red"
        act(sim, "slider open", "slider close")  # the next game, on the same link
        if not silent:
            act(sim, "drop 1")
            assert until(sim, asked("3")), "the line after the game, played in the next"
            act(sim, "drop 3")
        assert until(sim, lambda: not player.is_alive())
        player.join()
    finally:
        client.close()
        sim.close()
    played = [["1", "2"], ["1", "2", "1", "2"], ["1", "2", "1", "2", "1", "2"]]
    assert len(opened) == 1
    if silent:
        assert status == [2] and moves_printed(out) == played
        assert capsys.readouterr().err == (
            "popref play: line 4 ('3'): no state from the grid's next game within 2 s\n"
        )
        return
    assert status == [0] and moves_printed(out) == [*played, ["1", "3"]]
    assert opened[0].link.game == parse_link(sim.links[-1]).game


def test_the_owner_sees_popref_play_open_and_gone(
    mosquitto: Mosquitto, tmp_path: Path, finish: list[subprocess.Popen[str]]
) -> None:
    """``popref play`` says ``here`` as the friend's page does: open while it
    runs, gone when it is killed (its will) or ends (its goodbye)."""
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    try:
        for ending in ("killed", "ended"):
            friend = play_link(sim.links[-1], finish)
            assert until(sim, lambda: sim.daemon.state()["friend_here"] is True)
            if ending == "killed":
                friend.send_signal(signal.SIGKILL)
            else:
                assert friend.stdin is not None
                friend.stdin.close()  # no more moves: it ends, saying goodbye
            friend.wait(WAIT)
            assert until(sim, lambda: sim.daemon.state()["friend_here"] is False), ending
    finally:
        sim.close()
