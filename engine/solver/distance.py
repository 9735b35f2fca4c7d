"""Exact distances to the end in the games with pops: the quickest win, the slowest loss.

The outcome search (:mod:`engine.solver.outcome`) asks "does a move win?"
and "does this move lose?" at any distance: on a table that earlier
searches filled, a deeper proof answers a shallow test, and the value a
test leaves is a bound from the first line that settled it, not that
line's length. After ``7 6 4 4 4 6 4 5 4 4 3 5 p4 5 5 2`` a proof said
Red wins in 23 plies; Red wins in 13. Played by such bounds, full strength
lost a game in 4 plies where 14 could be held, Pop Out against Four the
Win! at 1 s a move (docs/opponent.md, "Exact distances").

Here each test asks about a distance: "does a move win within d plies?",
"does this move lose within d?", a null window at that distance's score.
Scores carry their distance (the cores store it relative to the position),
so no bound from a longer line passes such a test, and a deepening that
steps two plies at a time answers exactly, on any table.

>>> from engine import new_game
>>> from engine.solver.fastsearch import FastSearch
>>> game = new_game("popout")
>>> for move in ["4", "4", "3", "3", "2"]:  # Red threatens 1 and 5
...     game.play(move)
>>> search = FastSearch(game.rules, core="python", slots=1 << 12)
>>> found = slowest_losses(search, game)  # whatever Yellow plays, Red wins next
>>> found.plies, found.exact, len(found.moves)
(2, True, 7)
>>> game.play("1")
>>> move, plies = quickest_win(search, game)
>>> str(move), plies
('5', 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import Game
from engine.move import Move
from engine.solver.fastsearch import MAX_DEPTH, FastSearch, state_of, to_move
from engine.solver.limits import Limits
from engine.solver.outcome import WON, met_before
from engine.solver.search import WIN


def quickest_win(
    search: FastSearch, game: Game, limits: Limits | None = None
) -> tuple[Move, int] | None:
    """The move that wins soonest in ``game`` and the plies its win takes
    (the move itself is the first), or None: not a win, or not proven
    before ``limits`` stopped the search. A win comes at an odd ply, and a
    test of "within ``d`` plies" finds every win that short, so the first
    ``d`` that finds one is the distance."""
    tests = _Tests(search, game, limits or Limits())
    for depth in range(1, MAX_DEPTH + 1, 2):
        top = WIN - depth
        scores, horizon, stopped = tests.run(tests.codes, depth, (top - 1, top), False)
        won = [m for m, v in zip(tests.codes, scores, strict=False) if v >= top]
        if won:
            return to_move(won[0]), depth
        if stopped:
            return None
        if not horizon and max(scores, default=0) < WON:
            return None  # no horizon met: the scores bound the game's, and none is a win
    return None


@dataclass(frozen=True)
class Slowest:
    """The moves of a lost position that hold out longest, as far as tested.

    Each of ``moves`` holds out at least ``plies`` (counting its own move
    and the winner's last); ``exact``: they hold out exactly that and every
    other move fewer, or one move is left, which holds out longer than
    every other."""

    moves: list[Move]
    plies: int
    exact: bool


def slowest_losses(
    search: FastSearch,
    game: Game,
    limits: Limits | None = None,
    lost: dict[Move, int] | None = None,
) -> Slowest:
    """The moves in ``game``, a lost position, that hold out longest.

    Every move is asked "do you lose within 2 plies?", those that hold out
    are asked the same of 4, and so on, until one is left, or none holds
    out (then those left are told apart by the odd ply between), or
    ``limits`` stop the tests. ``lost``: scores the outcome search left on
    moves (a loss's score bounds how long the move holds out, so no test
    is needed once the distance asked reaches it)."""
    tests = _Tests(search, game, limits or Limits(), lost or {})
    left = tests.codes
    for depth in range(2, MAX_DEPTH + 1, 2):
        held, caught = tests.hold_out(left, depth)
        if held is None:  # stopped: the caught lose within ``depth``, the rest no sooner
            rest = [c for c in left if c not in caught]
            return Slowest([to_move(c) for c in rest], depth - 1, False)
        if len(held) == 1:
            return Slowest([to_move(held[0])], depth + 1, True)
        if not held:  # every one left loses at ``depth - 1`` or ``depth``
            longer, _ = tests.hold_out(left, depth - 1)
            if longer is None:
                return Slowest([to_move(c) for c in left], depth - 1, False)
            if longer:
                return Slowest([to_move(c) for c in longer], depth, True)
            return Slowest([to_move(c) for c in left], depth - 1, True)
        left = held
    return Slowest([to_move(c) for c in left], MAX_DEPTH, False)


class _Tests:
    """Null-window tests of one position's moves, their nodes counted in
    the search's."""

    def __init__(
        self, search: FastSearch, game: Game, limits: Limits, lost: dict[Move, int] | None = None
    ) -> None:
        self.search, self.limits = search, limits
        self.state = state_of(game)
        self.seen = met_before(search, game, self.state)
        self.codes: list[int] = search.core.moves(search.spec, self.state)
        by_move = {to_move(code): code for code in self.codes}
        # a loss's score, WIN less its plies: the most plies the move holds out
        self.bound = {by_move[m]: WIN + v for m, v in (lost or {}).items() if m in by_move}
        self.nodes = self.counted = 0

    def run(
        self, codes: list[int], plies: int, window: tuple[int, int], each: bool
    ) -> tuple[list[int], bool, bool]:
        """``codes``' scores in ``window`` at ``plies`` (every one if
        ``each``, else until one reaches its top), whether a horizon was
        met, and whether the limits stopped the test (then only the scores
        before the stop are whole)."""
        scores, horizon, self.nodes, stopped = self.search.iterate(
            self.state, codes, plies, self.seen, self.nodes, self.limits, each, window
        )
        self.search.nodes += self.nodes - self.counted
        self.counted = self.nodes
        return scores, bool(horizon), bool(stopped) or self.limits.stopped(self.nodes)

    def hold_out(self, codes: list[int], plies: int) -> tuple[list[int] | None, list[int]]:
        """Of ``codes``, those that do not lose within ``plies`` (None if
        the limits stopped the tests) and those that do."""
        floor = -(WIN - plies)
        held: list[int] = []
        caught: list[int] = []
        for code in codes:
            if self.bound.get(code, WIN) <= plies:
                caught.append(code)
                continue
            scores, _horizon, stopped = self.run([code], plies, (floor, floor + 1), True)
            if stopped:
                return None, caught
            (held if scores[0] > floor else caught).append(code)
        return held, caught


__all__ = ["Slowest", "quickest_win", "slowest_losses"]
