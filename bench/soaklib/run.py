"""A whole soak: every rules preset on three kinds of table, then kills.

Each preset gets up to three tables, each one daemon playing game after
game: one on GPIO mock pins without colour sensing and with clean edges, one
on GPIO with colour sensing and 5 ms bounce and chatter on every edge, and
one over the simulated sensor board's serial link (the firmware on a real
pty), with serial faults. Games rotate between them. Every preset's players
have their own seeded ``random.Random``, so a run repeats exactly; only the
moment a ``kill -9`` lands depends on the machine.

>>> import tempfile, pathlib
>>> plan = SoakPlan(games=1, seed=2, presets=("classic",), kills=0, faults=("glitch",))
>>> tally = run_soak(plan, pathlib.Path(tempfile.mkdtemp()))
>>> tally.games["classic"] >= 1, tally.clean
(True, True)
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.soaklib.kills import KillPlan, kill_and_resume
from bench.soaklib.storagefaults import storage_faults
from bench.soaklib.table import Diverged, SoakTable, TableSetup
from bench.soaklib.tally import Tally
from engine import RULES_NAMES

ALL_FAULTS = ("stuck-beam", "glitch", "missed-edge")
# No missed edge on the sensor board: the RP2040 latches pin edges in hardware.
SERIAL_FAULTS = (
    "stuck-beam",
    "glitch",
    "corrupt-bytes",
    "forged-heartbeats",
    "board-reset",
    "unplug",
)
SERIAL = 2  # the table kind over the serial link


@dataclass(frozen=True, slots=True)
class SoakPlan:
    """What to run: ``games`` per preset (per round when ``minutes`` is set:
    rounds go on until that much wall time has passed), then ``kills`` kill -9
    scenarios spread over the presets."""

    games: int = 2
    seed: int = 0
    minutes: float | None = None
    kills: int = 3
    presets: tuple[str, ...] = RULES_NAMES
    faults: tuple[str, ...] = ALL_FAULTS
    serial: bool = True  # one table kind in three over the sensor board's serial link
    serial_faults: tuple[str, ...] = SERIAL_FAULTS


def run_soak(plan: SoakPlan, workdir: Path, progress: Callable[[str], None] | None = None) -> Tally:
    """Run ``plan`` with state directories under ``workdir``."""
    # The daemon logs every move; a soak makes thousands of them.
    logging.getLogger("popref").setLevel(logging.ERROR)
    tally = Tally()
    deadline = None if plan.minutes is None else time.monotonic() + plan.minutes * 60
    tables: dict[tuple[str, int], SoakTable] = {}
    rngs = {p: random.Random(f"{plan.seed}/{p}") for p in plan.presets}
    round_number = 0
    try:
        while True:
            for index, preset in enumerate(plan.presets):
                for game in range(plan.games):
                    kind = (game + index + round_number) % (3 if plan.serial else 2)
                    _one_game(plan, preset, kind, tables, rngs[preset], workdir, tally)
                if progress is not None:
                    progress(
                        f"round {round_number + 1}: {preset} done, "
                        f"{sum(tally.games.values())} games so far"
                    )
            round_number += 1
            if deadline is None or time.monotonic() >= deadline:
                break
    finally:
        for (preset, _), table in tables.items():
            tally.archived[preset] += len(table.sim.daemon.archive.games())
            table.close()
    rng = random.Random(f"{plan.seed}/kills")
    for number in range(plan.kills):
        # start the rotation at the seed, so that a sweep of one kill a
        # seed kills every preset, not only the first
        preset = plan.presets[(plan.seed + number) % len(plan.presets)]
        kill = KillPlan(
            preset,
            kill_after=rng.randint(0, 12),
            tear=number % 2 == 1,
            seed=plan.seed * 1000 + number,
            faults=plan.faults,
        )
        try:
            kill_and_resume(kill, workdir, rng, tally)
        except Diverged:
            pass  # counted where it was found
        except Exception:
            tally.fail("crashes", f"kill scenario {kill}: {_last_line()}")
    if plan.kills:  # the storage faults restart the daemon too
        storage_faults(plan.presets, plan.seed, plan.games, workdir, tally)
    return tally


def _one_game(
    plan: SoakPlan,
    preset: str,
    kind: int,
    tables: dict[tuple[str, int], SoakTable],
    rng: random.Random,
    workdir: Path,
    tally: Tally,
) -> None:
    key = (preset, kind)
    table = tables.get(key)
    try:
        if table is None:
            if kind == SERIAL:
                setup = TableSetup(preset, seed=plan.seed, faults=plan.serial_faults, link="serial")
            else:
                setup = TableSetup(
                    preset,
                    colour_sensing=kind == 1,
                    rough=kind == 1,
                    seed=plan.seed,
                    faults=plan.faults,
                )
            state = workdir / f"{preset.replace('+', '-')}-{kind}-{len(tally.problems)}"
            table = tables[key] = SoakTable(setup, state, rng, tally)
        table.play_game()
    except Exception as error:
        if not isinstance(error, Diverged):  # a divergence is already counted
            tally.fail("crashes", f"{preset}: {_last_line()}")
        # a table that diverged or crashed cannot be trusted: the next game
        # gets a new one
        if table is not None:
            tally.archived[preset] += len(table.sim.daemon.archive.games())
            tables.pop(key, None)
            with contextlib.suppress(Exception):  # already counted; closing is best effort
                table.close()


def _last_line() -> str:
    lines = traceback.format_exc().strip().splitlines()
    where = next(
        (line.strip() for line in reversed(lines) if line.strip().startswith('File "')), ""
    )
    return f"{lines[-1]} ({where})"
