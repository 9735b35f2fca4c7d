"""A whole soak: every rules preset on three kinds of table, games with a
friend on the broker, then kills.

Each preset gets up to three tables, each one daemon playing game after
game: one on GPIO mock pins without colour sensing and with clean edges, one
on GPIO with colour sensing and 5 ms bounce and chatter on every edge, and
one over the simulated sensor board's serial link (the firmware on a real
pty), with serial faults. Games rotate between them. With ``remote``, each
round also plays ``remote_games`` games on a fourth kind of table, on GPIO,
where a friend plays one colour through a Mosquitto the soak starts
(``bench/soaklib/remoteplay.py``), presets in turn from the seed. Every
preset's players have their own seeded ``random.Random``, so a run repeats
exactly; only the moment a ``kill -9`` lands, and when the broker's
messages arrive, depend on the machine.

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

from bench.soaklib.friend import Friend
from bench.soaklib.kills import KillPlan, kill_and_resume
from bench.soaklib.remotekill import kill_while_asked
from bench.soaklib.storagefaults import storage_faults
from bench.soaklib.table import Diverged, SoakTable, TableSetup
from bench.soaklib.tally import Tally
from engine import RULES_NAMES
from engine.colour import Colour
from tests.broker import Mosquitto

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
REMOTE = 3  # the table kind with a friend on the broker


@dataclass(frozen=True, slots=True)
class SoakPlan:
    """What to run: ``games`` per preset (per round when ``minutes`` is set:
    rounds go on until that much wall time has passed), and with ``remote``
    ``remote_games`` games with a friend on the broker per round; then
    ``kills`` kill -9 scenarios spread over the presets, and ``remote_kills``
    of the daemon while the friend's request waits."""

    games: int = 2
    seed: int = 0
    minutes: float | None = None
    kills: int = 3
    presets: tuple[str, ...] = RULES_NAMES
    faults: tuple[str, ...] = ALL_FAULTS
    serial: bool = True  # one table kind in three over the sensor board's serial link
    serial_faults: tuple[str, ...] = SERIAL_FAULTS
    remote: bool = False  # needs Mosquitto (tests/broker.py)
    remote_games: int = 2
    remote_kills: int = 0


def run_soak(plan: SoakPlan, workdir: Path, progress: Callable[[str], None] | None = None) -> Tally:
    """Run ``plan`` with state directories under ``workdir``."""
    # The daemon logs every move; a soak makes thousands of them.
    logging.getLogger("popref").setLevel(logging.ERROR)
    tally = Tally()
    broker = _Broker(workdir / "broker")
    try:
        _play(plan, workdir, tally, broker, progress)
        _kill(plan, workdir, tally, broker)
    finally:
        broker.stop()
    if plan.kills:  # the storage faults restart the daemon too
        storage_faults(plan.presets, plan.seed, plan.games, workdir, tally)
    return tally


def _play(
    plan: SoakPlan,
    workdir: Path,
    tally: Tally,
    broker: _Broker,
    progress: Callable[[str], None] | None,
) -> None:
    """The games, round after round."""
    deadline = None if plan.minutes is None else time.monotonic() + plan.minutes * 60
    tables: dict[tuple[str, int], SoakTable] = {}
    rngs = {p: random.Random(f"{plan.seed}/{p}") for p in plan.presets}
    # the friend's games draw from their own: the other tables play as without them
    remote_rngs = {p: random.Random(f"{plan.seed}/remote/{p}") for p in plan.presets}
    round_number = 0
    game = _Game(plan, tables, workdir, tally, broker)
    try:
        while True:
            for index, preset in enumerate(plan.presets):
                for number in range(plan.games):
                    kind = (number + index + round_number) % (3 if plan.serial else 2)
                    game.play(preset, kind, rngs[preset])
                if progress is not None:
                    progress(
                        f"round {round_number + 1}: {preset} done, "
                        f"{sum(tally.games.values())} games so far"
                    )
            for number in range(plan.remote_games if plan.remote else 0):
                turn = plan.seed + round_number * plan.remote_games + number
                preset = plan.presets[turn % len(plan.presets)]
                game.play(preset, REMOTE, remote_rngs[preset])
            round_number += 1
            if deadline is None or time.monotonic() >= deadline:
                break
    finally:
        for (preset, _), table in tables.items():
            tally.archived[preset] += len(table.sim.daemon.archive.games())
            _close(table)


