"""``kill -9`` of the daemon while a friend's request waits to be made on
the grid: the journal must resume the invitation and the pending move.

A table with a friend plays up to the friend's turn after ``kill_after``
moves or more, and stops cleanly. ``popref simulate`` then resumes it in a
process of its own (the same state directory and configuration; its script
only waits), serving the same link; the friend asks for its move through the
broker, and once the board's state shows it waiting (journalled, then
published) the process is killed with SIGKILL. The restart is a table on the
same state directory: the same link, the same game, the friend's move lit; a
person makes it and the players finish the game. The journal is not torn
here: the request's record was synced before the board answered it, so a
power cut can no longer take it (``kills.py`` tears records of moves).

Example::

    kill_while_asked(KillPlan("popout", kill_after=5), broker, workdir, rng, tally)
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from bench.soaklib.friend import WAIT, Friend
from bench.soaklib.kills import POPREF, KillPlan, environment
from bench.soaklib.remoteplay import friend_moves
from bench.soaklib.table import SoakTable, TableSetup, table_settings
from bench.soaklib.tally import Tally
from engine import Game
from engine.colour import Colour
from tests.broker import Mosquitto

KIND = "kill-9-asked"  # its row in the tally
TURNS = 200  # the most turns before the friend's turn comes: a bound, never met


def kill_while_asked(
    plan: KillPlan, broker: Mosquitto, workdir: Path, rng: random.Random, tally: Tally
) -> None:
    """Play, stop, resume in a process, ask, kill, restart, check, finish."""
    state = workdir / f"remote-kill-{plan.preset.replace('+', '-')}-{plan.seed}"
    friend = Friend(broker, rng.choice(list(Colour)), tally)
    setup = TableSetup(plan.preset, seed=plan.seed, faults=plan.faults)
    try:
        game = _played_up_to_the_friend(setup, state, rng, tally, friend, plan.kill_after)
        asked = _asked_and_killed(setup, state, rng, tally, friend, game)
        if asked is not None:
            _restarted(setup, state, rng, tally, friend, asked)
    finally:
        friend.close()


def _played_up_to_the_friend(
    setup: TableSetup, state: Path, rng: random.Random, tally: Tally, friend: Friend, moves: int
) -> Game:
    """A table plays until it is the friend's turn after ``moves`` moves or
    more, then stops as a service does; the players' game."""
    table = SoakTable(setup, state, rng, tally, friend)
    try:
        for _ in range(TURNS):
            if table.replica.is_over():
                table.count_game()  # it ended here: the restart plays the next one
                table.finish()
            elif friend_moves(table) and len(table.replica.moves) >= moves:
                break
            else:
                table.turn()
        return table.replica
    finally:
        table.close()


def _asked_and_killed(
    setup: TableSetup, state: Path, rng: random.Random, tally: Tally, friend: Friend, game: Game
) -> tuple[int, str] | None:
    """``popref simulate`` resumes the table; the friend asks for a move;
    the process is killed once the move waits. The friend's request, or
    ``None`` when something failed (counted)."""
    config = state.parent / f"{state.name}.toml"
    config.write_text(toml_text(table_settings(setup, friend)))
    script = state.parent / f"{state.name}.script"
    script.write_text("wait 600000\n")  # a friend's seat: it waits in real time
    command = [str(POPREF), "simulate", "--script", str(script), "--json"]
    command += ["--state-dir", str(state), "--config", str(config)]
    errors = state.parent / f"{state.name}.stderr"
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=stderr, env=environment(state)
        )
    try:
        link = _line(process, WAIT)
        if link != friend.link:
            tally.fail("divergences", f"{KIND}: the resumed process serves {link!r}")
            return None
        ply = len(game.moves)
        resumed = friend.pump(None, lambda: _friends_turn(friend, game))
        if not resumed:
            tally.fail("divergences", f"{KIND}: the resumed process never showed move {ply}")
            return None
        move = str(rng.choice(list(game.legal_moves())))
        answer = friend.ask(None, move, ply)
        waits = friend.pump(None, lambda: friend.state.get("remote") == move)
        if answer is None or not answer.taken or not waits:
            tally.fail("lost", f"{KIND}: the friend's {move} at move {ply}: {answer}")
            return None
        friend.asked = (ply, move)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=WAIT)
    if process.returncode != -signal.SIGKILL:
        tally.fail(
            "crashes",
            f"{KIND}: popref simulate exited {process.returncode} first: "
            f"{errors.read_text(errors='replace')[-300:]}",
        )
        return None
    tally.injected[KIND] += 1
    return friend.asked


def _restarted(
    setup: TableSetup,
    state: Path,
    rng: random.Random,
    tally: Tally,
    friend: Friend,
    asked: tuple[int, str],
) -> None:
    """The restart on the same state directory: the same link and game,
    the friend's move waiting and lit; the players finish the game."""
    table = SoakTable(setup, state, rng, tally, friend)
    try:
        same = table.sim.links[-1:] == [friend.link]
        resumed = len(table.replica.moves) == asked[0]
        table.check("the restart")  # the friend's view agrees, its move waiting
        detected = same and resumed and friend.state.get("remote") == asked[1]
        if not detected:
            tally.fail(
                "divergences",
                f"{KIND}: after the restart the link {'is' if same else 'is not'} the same, "
                f"{len(table.replica.moves)} moves (asked at {asked[0]}), "
                f"the board waits for {friend.state.get('remote')!r}, not {asked[1]!r}",
            )
        tally.detected[KIND] += detected
        table.play_game()  # the friend's move is made first, as lit
        tally.repaired[KIND] += detected and table.check("the game after the restart")
    finally:
        tally.archived[setup.preset] += len(table.sim.daemon.archive.games())
        table.close()


def _friends_turn(friend: Friend, game: Game) -> bool:
    """The friend sees the resumed ``game``, its turn, nothing asked yet."""
    state = friend.state
    return (
        state.get("moves") == [str(m) for m in game.moves]
        and state.get("to_move") == friend.colour.value
        and state.get("remote") is None
    )


def _line(process: subprocess.Popen[bytes], timeout: float) -> str:
    """The process's next line of standard output, within ``timeout`` s."""
    assert process.stdout is not None
    out = process.stdout.fileno()  # unbuffered: select() sees every byte
    end = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([out], [], [], max(0.0, end - time.monotonic()))
        chunk = os.read(out, 1) if ready else b""
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace").strip()


def toml_text(settings: dict[str, Any]) -> str:
    """``settings`` (tables of strings, whole numbers and truth values) as TOML.

    >>> print(toml_text({"game": {"rules": "pop10"}, "board": {"rows": 6, "sensing": False}}))
    [game]
    rules = "pop10"
    [board]
    rows = 6
    sensing = false
    <BLANKLINE>
    """
    lines = []
    for name, table in settings.items():
        lines.append(f"[{name}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"
