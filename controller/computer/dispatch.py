"""What the daemon dispatches to its :class:`~controller.computer.thinker.Thinker`:
which search it wants now (the computer's move, a hint for the player to
move, or pondering), the answers it takes, and the hint being lit. Where the
search runs is the thinker's business (:mod:`controller.computer.thinker`,
:mod:`controller.computer.process`).

The daemon holds one, steps it from its loop with the referee of the moment,
and makes the computer's choice durable itself (the ``chose`` callback):

>>> from controller.referee.core import Referee, Table
>>> from controller.computer.thinker import InlineThinker
>>> from engine.colour import Colour
>>> chosen = []
>>> dispatcher = Dispatcher(InlineThinker(budget=1.0), lambda: None, chosen.append)
>>> referee = Referee(Table(), "classic", computer=Colour.RED)
>>> dispatcher.step(referee, now=0.0)
True
>>> len(chosen)
1
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.computer.thinker import AHEAD, Job, Thinker
from controller.i18n.text import Text, _t
from controller.referee.computer_seat import MAX_LEVEL
from controller.referee.core import Referee
from engine import Move

log = logging.getLogger("popref")

HINT_SECONDS = 5.0  # how long a hint stays lit
# Full strength thinks on the other player's time for at most this long a
# turn; a person slower than that leaves the CPU at rest (a Pi in a case).
PONDER_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint being shown: the position it is for, the move, until when, and
    whether the move is proven to keep the position's outcome (the search
    finished in time)."""

    key: tuple[Any, ...]
    move: Move
    until: float
    proven: bool


def position(referee: Referee) -> tuple[Any, ...]:
    """Names the referee's position for a search (game, rules, takebacks,
    moves made: after a takeback a move number names another position)."""
    game = referee.game
    return (referee.game_number, game.rules.name, referee.takebacks, len(game.moves))


class Dispatcher:
    """The searches one daemon asks for, and the hint it lights.

    With ``ponder``, a computer at full strength also thinks while the other
    player considers their move (:meth:`engine.solver.Opponent.ponder`), once
    a position and for at most :data:`PONDER_SECONDS`: its tables are then
    warm when its turn comes. That search is cancelled by the player's move,
    a hint asked for or anything else the computer must do, and its answer
    is never played. With ``ponder``, once a hint has been asked for in a
    game, full strength also studies each later position of that game a
    person may ask a hint for, on their time and on the same terms
    (:meth:`engine.solver.Opponent.study`): a hint asked then is proven where a
    cold one, within a move's budget, often is not. A game nobody asks hints
    in costs no thinking.
    """

    def __init__(
        self,
        thinker: Thinker,
        wake: Callable[[], None],
        chose: Callable[[Move], None],
        ponder: bool = False,
    ) -> None:
        self.thinker = thinker
        self._wake = wake
        self._chose = chose  # the computer's move, to journal before it is shown
        self._ponder = ponder
        self._job: tuple[Any, ...] | None = None  # what the thinker is searching for
        self._hint_key: tuple[Any, ...] | None = None  # the position a hint was asked for
        self._pondered: tuple[Any, ...] | None = None  # the last position pondered to its end
        self._hints_in: int | None = None  # the game a hint was last asked for in
        self.hint: Hint | None = None

    def hint_asked(self, referee: Referee) -> None:
        """The player to move asked for a hint (a verdict's ``hint``)."""
        self._hint_key = position(referee)
        self._hints_in = referee.game_number

    def _wanted(self, referee: Referee) -> tuple[Any, ...] | None:
        """What the thinker should be searching for now, if anything."""
        seat = referee.needs_computer()
        if seat is not None:
            return ("computer", position(referee), seat.level, seat.seed)
        playing = referee.in_step() and not referee.game.is_over()
        if not playing or referee.computer_to_move():
            return None
        if self._hint_key == position(referee):
            return ("hint", position(referee), MAX_LEVEL, 0)
        if not self._ponder:
            return None
        seat = referee.computer
        if seat is not None and seat.level == MAX_LEVEL:
            wanted = ("ponder", position(referee), seat.level, seat.seed)
        elif self._hints_in == referee.game_number and referee.no_hint() is None:
            wanted = ("study", position(referee), MAX_LEVEL, 0)
        else:
            return None
        return wanted if wanted != self._pondered else None

    def step(self, referee: Referee, now: float) -> bool:
        """Take the thinker's answers and start or cancel its search; whether
        what the board shows may have changed."""
        said = self.thinker.notice()
        self.thinker.poll(now)
        if self._job is not None and self._wanted(referee) != self._job:
            # the game moved on (or was abandoned) while it thought: an answer
            # already waiting is for a position that is gone
            self.thinker.cancel()
            self._job = None
        changed = self._take_answers(now)
        if self.hint is not None and (now >= self.hint.until or self.hint.key != position(referee)):
            self.hint = None
            changed = True
        wanted = self._wanted(referee)
        if wanted != self._job:
            self._job = wanted
            if wanted is not None:
                purpose, key, level, seed = wanted
                budget = PONDER_SECONDS if purpose in AHEAD else None
                job = Job(purpose, key, referee.game.copy(), level, seed, budget)
                self.thinker.start(job, self._wake)
                changed |= self._take_answers(now)  # an inline thinker answers at once
        return changed or self.thinker.notice() != said

    def _take_answers(self, now: float) -> bool:
        changed = False
        for answer in self.thinker.answers():
            job = answer.job
            if (job.purpose, job.key, job.level, job.seed) != self._job:
                continue  # for a position the game has left
            self._job = None
            if job.purpose in AHEAD:  # done: its tables are what it was for
                self._pondered = (job.purpose, job.key, job.level, job.seed)
                continue
            changed = True
            if job.purpose == "hint":
                self._hint_key = None
                self.hint = Hint(job.key, answer.move, now + HINT_SECONDS, answer.pick.proven)
                log.info("%s", _t("Hint: {move}.", move=str(answer.move)))
            else:
                self._chose(answer.move)
        return changed

    def lit(self, referee: Referee) -> Hint | None:
        """The hint for the referee's position, while it lasts."""
        if self.hint is not None and self.hint.key == position(referee):
            return self.hint
        return None

    def notice(self) -> Text | None:
        """What the board should say about the computer's searching, if anything."""
        return self.thinker.notice()

    def next_deadline(self) -> list[float | None]:
        """When :meth:`step` next has something to do (each may be ``None``)."""
        return [self.hint.until if self.hint else None, self.thinker.next_deadline()]

    def close(self) -> None:
        self.thinker.close()
