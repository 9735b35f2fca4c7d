"""Process faults: ``kill -9`` of a running ``popref simulate`` at a random
moment, sometimes a torn last journal write, then a restart on the same
state directory that must carry on with the same game.

The killed process plays a script of legal moves drawn from the engine. The
restart is a :class:`~bench.soaklib.table.SoakTable` on the same state
directory (the same journal replay and grid restore as ``popref simulate``),
whose players then finish the game by reading the lights.

The simulated grid is saved after each action, the journal at each event, so
a kill inside an action can leave the saved grid one action behind the
journal, and a torn last journal record leaves the journal one action behind
the grid. A real grid cannot fall behind what its sensors reported, and the
referee has no sensor for what a column holds, so it cannot see either case:
the harness counts them (``torn_by_kill``), checks they are exactly one
action, and puts the journal's discs in the simulated grid before play goes on.

Example::

    kill_and_resume(KillPlan("popout", kill_after=5, tear=True), workdir, rng, tally)
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.soaklib.table import SoakTable, TableSetup, believed
from bench.soaklib.tally import Tally
from controller.referee.core import Referee, Table
from engine import Move, MoveKind, new_game
from engine.colour import Colour

POPREF = Path(sys.executable).with_name("popref")
SCRIPT_MOVES = (8, 40)


@dataclass(frozen=True, slots=True)
class KillPlan:
    """One kill: the preset, after how many reported actions to kill, and
    whether to tear the last journal record as a power cut would."""

    preset: str
    kill_after: int
    tear: bool = False
    seed: int = 0
    faults: tuple[str, ...] = ("stuck-beam", "glitch", "missed-edge")


def random_script(
    preset: str, rng: random.Random, columns: int = 7, rows: int = 6
) -> tuple[list[str], list[Move]]:
    """Script lines of random legal moves for a new game, and those moves."""
    rules = Referee(Table(columns=columns, rows=rows), preset).rules_for(preset)
    game = new_game(rules)
    offset = 1 if rules.strips else 0
    lines: list[str] = []
    moves: list[Move] = []
    for _ in range(rng.randint(*SCRIPT_MOVES)):
        if game.is_over():
            break
        mover = game.to_move
        assert mover is not None
        move = rng.choice(list(game.legal_moves()))
        column = move.column - offset
        lines.append(
            f"drop {column} {mover.value}" if move.kind is MoveKind.DROP else f"pop {column}"
        )
        moves.append(move)
        game.play(move)
    return lines, moves


def tear_journal(path: Path, rng: random.Random) -> bool:
    """Cut the last event record of ``path`` part-way, as a write torn by a
    power cut leaves it; returns whether there was an event record to tear."""
    if not path.exists():
        return False  # killed before the journal was created
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    if len(lines) < 2 or b'"e":' not in lines[-1]:
        return False
    last = lines[-1]
    path.write_bytes(b"".join(lines[:-1]) + last[: rng.randint(1, len(last) - 2)])
    return True


def environment(state: Path) -> dict[str, str]:
    """The environment of a ``popref simulate`` to be killed, on ``state``."""
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "STATE_DIRECTORY")}
    # a process killed with -9 cannot remove its temporary directory: keep
    # it in the soak's own directory, which goes when the soak ends
    env["TMPDIR"] = str(state.parent)
    return env


def kill_and_resume(plan: KillPlan, workdir: Path, rng: random.Random, tally: Tally) -> None:
    """Run, kill, maybe tear, restart, check, and finish the game."""
    state = workdir / f"kill-{plan.preset.replace('+', '-')}-{plan.seed}"
    state.mkdir(parents=True)
    config = state.parent / f"{state.name}.toml"
    config.write_text(f'[game]\nrules = "{plan.preset}"\n[board]\ncolumns = 7\nrows = 6\n')
    lines, moves = random_script(plan.preset, rng)
    script = state.parent / f"{state.name}.script"
    script.write_text("\n".join(lines) + "\n")
    command = [
        str(POPREF),
        "simulate",
        "--script",
        str(script),
        "--json",
        "--state-dir",
        str(state),
        "--config",
        str(config),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment(state)
    )
    assert process.stdout is not None
    for _ in range(plan.kill_after):
        if not process.stdout.readline():
            break
    process.send_signal(signal.SIGKILL)
    _, errors = process.communicate(timeout=30)
    if process.returncode not in (0, -signal.SIGKILL):
        tally.fail(
            "crashes",
            f"popref simulate exited {process.returncode}: "
            f"{errors.decode(errors='replace').strip()[-300:]}",
        )
        return
    tally.injected["kill-9"] += 1
    torn = plan.tear and tear_journal(state / "journal", rng)
    if torn:
        tally.injected["torn-journal"] += 1
    try:
        setup = TableSetup(plan.preset, seed=plan.seed, faults=plan.faults)
        table = SoakTable(setup, state, rng, tally)
    except Exception as error:  # any start-up failure is the crash this counts
        tally.fail("crashes", f"restart after kill -9 failed: {type(error).__name__}: {error}")
        return
    try:
        _resume(table, plan, moves, torn, tally)
    finally:
        tally.archived[plan.preset] += len(table.sim.daemon.archive.games())
        table.close()


def _resume(table: SoakTable, plan: KillPlan, moves: list[Move], torn: bool, tally: Tally) -> None:
    played = list(table.referee.game.moves)
    resumed = played == moves[: len(played)]
    if not resumed:
        tally.fail("divergences", f"restart resumed {played}, the script played {moves}")
    physical = [list(c) for c in table.sim.grid.columns_content()]
    belief = [list(c) for c in table.referee.grid]
    if not believed(belief, physical):
        if _one_action_apart(physical, belief):
            tally.torn_by_kill += 1
            table.sim.grid.load([[d for d in c if d is not None] for c in belief])
        else:
            tally.fail("divergences", f"after kill -9 the grid is {physical}, the journal {belief}")
    good = resumed and table.check("restart")
    tally.detected["kill-9"] += good
    tally.detected["torn-journal"] += good and torn
    if table.replica.is_over():
        # it ended in the killed process
        tally.games[plan.preset] += 1
        tally.finished[plan.preset] += 1
        table.finish()
    else:
        table.play_game()
    finished_ok = table.check("the game after the restart")
    tally.repaired["kill-9"] += good and finished_ok
    tally.repaired["torn-journal"] += good and finished_ok and torn


def _one_action_apart(a: list[list[Colour]], b: list[list[Colour | None]]) -> bool:
    """Whether grids ``a`` and ``b`` differ by one disc added on top of or
    popped from the bottom of one column."""
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(differ) != 1:
        return False
    x, y = a[differ[0]], b[differ[0]]
    longer, shorter = (x, y) if len(x) > len(y) else (y, x)
    return len(longer) == len(shorter) + 1 and (
        list(longer[:-1]) == list(shorter) or list(longer[1:]) == list(shorter)
    )
