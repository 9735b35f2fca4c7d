"""``kill -9`` of the daemon while a friend's request is pending: the
journal must resume the invitation and the move waiting to be made, and a
request the daemon never journalled must be neither lost nor doubled.

A table with a friend plays up to the friend's turn after ``kill_after``
moves or more, and stops cleanly. ``popref simulate`` then resumes it in a
process of its own (the same state directory and configuration; its script
only waits), serving the same link, and the friend asks for its move through
the broker. The process is killed with SIGKILL either once the board's state
shows the move waiting (``kill-9-asked``: journalled, answered, published)
or right after the request was sent (``kill-9-in-flight``: the daemon may
have journalled it or not). The restart is a table on the same state
directory: the same link and game, and either the friend's move waiting and
lit, or (in flight only) nothing waiting, and the friend asks for the same
move again. A person makes it and the players finish the game. The journal
is not torn here: a request's record is synced before the board answers, so
a power cut can no longer take an answered one (``kills.py`` tears moves).

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

# when the kill lands, each with its row in the tally
MOMENTS = {"waiting": "kill-9-asked", "in-flight": "kill-9-in-flight"}
IN_FLIGHT = 0.2  # seconds at most between the request sent and the kill
# seconds a resumed process may take to print its link: a cold start of the
# whole daemon, niced, on 2 cores at a load of 15-19 (seed 7219 saw nothing in 20 s)
STARTING = 60.0
TURNS = 200  # the most turns before the friend's turn comes: a bound, never met


def kill_while_asked(
    plan: KillPlan,
    broker: Mosquitto,
    workdir: Path,
    rng: random.Random,
    tally: Tally,
    moment: str | None = None,
    friend: Friend | None = None,
) -> None:
    """Play, stop, resume in a process, ask, kill at ``moment`` (one of
    :data:`MOMENTS`, drawn when ``None``), restart, check, finish; ``friend``
    (a new one when ``None``) plays the remote colour."""
    state = workdir / f"remote-kill-{plan.preset.replace('+', '-')}-{plan.seed}"
    friend = friend or Friend(broker, rng.choice(list(Colour)), tally)
    setup = TableSetup(plan.preset, seed=plan.seed, faults=plan.faults)
    moment = moment or rng.choice(list(MOMENTS))
    try:
        game = _played_up_to_the_friend(setup, state, rng, tally, friend, plan.kill_after)
        asked = _asked_and_killed(setup, state, rng, tally, friend, game, moment)
        if asked is not None:
            _restarted(setup, state, rng, tally, friend, asked, moment)
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
    setup: TableSetup,
    state: Path,
    rng: random.Random,
    tally: Tally,
    friend: Friend,
    game: Game,
    moment: str,
) -> tuple[int, str] | None:
    """``popref simulate`` resumes the table; the friend asks for a move;
    the process is killed at ``moment``. The friend's request, or ``None``
    when something failed (counted)."""
    kind = MOMENTS[moment]
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
        link = _line(process, STARTING)
        if not link:
            said = errors.read_text(errors="replace")[-300:]
            if process.poll() is not None:
                tally.fail("crashes", f"{kind}: popref simulate exited first: {said}")
            else:
                tally.fail("divergences", f"{kind}: no link within {STARTING:.0f} s: {said}")
            return None
        if link != friend.link:
            tally.fail("divergences", f"{kind}: the resumed process serves {link!r}")
            return None
        ply = len(game.moves)
        # the last run's retained state would do: only the resumed process's own counts
        friend.client.state = None
        if not friend.pump(None, lambda: _friends_turn(friend, game)):
            tally.fail("divergences", f"{kind}: the resumed process never showed move {ply}")
            return None
        move = str(rng.choice(list(game.legal_moves())))
        friend.asked = (ply, move)
        if moment == "in-flight":
            friend.client.request(move, ply)
            friend.tally.requests += 1
            # the request takes a few milliseconds to be journalled: the kill
            # lands before or after, as the machine has it
            time.sleep(rng.uniform(0.0, IN_FLIGHT))
        else:
            answer = friend.ask(None, move, ply)
            waits = friend.pump(None, lambda: friend.state.get("remote") == move)
            if answer is None or not answer.taken or not waits:
                tally.fail("lost", f"{kind}: the friend's {move} at move {ply}: {answer}")
                return None
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=WAIT)
    if process.returncode != -signal.SIGKILL:
        tally.fail(
            "crashes",
            f"{kind}: popref simulate exited {process.returncode} first: "
            f"{errors.read_text(errors='replace')[-300:]}",
        )
        return None
    tally.injected[kind] += 1
    return friend.asked


def _restarted(
    setup: TableSetup,
    state: Path,
    rng: random.Random,
    tally: Tally,
    friend: Friend,
    asked: tuple[int, str],
    moment: str,
) -> None:
    """The restart on the same state directory: the same link and game, the
    friend's move waiting and lit (or, killed while it travelled, nothing
    waiting); the players finish the game, the friend asking again if its
    request died with the daemon."""
    kind = MOMENTS[moment]
    table = SoakTable(setup, state, rng, tally, friend)
    try:
        same = table.sim.links[-1:] == [friend.link]
        resumed = len(table.replica.moves) == asked[0]
        table.check("the restart")  # the friend's view agrees with the daemon's
        waits = friend.state.get("remote")
        kept = waits == asked[1] or (moment == "in-flight" and waits is None)
        if moment == "in-flight":
            tally.in_flight["journalled" if waits is not None else "asked again"] += 1
        detected = same and resumed and kept
        if not detected:
            tally.fail(
                "divergences",
                f"{kind}: after the restart the link {'is' if same else 'is not'} the same, "
                f"{len(table.replica.moves)} moves (asked at {asked[0]}), "
                f"the board waits for {waits!r}, the friend asked {asked[1]!r}",
            )
        tally.detected[kind] += detected
        table.play_game()  # the friend's move is made first, as lit
        tally.repaired[kind] += detected and table.check("the game after the restart")
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
