"""Storage faults for the soak: the disk fills up as a game ends, and the
board changes size under a saved game.

- ``disk-full``: while a move may end the game, the state directory (or, on
  every other round, only its archive) is full. The board must show the
  fault, keep refereeing, survive a restart while the archive stays full, and
  archive the finished game exactly once when space returns.
- ``board-size``: a game is left half played, the daemon stops, and the
  table comes back with one row or column more or fewer (another physical
  grid, so it starts empty). The old journal must be kept aside, a new game
  must begin at once, and no game that never happened may reach the archive.

Both count in the tally like any fault (injected, detected, repaired); a
finished game missing from the archive counts as lost, an exception as a crash.
"""

from __future__ import annotations

import logging
import random
import traceback
from pathlib import Path

from bench.soaklib.diskfull import full_disk
from bench.soaklib.table import MAX_ACTIONS, Diverged, SoakTable, TableSetup
from bench.soaklib.tally import Tally
from engine import Game

__all__ = ["board_size_change", "disk_full_at_the_end", "storage_faults"]


def storage_faults(
    presets: tuple[str, ...], seed: int, rounds: int, workdir: Path, tally: Tally
) -> None:
    """*rounds* of each storage fault, the presets taking turns."""
    rng = random.Random(f"{seed}/storage")
    # the daemon logs each injected fault as an error: expected here, so quiet
    popref = logging.getLogger("popref")
    level = popref.level
    popref.setLevel(logging.CRITICAL)
    try:
        _rounds(presets, seed, rounds, workdir, tally, rng)
    finally:
        popref.setLevel(level)


def _rounds(
    presets: tuple[str, ...],
    seed: int,
    rounds: int,
    workdir: Path,
    tally: Tally,
    rng: random.Random,
) -> None:
    for number in range(rounds):
        preset = presets[number % len(presets)]
        for scenario in (disk_full_at_the_end, board_size_change):
            state = workdir / f"{scenario.__name__}-{number}"
            try:
                scenario(preset, seed * 1000 + number, state, rng, tally)
            except Diverged:
                pass  # counted where it was found
            except Exception:
                last = traceback.format_exc().strip().splitlines()[-1]
                tally.fail("crashes", f"{scenario.__name__} {preset}: {last}")


def _may_end(game: Game) -> bool:
    """Whether one of the mover's legal moves ends the game."""
    for move in game.legal_moves():
        after = game.after(move)
        if after.is_over():
            return True
    return False


def _archived(table: SoakTable) -> int:
    return len(table.sim.daemon.archive.games())


def disk_full_at_the_end(
    preset: str, seed: int, state: Path, rng: random.Random, tally: Tally
) -> None:
    setup = TableSetup(preset, seed=seed, faults=())
    only_archive = seed % 2 == 1
    full = state / "games" if only_archive else state
    table = SoakTable(setup, state, rng, tally)
    tally.games[preset] += 1
    tally.links[setup.link] += 1
    finished_before = tally.finished[preset]
    shown = False
    try:
        for _ in range(MAX_ACTIONS):
            if table.replica.is_over():
                break
            if not _may_end(table.replica):
                table.turn()
                continue
            with full_disk(full):
                table.turn()
                if not table.replica.is_over():
                    continue
                fault = table.sim.display().fault or ""
                shown = fault.startswith("Cannot save the game (No space left on device)")
                if only_archive:
                    # systemd restarts the daemon while the disk stays full
                    table.close()
                    table = SoakTable(setup, state, rng, tally)
                    shown = shown and table.sim.display().fault is not None
        if not table.replica.is_over():
            table.finish()  # the cap: no game ended under a full disk this time
            return
        table.finish()  # the slider: a new game, written once space is back
        finished = tally.finished[preset] - finished_before
        archived = _archived(table)
        table.close()
        table = SoakTable(setup, state, rng, tally)  # a restart must not save it again
        once = _archived(table) == archived == finished
        cleared = table.sim.display().fault is None
        tally.inject("disk-full", detected=shown, repaired=once and cleared)
        if not once:
            tally.fail("crashes", f"disk-full {preset}: {finished} finished, {archived} archived")
    finally:
        tally.archived[preset] += _archived(table)
        table.close()


def board_size_change(
    preset: str, seed: int, state: Path, rng: random.Random, tally: Tally
) -> None:
    before = TableSetup(preset, seed=seed, faults=())
    table = SoakTable(before, state, rng, tally)
    tally.games[preset] += 1
    tally.links[before.link] += 1
    try:
        for _ in range(rng.randint(2, 8)):
            if table.replica.is_over():
                break
            table.turn()
        saved = list(table.referee.game.moves)
    finally:
        tally.archived[preset] += _archived(table)
        table.close()
    # another physical grid: it starts empty
    (state / "sim-grid.json").unlink(missing_ok=True)
    which = rng.choice(("rows", "columns"))
    change = rng.choice((-1, 1))
    after = TableSetup(
        preset,
        seed=seed,
        faults=(),
        rows=before.rows + (change if which == "rows" else 0),
        columns=before.columns + (change if which == "columns" else 0),
    )
    archived_before = len(list(state.glob("games/*.txt")))
    table = SoakTable(after, state, rng, tally)
    try:
        kept = list(state.glob("journal.saved-*"))
        fresh = not table.referee.game.moves and table.sim.display().fault is None
        detected = (len(kept) == 1 or not saved) and fresh
        invented = _archived(table) - archived_before
        if invented:
            tally.fail("divergences", f"board-size {preset}: {invented} games archived on resume")
        table.play_game()
        tally.inject("board-size", detected=detected, repaired=detected and not invented)
    finally:
        tally.archived[preset] += _archived(table) - archived_before
        table.close()