def _kill(plan: SoakPlan, workdir: Path, tally: Tally, broker: _Broker) -> None:
    """The kill -9 scenarios, then those with a friend's request waiting."""
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
    remote_rng = random.Random(f"{plan.seed}/remote-kills")
    for number in range(plan.remote_kills if plan.remote else 0):
        # after the presets the friend's games had in this seed
        preset = plan.presets[(plan.seed + plan.remote_games + number) % len(plan.presets)]
        kill = KillPlan(
            preset,
            kill_after=remote_rng.randint(0, 12),
            seed=plan.seed * 1000 + plan.kills + number,
            faults=plan.faults,
        )
        try:
            kill_while_asked(kill, broker.get(), workdir, remote_rng, tally)
        except Diverged:
            pass
        except Exception:
            tally.fail("crashes", f"kill scenario with a friend {kill}: {_last_line()}")


class _Broker:
    """The soak's Mosquitto, started when a friend first needs it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._broker: Mosquitto | None = None

    def get(self) -> Mosquitto:
        if self._broker is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            broker = Mosquitto(self.directory)
            broker.start()
            self._broker = broker
        return self._broker

    def stop(self) -> None:
        if self._broker is not None:
            self._broker.stop()
            self._broker = None


@dataclass
class _Game:
    """Plays one game on a preset's table of a kind, made when first needed;
    a table that diverged or crashed is replaced for the next game."""

    plan: SoakPlan
    tables: dict[tuple[str, int], SoakTable]
    workdir: Path
    tally: Tally
    broker: _Broker

    def play(self, preset: str, kind: int, rng: random.Random) -> None:
        key = (preset, kind)
        table = self.tables.get(key)
        try:
            if table is None:
                table = self.tables[key] = self._table(preset, kind, rng)
            table.play_game()
        except Exception as error:
            if not isinstance(error, Diverged):  # a divergence is already counted
                self.tally.fail("crashes", f"{preset}: {_last_line()}")
            # a table that diverged or crashed cannot be trusted: the next game
            # gets a new one
            if table is not None:
                self.tally.archived[preset] += len(table.sim.daemon.archive.games())
                self.tables.pop(key, None)
                with contextlib.suppress(Exception):  # already counted; closing is best effort
                    _close(table)

    def _table(self, preset: str, kind: int, rng: random.Random) -> SoakTable:
        plan, tally = self.plan, self.tally
        friend = None
        if kind == SERIAL:
            setup = TableSetup(preset, seed=plan.seed, faults=plan.serial_faults, link="serial")
        elif kind == REMOTE:
            # with or without colour sensing, the friend's colour drawn too
            setup = TableSetup(
                preset, colour_sensing=rng.random() < 0.5, seed=plan.seed, faults=plan.faults
            )
            friend = Friend(self.broker.get(), rng.choice(list(Colour)), tally)
        else:
            setup = TableSetup(
                preset,
                colour_sensing=kind == 1,
                rough=kind == 1,
                seed=plan.seed,
                faults=plan.faults,
            )
        state = self.workdir / f"{preset.replace('+', '-')}-{kind}-{len(tally.problems)}"
        try:
            return SoakTable(setup, state, rng, tally, friend)
        except BaseException:
            if friend is not None:
                friend.close()
            raise


def _close(table: SoakTable) -> None:
    try:
        table.close()
    finally:
        if table.friend is not None:
            table.friend.close()


def _last_line() -> str:
    lines = traceback.format_exc().strip().splitlines()
    where = next(
        (line.strip() for line in reversed(lines) if line.strip().startswith('File "')), ""
    )
    return f"{lines[-1]} ({where})"
