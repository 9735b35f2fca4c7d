"""One simulated table: the whole daemon, played game after game by players
who read the lights, make people's mistakes and suffer sensor faults.

After every settled moment (nothing scheduled on the simulated grid) the
table checks that the referee's belief equals the simulated grid, that its
game equals the players' own copy (every accepted move was legal there
first), and, when no repair is pending, that its model equals the grid.

A table's grid drives gpiozero's mock pins (``link = "gpio"``) or the
simulated sensor board over a real pty (``link = "serial"``), whose serial
faults the table injects as well: corrupted bytes both ways, a board reset
and an unplug.

>>> import tempfile, pathlib, random
>>> from bench.soaklib.tally import Tally
>>> tally = Tally()
>>> table = SoakTable(TableSetup("classic", faults=("glitch",)), pathlib.Path(tempfile.mkdtemp()),
...                   random.Random(1), tally)
>>> table.play_games(1)
>>> table.close()
>>> tally.games["classic"], tally.divergences, tally.crashes
(1, 0, 0)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.soaklib.expect import Expect
from bench.soaklib.faultplay import inject_fault, serial_fault
from bench.soaklib.faults import EdgeDropper
from bench.soaklib.lights import Reading, expected_reading, read_lights, read_strip, strip_look
from bench.soaklib.remoteplay import (
    FRIEND_FAULTS,
    friend_agrees,
    friend_moves,
    friend_reading,
    friend_turn,
    refused,
)
from bench.soaklib.tablesetup import TableSetup as TableSetup
from bench.soaklib.tally import Tally
from controller.daemon.config import Config, parse_config
from controller.referee.core import Referee
from controller.referee.verdict import Verdict
from controller.simulator.script import Action, Verb
from controller.simulator.simulation import SETTLE, Outcome, Simulation
from engine import Game, Move, MoveKind, new_game
from engine.colour import Colour
from hardware.sim.board import BoardTimeline
from hardware.sim.gpio import MockWires
from hardware.sim.seam import Beam

if TYPE_CHECKING:
    from bench.soaklib.friend import Friend

LOOK = 1.3  # seconds a player watches before acting: longer than a blink window
MAX_ACTIONS = 600  # per game: Pop 10 can wander; a cap keeps a soak bounded
MAX_REPAIR = 120  # steps to follow before the table gives up on a repair

MISTAKES = ("wrong-column", "out-of-turn", "wrong-colour", "two-discs", "pop-opponent", "slider")
EXPECTED = {
    "wrong-column": "illegal-drop",
    "out-of-turn": "wrong-colour",
    "wrong-colour": "wrong-colour",
    "two-discs": "two-discs",
    "pop-opponent": "illegal-pop",
    "slider": "slider",
}


class Diverged(Exception):
    """The referee and the simulated grid disagree where they must not: the
    table is no longer a fair test, so its game stops here (counted once)."""


class SoakTable:
    """A :class:`Simulation` and its players for one rules preset; with a
    ``friend``, a remote seat: the friend plays its colour through the broker
    in every game (the caller closes the friend)."""

    def __init__(
        self,
        setup: TableSetup,
        state_dir: Path,
        rng: random.Random,
        tally: Tally,
        friend: Friend | None = None,
    ) -> None:
        self.setup = setup
        self.rng = rng
        self.tally = tally
        self.friend = friend
        self.sim = Simulation(table_config(setup, friend), state_dir, physics=setup.physics())
        self.board: BoardTimeline | None = self.sim.board
        self.wires: EdgeDropper | None = None
        inner = self.sim.grid.wires
        if isinstance(inner, MockWires):
            self.wires = EdgeDropper(inner)
            self.sim.grid.wires = self.wires
        self.boots = 0
        self.link_fault = False  # bytes are being corrupted: the board may go dark
        self._rough: str | None = None  # the bounce kind of the action in progress
        self.replica = self._replay_referee()
        if friend is not None:
            friend.follow(self.sim)

    # -- the players' own copy of the game ----------------------------------

    @property
    def referee(self) -> Referee:
        return self.sim.daemon.referee

    def _fresh(self) -> Game:
        return new_game(self.referee.rules_for(self.referee.game.rules.name))

    def _replay_referee(self) -> Game:
        """The referee's game replayed move by move on a fresh engine game."""
        replica = self._fresh()
        for move in self.referee.game.moves:
            if not replica.is_legal(move):
                self.tally.fail("divergences", f"resumed game holds an illegal move {move}")
                break
            replica.play(move)
        return replica

    @property
    def offset(self) -> int:
        return 1 if self.replica.rules.strips else 0

    def physical(self, move: Move) -> int:
        return move.column - self.offset

    # -- acting and checking ------------------------------------------------

    def act(self, verb: Verb, column: int = 0, colour: Colour | None = None) -> Outcome:
        self.tally.actions += 1
        if self.setup.rough:
            self._rough = "switch-bounce" if verb in ("open", "close", "hold") else "chatter"
        return self.sim.act(Action(0, f"{verb} {column or ''}".strip(), verb, column, colour))

    def absorb(self, verdicts: list[Verdict], expect: Expect, what: str) -> bool:
        """Check ``verdicts`` against ``expect`` and follow them on the
        replica; returns whether they were exactly as expected."""
        accepted: list[Move] = []
        mistakes: list[str] = []
        for verdict in verdicts:
            if verdict.accepted is not None:
                move = verdict.accepted
                accepted.append(move)
                if self.replica.is_over() or not self.replica.is_legal(move):
                    self.tally.fail("divergences", f"{what}: accepted illegal move {move}")
                    raise Diverged(what)
                else:
                    self.replica.play(move)
                    self.tally.moves += 1
            if verdict.mistake is not None:
                mistakes.append(verdict.mistake)
            if verdict.finished is not None:
                self.tally.finished[self.setup.preset] += 1
            if verdict.new_game:
                self.replica = self._fresh()
        good = True
        if accepted != expect.moves:
            self.tally.fail(
                "divergences",
                f"{self.setup.preset} {what}: accepted {accepted}, expected {expect.moves}",
            )
            raise Diverged(what)
        wanted = [expect.mistake] if expect.mistake else []
        if mistakes != wanted:
            counter = (
                "undetected"
                if expect.mistake and expect.mistake not in mistakes
                else "false_alarms"
            )
            self.tally.fail(counter, f"{what}: mistakes {mistakes}, expected {wanted}")
            good = False
        good = self.check(what) and good
        if self._rough is not None:
            # every edge of this action bounced: it must count exactly once
            self.tally.inject(self._rough, detected=good, repaired=good)
            self._rough = None
        return good

    def check(self, what: str) -> bool:
        """The settled-moment check; returns whether it passed."""
        if self.sim.grid.next_time() is not None:
            return True  # not settled: discs still moving
        self.tally.checks += 1
        referee = self.referee
        physical = [list(c) for c in self.sim.grid.columns_content()]
        problems = []
        if not believed(referee.grid, physical):
            problems.append(f"belief {_rows(referee.grid)} != grid {_rows(physical)}")
        if referee.in_step() and [list(c) for c in referee.model_grid()] != physical:
            problems.append(f"model {_rows(referee.model_grid())} != grid {_rows(physical)}")
        if referee.game.moves != self.replica.moves:
            problems.append("the referee's moves differ from the players' game")
        if problems:
            self.diverged(what, "; ".join(problems))
        if self.friend is not None:
            friend_agrees(self, what)
        return True

    def diverged(self, what: str, story: str) -> None:
        """Count a divergence found after ``what`` and stop this table's game."""
        self.tally.fail("divergences", f"{self.setup.preset} after {what}: {story}")
        raise Diverged(what)

    def look(self) -> Reading:
        """Watch the board for a moment, then read it as a person would; the
        reading must agree with the display the referee computed."""
        self.sim.advance(LOOK)
        display = self.sim.display()
        if self.board is None:
            reading = read_lights(self.sim.lights.shown(), self.sim.lights.fast_blinking())
            expected = expected_reading(display)
        else:
            reading = read_strip(self.sim.lights.shown())
            expected = read_strip(strip_look(display))
        if not self.referee.faults and not self.link_fault and reading != expected:
            self.tally.fail("light_mismatches", f"lights read {reading}, display says {expected}")
        if self.board is not None:
            return self._seen_with_the_grid(reading)
        return friend_reading(self, reading)

    def _seen_with_the_grid(self, reading: Reading) -> Reading:
        """On the strip, one column blinking in the mover's colour is both a
        repair drop and a pop-only move in play. A person looks at the grid:
        when it holds exactly the game they played, it is play."""
        if reading.kind != "drop" or reading.colour is not self.replica.to_move:
            return reading
        pop = Move.pop(reading.columns[0] + self.offset)
        if self.grid_is_game() and self.replica.is_legal(pop):
            return Reading("steady", reading.columns, reading.colour)
        return reading

    def grid_is_game(self) -> bool:
        """Whether the grid holds exactly the game the players played, as a
        person at the table can see."""
        grid = [list(c) for c in self.sim.grid.columns_content()]
        game = [
            list(self.replica.column(c + self.offset)) for c in range(1, self.setup.columns + 1)
        ]
        return grid == game

    # -- games ---------------------------------------------------------------

    def play_games(self, games: int) -> None:
        for _ in range(games):
            self.play_game()

    def play_game(self) -> None:
        self.count_game()
        for _ in range(MAX_ACTIONS):
            if self.replica.is_over():
                break
            self.turn()
        self.finish()

    def count_game(self) -> None:
        """One more game on this table."""
        self.tally.games[self.setup.preset] += 1
        self.tally.links[self.setup.link] += 1
        self.tally.remote_games += self.friend is not None

    def finish(self) -> None:
        """Check the result shown, then open and close the slider for a new game."""
        if not self.replica.is_over():
            # the cap was reached: empty the grid, then abandon the game (a
            # game abandoned on the last turn left a new one with no move,
            # where the slider is no mistake)
            opened = Expect("slider" if self.replica.moves else None)
            self.absorb(self.act("open").verdicts, opened, "open at the cap")
            self.absorb(self.act("close").verdicts, Expect(), "close at the cap")
            self.absorb(self.act("hold").verdicts, Expect(), "abandon at the cap")
            return
        reading = self.look()
        result = self.replica.result
        # a win shows its line (Pop 10 wins on points: no line) and the
        # winner's turn light; a draw shows nothing
        winner = result if isinstance(result, Colour) else None
        if reading.kind not in ("steady", "dark") or reading.colour is not winner:
            self.tally.fail("light_mismatches", f"result {result} shown as {reading}")
        for verb in ("open", "close"):
            self.absorb(self.act(verb).verdicts, Expect(), verb)

    def turn(self) -> None:
        reading = self.look()
        if reading.kind in ("drop", "pop", "slider"):
            self.tally.fail("divergences", f"a repair was left pending: {reading}")
            self.repair("leftover")
            reading = self.look()
        if self.friend is not None:
            if friend_moves(self):
                friend_turn(self)
                return
            if self.rng.random() < self.setup.friend_fault_rate / len(FRIEND_FAULTS):
                refused(self, "remote-turn")  # the friend asks on the people's turn
        roll = self.rng.random()
        if roll < self.setup.fault_rate:
            self.sensor_fault()
        elif roll < self.setup.fault_rate + self.setup.mistake_rate:
            self.mistake()
        else:
            self.legal_move(reading)

    def legal_move(self, reading: Reading, missed_edge: bool = False) -> None:
        mover = self.replica.to_move
        assert mover is not None
        moves = list(self.replica.legal_moves())
        lit = tuple(sorted({self.physical(m) for m in moves}))
        # While the link is noisy the strip may have had its picture for only
        # a moment, too short to see a pop column blink (seed 37): the lights
        # are checked once the noise ends, as in look().
        if (
            reading.kind == "steady"
            and not self.link_fault
            and (reading.columns != lit or reading.colour is not mover)
        ):
            self.tally.fail(
                "light_mismatches",
                f"{self.setup.preset} on {self.setup.link}: play lights {reading} "
                f"for {mover} at {lit} after {' '.join(map(str, self.replica.moves))}",
            )
        move = self.rng.choice(moves)
        column = self.physical(move)
        beam = Beam.ENTRY if move.kind is MoveKind.DROP else Beam.EXIT
        if missed_edge and self.wires is not None:
            self.wires.arm(beam, column)
        if move.kind is MoveKind.DROP:
            outcome = self.act("drop", column, mover)
        else:
            outcome = self.act("pop", column)
        good = self.absorb(outcome.verdicts, Expect(moves=[move]), str(move))
        if missed_edge and self.wires is not None:
            self.tally.inject("missed-edge", detected=good and not self.wires.armed, repaired=good)

    # -- mistakes ------------------------------------------------------------

    def _room(self, column: int, extra: int = 0) -> bool:
        return len(self.sim.grid.columns_content()[column - 1]) + extra < self.setup.rows

    def mistake(self) -> None:
        kinds = [k for k in MISTAKES if self._feasible(k)]
        if not kinds:
            self.legal_move(self.look())
            return
        kind = self.rng.choice(kinds)
        detected = getattr(self, "_" + kind.replace("-", "_"))()
        repaired = self.repair(kind)
        self.tally.inject(kind, detected=detected, repaired=repaired)

    def _feasible(self, kind: str) -> bool:
        game = self.replica
        mover = game.to_move
        if mover is None:
            return False
        columns = range(1, self.setup.columns + 1)
        if kind == "wrong-column":
            return any(
                self._room(c) and not game.is_legal(Move.drop(c + self.offset)) for c in columns
            )
        if kind in ("out-of-turn", "wrong-colour"):
            return self.setup.colour_sensing and any(self._room(c) for c in columns)
        if kind == "two-discs":
            return bool(self._quiet_drops())
        if kind == "pop-opponent":
            return any(self._bottom(c) is mover.other for c in columns)
        return bool(game.moves)  # slider

    def _bottom(self, column: int) -> Colour | None:
        content = self.sim.grid.columns_content()[column - 1]
        return content[0] if content else None

    def _quiet_drops(self) -> list[tuple[Move, int]]:
        """Legal drops that do not end the game (so a second disc is a
        mistake), each with a column that still has room for that disc."""
        quiet = []
        for move in self.replica.legal_moves():
            if move.kind is not MoveKind.DROP:
                continue
            after = self.replica.after(move)
            first = self.physical(move)
            room = [
                c for c in range(1, self.setup.columns + 1) if self._room(c, 1 if c == first else 0)
            ]
            if not after.is_over() and room:
                quiet.append((move, self.rng.choice(room)))
        return quiet

    def _one(self, verdicts: list[Verdict], kind: str, moves: list[Move] | None = None) -> bool:
        return self.absorb(verdicts, Expect(EXPECTED[kind], moves or []), kind)

    def _wrong_column(self) -> bool:
        mover = self.replica.to_move
        assert mover is not None
        columns = [
            c
            for c in range(1, self.setup.columns + 1)
            if self._room(c) and not self.replica.is_legal(Move.drop(c + self.offset))
        ]
        return self._one(self.act("drop", self.rng.choice(columns), mover).verdicts, "wrong-column")

    def _out_of_turn(self) -> bool:
        return self._coloured_drop("out-of-turn")

    def _wrong_colour(self) -> bool:
        return self._coloured_drop("wrong-colour")

    def _coloured_drop(self, kind: str) -> bool:
        # Out of turn (the other player drops their own disc) and the wrong
        # colour (the mover drops the other player's disc) look the same to
        # a colour sensor: a disc that is not the mover's colour.
        mover = self.replica.to_move
        assert mover is not None
        columns = [c for c in range(1, self.setup.columns + 1) if self._room(c)]
        return self._one(self.act("drop", self.rng.choice(columns), mover.other).verdicts, kind)

    def _two_discs(self) -> bool:
        mover = self.replica.to_move
        assert mover is not None
        first, c2 = self.rng.choice(self._quiet_drops())
        c1 = self.physical(first)
        # Either player's colour: without colour sensing the referee takes a
        # disc nobody was asked for to be of unknown colour (issue 14).
        second = self.rng.choice(list(Colour))
        now = self.sim.clock()
        self.tally.actions += 1
        self._rough = "chatter" if self.setup.rough else None
        self.sim.grid.drop(c1, mover, at=now)
        self.sim.grid.drop(c2, second, at=now + self.rng.uniform(0.05, 0.4))
        verdicts = self.sim.advance(SETTLE)
        # the discs have landed: the page and the friend see the grid as it
        # is, as after any action (Simulation.act)
        self.sim.daemon.publish()
        return self._one(verdicts, "two-discs", [first])

    def _pop_opponent(self) -> bool:
        mover = self.replica.to_move
        assert mover is not None
        columns = [c for c in range(1, self.setup.columns + 1) if self._bottom(c) is mover.other]
        return self._one(self.act("pop", self.rng.choice(columns)).verdicts, "pop-opponent")

    def _slider(self) -> bool:
        detected = self._one(self.act("open").verdicts, "slider")
        self.absorb(self.act("close").verdicts, Expect(), "close after slider")
        if self.rng.random() < self.setup.abandon_rate:
            # abandon instead of rebuilding: the game ends, a new one begins
            self.absorb(self.act("hold").verdicts, Expect(), "abandon")
            if not self.referee.game.moves:
                self.count_game()
        return detected

    # -- repairs, as the lights ask --------------------------------------------

    def repair(self, what: str) -> bool:
        """Follow the board's instructions until it shows play again; returns
        whether the grid then matches the game."""
        for _ in range(MAX_REPAIR):
            reading = self.look()
            if reading.kind == "drop" and reading.colour is not None:
                outcome = self.act("drop", reading.columns[0], reading.colour)
            elif reading.kind == "pop":
                outcome = self.act("pop", reading.columns[0])
            elif reading.kind == "slider":
                self.absorb(self.act("open").verdicts, Expect(), f"repair {what}: open")
                outcome = self.act("close")
            else:
                break
            self.absorb(outcome.verdicts, Expect(), f"repair {what}: {outcome.action}")
        if not self.referee.in_step():
            self.tally.fail("divergences", f"{what} not repaired; lights {self.look()}")
            raise Diverged(what)
        return self.check(f"repair of {what}")

    # -- faults -----------------------------------------------------------------

    def sensor_fault(self) -> None:
        """One sensor or serial fault from this table's kinds, then the check."""
        inject_fault(self)

    def serial_fault(self, kind: str) -> None:
        """One fault on the link to the sensor board, then the next move."""
        serial_fault(self, kind)

    def one_move(self, what: str) -> bool:
        """The mover's next legal move (nothing if the game is over), checked."""
        if self.replica.is_over():
            return True
        before = self.tally.divergences + self.tally.undetected + self.tally.false_alarms
        self.legal_move(self.look())
        return self.tally.divergences + self.tally.undetected + self.tally.false_alarms == before

    def close(self) -> None:
        self.sim.close()


