"""One game of ``bench/linked.py`` between two real linked grids (issue 23):
grid A invites (``[remote] broker``, the other colour a remote seat), grid B
joins with A's link (``[remote] join``), each a whole daemon on its simulated
grid, each reaching the broker through a fault proxy of its own. The person
at the owner's grid makes each move (a random legal one); the person at the
other grid copies it once it is lit, now and then wrongly first (a drop into
an empty column, taken out again as the board asks). The plan's event lands
before one move.

After every move both referees must hold the same game (the record hash),
and after the game both grids' moves must be the moves made, each once.
Kills are restarts in this process (the grid closed without a word and
opened again on its state directory), not ``kill -9`` of a process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import quote

from bench.soaklib.friend import WAIT
from bench.soaklib.linkedgame import LinkedSides
from controller.daemon.config import parse_config
from controller.remote.link import parse_link
from controller.remote.message import record_hash
from controller.simulator.script import parse_line
from controller.simulator.simulation import Outcome, Simulation
from engine import Move, MoveKind
from engine.colour import Colour

STEP = 0.01  # seconds each grid runs in turn while the harness waits
MOST_PLIES = 120  # a game longer than this is left unfinished (Pop 10 can wander)
MISTAKE = 0.1  # the chance that a copy is made wrongly first


class LinkedGrids(LinkedSides):
    """The two grids on their paths for one plan; :meth:`play` runs it."""

    def prepare(self) -> None:
        plan, workdir = self.plan, self.workdir
        self.dirs = tuple(workdir / f"grids-{plan.number}-{side}" for side in "ab")
        self.b_colour = self.rng.choice(list(Colour))
        self.link = ""
        self.grids: list[Simulation] = []

    def play(self) -> None:
        with self.paths():
            try:
                self.grids = [self._grid_a(), self._grid_b()]
                self.tally.games[self.plan.preset] += 1
                self._moves()
            finally:
                for grid in self.grids:
                    grid.close()

    # -- the grids -----------------------------------------------------------------------

    def _grid_a(self) -> Simulation:
        settings = {"remote": {"broker": self.proxies[0].url}, "game": {"rules": self.plan.preset}}
        a = Simulation(parse_config(settings, "linked"), self.dirs[0], remote=self.b_colour)
        self.link = a.links[-1]
        self.latency.watch(a)
        return a

    def _grid_b(self) -> Simulation:
        ours, theirs = (quote(p.url, safe="") for p in self.proxies)
        settings = {"remote": {"join": self.link.replace(ours, theirs)}}
        b = Simulation(parse_config(settings, "linked"), self.dirs[1], self.plan.preset)
        guest = b.daemon.guest
        assert guest is not None
        guest.client.on_taken = self.latency.message
        return b

    def _run(self, done: Callable[[], bool], timeout: float = WAIT) -> bool:
        """Both grids in real time until ``done()``; False after ``timeout`` s."""
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() >= end:
                return False
            for grid in self.grids:
                grid.wait_real(STEP)
        return True

    def _healed(self) -> bool:
        return not any(proxy.refusing() for proxy in self.proxies) and self._linked()

    def _linked(self) -> bool:
        return all(grid.daemon.state()["link"] == "up" for grid in self.grids)

    # -- the game --------------------------------------------------------------------------

    def _moves(self) -> None:
        if not self._run(self._linked):
            self.tally.fail("manual", f"game {self.plan.number}: the grids never linked")
            return
        plies = 0
        while plies < MOST_PLIES:
            game = self.grids[0].daemon.referee.game
            if game.is_over():
                break
            if plies == 2 * self.plan.at + 1:
                self.strike()
            move = self.rng.choice(list(game.legal_moves()))
            owner = 1 if game.to_move is self.b_colour else 0
            if not self._one(move, owner, plies + 1):
                return
            plies += 1
        self._compare(plies)

    def _one(self, move: Move, owner: int, ply: int) -> bool:
        """``move`` made on grid ``owner``, copied on the other; False when
        it went wrong (counted)."""
        made, copier = self.grids[owner], self.grids[1 - owner]
        if not self._make(made, move, ply):  # this harness's people cannot make it
            return self._failed("unplayed", f"move {ply} ({move}) was not taken on its grid")
        if not self._run(lambda: copier.daemon.state()["remote"] == str(move)):
            return self._failed("manual", f"move {ply} ({move}) was never lit on the other grid")
        if self.rng.random() < MISTAKE:
            self._wrong_copy(copier, move, ply)
        if not self._make(copier, move, ply):
            return self._failed("divergences", f"the copy of move {ply} ({move}) was not taken")
        self.tally.moves += 1
        same = self._run(lambda: self._hashes_agree(ply))
        return same or self._failed("journal_divergences", f"after move {ply}: the hashes differ")

    def _make(self, grid: Simulation, move: Move, ply: int) -> bool:
        column = move.column - (1 if grid.daemon.referee.game.rules.strips else 0)
        verb = "pop" if move.kind is MoveKind.POP else "drop"
        self._act(grid, f"{verb} {column}")
        self.tally.actions += 1
        return len(grid.daemon.referee.game.moves) == ply

    def _wrong_copy(self, grid: Simulation, move: Move, ply: int) -> None:
        """A drop into an empty column instead of ``move``, then taken out:
        flagged, not committed, repaired."""
        empty = [c for c, discs in enumerate(grid.grid.columns_content(), 1) if not discs]
        column = move.column - (1 if grid.daemon.referee.game.rules.strips else 0)
        wrong = [c for c in empty if c != column]
        if not wrong:
            return
        where = self.rng.choice(wrong)
        flagged = bool(self._act(grid, f"drop {where}").mistakes)
        committed = len(grid.daemon.referee.game.moves) >= ply
        self._act(grid, f"pop {where}")
        self.tally.inject("wrong-copy", detected=flagged and not committed, repaired=True)

    def _act(self, grid: Simulation, line: str) -> Outcome:
        action = parse_line(line, 1, "linked")
        assert action is not None
        return grid.act(action)

    def _hashes_agree(self, ply: int) -> bool:
        games = [grid.daemon.referee.game for grid in self.grids]
        return all(len(g.moves) == ply for g in games) and len({record_hash(g) for g in games}) == 1

    def _failed(self, counter: str, line: str) -> bool:
        self.tally.fail(counter, f"game {self.plan.number} ({self.plan.preset}): {line}")
        return False

    def _compare(self, plies: int) -> None:
        a, b = (grid.daemon.referee.game for grid in self.grids)
        self.tally.moves_compared += plies
        if a.moves != b.moves or len(a.moves) != plies or record_hash(a) != record_hash(b):
            self._failed("journal_divergences", f"A {a.moves} != B {b.moves}")
        self.tally.ended[self.plan.preset] += a.is_over()
        if a.is_over() and a.result is not None:
            self._next_game()

    def _next_game(self) -> None:
        """A finished game leads on (docs/remote.md, "The next game on the
        same link"): A begins its next game, and B follows it by itself,
        whatever the faults of this game left behind; else a person would
        have pasted A's new link on B."""
        a, b = self.grids
        self.tally.follows_checked = True
        self._act(a, "slider open")
        self._act(a, "slider close")
        game = parse_link(a.links[-1]).game

        def followed() -> bool:
            guest = b.daemon.guest
            return guest is not None and guest.link.game == game and not guest.spent

        if self._run(followed):
            self.tally.followed += 1
        else:
            self._failed("manual", "B did not follow A's next game on the same link")

    # -- the events ------------------------------------------------------------------------

    def restart(self, sides: tuple[int, ...]) -> None:
        """Closed and opened on its state directory, in this process."""
        for side in sides:
            self.grids[side].close()
            self.grids[side] = self._grid_a() if side == 0 else self._grid_b()

    def healed(self, timeout: float) -> bool:
        return self._run(self._healed, timeout)

    def same_game(self) -> bool:
        return self._hashes_agree(len(self.grids[0].daemon.referee.game.moves))
