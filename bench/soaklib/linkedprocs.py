"""One game of ``bench/linked.py --processes``: the two linked grids as two
real ``popref simulate --script - --json`` processes (``gridproc.py``),
grid A inviting (``[remote] broker`` in its configuration, ``--remote``
the other grid's colour), grid B joining with A's link (``--join``), each
reaching the broker through its own fault proxy in the bench's process.

The harness plays the people at both grids as :mod:`linkedgrids` does
(a random legal move on its owner's grid, copied on the other once lit,
now and then wrongly first), writing each action to its grid's standard
input and reading both grids' objects. A kill is a real ``SIGKILL`` of
the process (either, or both), started again on its state directory: the
game must resume with nothing lost or doubled. After each move both
grids' ``moves`` must be the moves made; after the game, once both
processes have ended as a script ends, both journals must hold them with
the same record hash. The latency is from writing a move of A's to A's
standard input to B's first object whose ``remote`` is that move: B's
light.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.soaklib.friend import WAIT
from bench.soaklib.gridproc import GridProcess
from bench.soaklib.linkedgame import LinkedSides
from bench.soaklib.linkedgrids import MISTAKE, MOST_PLIES
from controller.daemon.config import parse_config
from controller.remote.message import record_hash
from controller.simulator.simulation import Simulation
from engine import Game, Move, MoveKind, new_game
from engine.colour import Colour
from hardware.display import Lamp

REFUSED_STEP = 0.05  # seconds between looks at a proxy that refuses (a cut)


class LinkedProcesses(LinkedSides):
    """The two grid processes for one plan; :meth:`play` runs it."""

    def prepare(self) -> None:
        plan, workdir = self.plan, self.workdir
        name = f"procs-{plan.number}"
        self.dirs = tuple(workdir / f"{name}-{side}" for side in "ab")
        self.config = workdir / f"{name}-a.toml"
        self.b_colour = self.rng.choice(list(Colour))
        self.link = ""
        self.grids: list[GridProcess] = []
        self.game: Game = new_game(plan.preset)  # the moves made, as the harness's people know

    def play(self) -> None:
        with self.paths():
            try:
                self.grids = [self._grid_a()]
                self.grids.append(self._grid_b())
                self.tally.games[self.plan.preset] += 1
                if self._moves():
                    self._compare()
            finally:
                for grid in self.grids:
                    grid.close()

    # -- the processes ---------------------------------------------------------------------

    def _grid_a(self) -> GridProcess:
        self.config.write_text(
            f'[remote]\nbroker = "{self.proxies[0].url}"\n[game]\nrules = "{self.plan.preset}"\n',
            encoding="utf-8",
        )
        args = ["--config", str(self.config), "--remote", self.b_colour.value]
        a = GridProcess(args, self.dirs[0], self.dirs[0].with_suffix(".log"))
        self.link = self.link or (a.link(WAIT) or "")
        return a

    def _grid_b(self) -> GridProcess:
        ours, theirs = (quote(p.url, safe="") for p in self.proxies)
        args = ["--join", self.link.replace(ours, theirs)]
        return GridProcess(args, self.dirs[1], self.dirs[1].with_suffix(".log"))

    def _linked(self, timeout: float) -> bool:
        return all(grid.until(lambda s: s["link"] == "up", timeout) for grid in self.grids)

    def healed(self, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while any(proxy.refusing() for proxy in self.proxies):
            if time.monotonic() >= end:
                return False
            time.sleep(REFUSED_STEP)  # the cut's own clock: no event to wait on
        return self._linked(max(0.0, end - time.monotonic()))

    # -- the game --------------------------------------------------------------------------

    def _moves(self) -> bool:
        """The game to its end (or :data:`MOST_PLIES`); False when it went wrong."""
        if not self.link or not self._linked(WAIT):
            return self._failed("manual", "the grids never linked")
        while len(self.game.moves) < MOST_PLIES and not self.game.is_over():
            if len(self.game.moves) == 2 * self.plan.at + 1:
                self.strike()
            move = self.rng.choice(list(self.game.legal_moves()))
            owner = 1 if self.game.to_move is self.b_colour else 0
            if not self._one(move, owner):
                return False
        return True

    def _one(self, move: Move, owner: int) -> bool:
        """``move`` made on grid ``owner``, copied on the other; False when
        it went wrong (counted)."""
        ply = len(self.game.moves) + 1
        made, copier = self.grids[owner], self.grids[1 - owner]
        since = len(copier.seen)
        state = self._make(made, move)
        if state is None or len(state["moves"]) != ply:
            return self._failed("unplayed", f"move {ply} ({move}) was not taken on its grid")
        lit = copier.first(lambda s: s["remote"] == str(move), since, WAIT)
        if lit is None:
            return self._gone(copier) or self._failed(
                "manual", f"move {ply} ({move}) was never lit on the other grid"
            )
        if owner == 0:
            self.latency.add(lit.at - made.written)
            self.latency.add_lights(lit.at - made.answered)
        if self.rng.random() < MISTAKE:
            self._wrong_copy(copier, move, ply)
        copy = self._make(copier, move)
        self.game.play(move)
        if copy is None or len(copy["moves"]) != ply:
            return self._failed("divergences", f"the copy of move {ply} ({move}) was not taken")
        self.tally.moves += 1
        if state["moves"] != copy["moves"] or copy["moves"] != self._played():
            line = f"after move {ply}: A {state['moves']}, B {copy['moves']}"
            return self._failed("journal_divergences", line)
        return True

    def _make(self, grid: GridProcess, move: Move) -> dict[str, Any] | None:
        verb = "pop" if move.kind is MoveKind.POP else "drop"
        self.tally.actions += 1
        return grid.act(f"{verb} {self._column(move.column)}", WAIT)

    def _column(self, column: int) -> int:
        """The grid's own column of a move's (5-in-a-Row counts its strips)."""
        return column - (1 if self.game.rules.strips else 0)

    def _wrong_copy(self, grid: GridProcess, move: Move, ply: int) -> None:
        """A drop into an empty column instead of ``move``, then taken out:
        its column lit as an error, not committed, repaired."""
        now = grid.current(WAIT)
        if now is None:
            return
        rows = now["grid"]
        empty = [c for c in range(1, len(rows[0]) + 1) if all(r[c - 1] == "." for r in rows)]
        wrong = [c for c in empty if c != self._column(move.column)]
        if not wrong:
            return
        where = self.rng.choice(wrong)
        dropped = grid.act(f"drop {where}", WAIT)
        flagged = dropped is not None and dropped["lights"][where - 1] == Lamp.ERROR.value
        committed = dropped is None or len(dropped["moves"]) >= ply
        taken = grid.act(f"pop {where}", WAIT)
        repaired = taken is not None and Lamp.ERROR.value not in taken["lights"]
        self.tally.inject("wrong-copy", detected=flagged and not committed, repaired=repaired)

    def _played(self) -> list[str]:
        return [str(move) for move in self.game.moves]

    def _gone(self, grid: GridProcess) -> bool:
        """Whether ``grid``'s process died by itself (counted as a crash)."""
        if grid.process.poll() is None:
            return False
        return self._failed("crashes", f"a grid ended with status {grid.process.returncode}")

    def _failed(self, counter: str, line: str) -> bool:
        plan = self.plan
        self.tally.fail(counter, f"game {plan.number} ({plan.preset}, {plan.event}): {line}")
        return False

    # -- the events ------------------------------------------------------------------------

    def restart(self, sides: tuple[int, ...]) -> None:
        """``kill -9`` of each process first, then each started again."""
        for side in sides:
            self.grids[side].kill()
        for side in sides:
            self.grids[side] = self._grid_a() if side == 0 else self._grid_b()

    def same_game(self) -> bool:
        """Both grids hold the moves made, nothing lost or doubled."""
        states = [grid.current(WAIT) for grid in self.grids]
        return all(state is not None and state["moves"] == self._played() for state in states)

    # -- the end ---------------------------------------------------------------------------

    def _compare(self) -> None:
        """Both processes end as a script ends; both journals hold the moves
        made, with the same record hash."""
        for side, grid in zip("AB", self.grids, strict=True):
            status = grid.finish()
            if status != 0:
                self._failed("crashes", f"grid {side} ended with status {status}")
        played = self._played()
        self.tally.moves_compared += len(played)
        (a_moves, a_hash), (b_moves, b_hash) = (self._journalled(d) for d in self.dirs)
        if a_moves != played or b_moves != played or a_hash != b_hash:
            line = f"journals: played {played}, A {a_moves}, B {b_moves}"
            self._failed("journal_divergences", line)
        self.tally.ended[self.plan.preset] += self.game.is_over()

    def _journalled(self, state_dir: Path) -> tuple[list[str], str]:
        """The game a state directory's journal holds and its record hash,
        read by a daemon without a link once its process is gone."""
        simulation = Simulation(parse_config({}, "linked"), state_dir, self.plan.preset)
        try:
            game = simulation.daemon.referee.game
            return [str(move) for move in game.moves], record_hash(game)
        finally:
            simulation.close()