def table_settings(setup: TableSetup, friend: Friend | None = None) -> dict[str, Any]:
    """The configuration's tables for a table set up as ``setup``, with a
    remote seat for ``friend`` on its broker."""
    settings: dict[str, Any] = {
        "board": {
            "columns": setup.columns,
            "rows": setup.rows,
            "colour_sensing": setup.colour_sensing,
        },
        "game": {"rules": setup.preset},
        "sim": {"seed": setup.seed, "link": setup.link},
    }
    if friend is not None:
        settings["remote"] = {"broker": friend.daemon_broker, "plays": friend.colour.value}
    return settings


def table_config(setup: TableSetup, friend: Friend | None = None) -> Config:
    return parse_config(table_settings(setup, friend), "soak")


def believed(belief: Sequence[Sequence[Colour | None]], grid: Sequence[Sequence[Colour]]) -> bool:
    """Whether the referee's ``belief`` is true of ``grid``: the same number
    of discs in every column, each of the colour believed, where the referee
    claims to know it (``None``: a disc whose colour the sensors cannot
    prove)."""
    return len(belief) == len(grid) and all(
        len(b) == len(g) and all(x is None or x == y for x, y in zip(b, g, strict=True))
        for b, g in zip(belief, grid, strict=True)
    )


def _rows(grid: object) -> str:
    columns = list(grid)  # type: ignore[call-overload]
    return "|".join("".join(d.letter if d is not None else "?" for d in c) for c in columns)
