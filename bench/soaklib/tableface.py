"""What a table's behaviour kept in files of its own (``faultplay.py``,
``remoteplay.py``) asks of the table: they take it as ``self``, typed by
:class:`TableFace`, so they import no ``table.py`` and ``table.py`` can
import them."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bench.soaklib.expect import Expect
    from bench.soaklib.friend import Friend
    from bench.soaklib.lights import Reading
    from bench.soaklib.tablesetup import TableSetup
    from bench.soaklib.tally import Tally
    from controller.referee.core import Referee
    from controller.referee.verdict import Verdict
    from controller.simulator.script import Verb
    from controller.simulator.simulation import Outcome, Simulation
    from engine import Game, Move
    from engine.colour import Colour
    from hardware.sim.board import BoardTimeline


class TableFace(Protocol):
    """A soak table (:class:`bench.soaklib.table.SoakTable`) as its players'
    faults and the friend's turns play it."""

    setup: TableSetup
    rng: random.Random
    tally: Tally
    sim: Simulation
    board: BoardTimeline | None
    friend: Friend | None
    replica: Game
    boots: int
    link_fault: bool

    @property
    def referee(self) -> Referee: ...

    @property
    def offset(self) -> int: ...

    def physical(self, move: Move) -> int: ...

    def act(self, verb: Verb, column: int = 0, colour: Colour | None = None) -> Outcome: ...

    def absorb(self, verdicts: list[Verdict], expect: Expect, what: str) -> bool: ...

    def diverged(self, what: str, story: str) -> None: ...

    def look(self) -> Reading: ...

    def grid_is_game(self) -> bool: ...

    def legal_move(self, reading: Reading, missed_edge: bool = False) -> None: ...

    def one_move(self, what: str) -> bool: ...

    def repair(self, what: str) -> bool: ...
