"""An anytime search for every game: iterative deepening alpha-beta.

It plays through :class:`~engine.Game` (so every rule, Pop 10's phases and
passes, the repetition draw, holds exactly as the referee applies it), with
a transposition table, threat-aware move order (an immediate win is taken at
once; the other moves are tried best evaluation first), and an evaluation
that knows each game: open lines weighted by how near they are to complete,
and in Pop 10 the points, the discs ready to score and the race to the
target. When an iteration meets no horizon the scores are the game's values
and the search stops: the remaining game has been solved.

Scores are for the player to move: ``WIN - n`` is a win ``n`` moves (plies)
ahead, ``-(WIN - n)`` a loss, anything in between a judgement.

>>> from engine import new_game
>>> game = new_game("classic")
>>> for move in "4 4 3 3 2 2".split():
...     game.play(move)
>>> result = GameSearch(game.rules).search(game, Limits(max_nodes=2000))
>>> str(result.move), result.scores[result.move] > WIN // 2
('5', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.colour import Colour
from engine.game import Game, PositionKey
from engine.move import Move
from engine.rules import Rules
from engine.solver.evaluation import Evaluation
from engine.solver.limits import Limits, SearchStopped
from engine.solver.model import model_spec

WIN = 100_000
INFINITY = WIN + 1
MAX_DEPTH = 64
CHECK_EVERY = 64  # nodes (moves judged count too) between calls of the stop check
TABLE_LIMIT = 100_000  # entries, about 30 MB of Python objects: the Pi's budget is 100 MB
EXACT, LOWER, UPPER = 0, 1, 2


@dataclass(frozen=True)
class SearchResult:
    """The chosen move, the score of every legal move, and how far it looked.

    With ``all_moves`` every score is the move's value at ``depth``;
    otherwise only the best one is, the others are upper bounds. ``exact``:
    the scores are game values (no horizon was met, or every score that
    counts is a proven win or loss, which no deeper search changes).
    """

    move: Move
    scores: dict[Move, int]
    depth: int
    exact: bool
    nodes: int


class GameSearch:
    """Iterative deepening alpha-beta for one set of rules.

    The table is kept between searches; ``nodes`` counts every position
    visited since construction.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.evaluation = Evaluation(model_spec(rules))
        self.table: dict[PositionKey, tuple[int, int, int, Move | None, bool]] = {}
        self.nodes = 0
        self._limits = Limits()
        self._next_check = 0
        self._start_nodes = 0
        self._horizon = False
        centre = (rules.width + 1) / 2
        self._order = {column: abs(column - centre) for column in range(1, rules.width + 1)}

    # -- evaluation ----------------------------------------------------------

    def evaluate(self, game: Game) -> int:
        """A judgement of a game in progress for the player to move."""
        key = game.position_key()
        side = int(key.to_move is Colour.YELLOW)
        return self.evaluation.evaluate(key.red, key.yellow, side, key.red_score, key.yellow_score)

    # -- search --------------------------------------------------------------

    def _ordered(self, game: Game, best: Move | None) -> list[Move]:
        order = self._order
        moves = sorted(game.legal_moves(), key=lambda m: (order[m.column], m.kind != "drop"))
        if best is not None and best in moves:
            moves.remove(best)
            moves.insert(0, best)
        return moves

    def _check(self) -> None:
        self._next_check = self.nodes + CHECK_EVERY
        if self._limits.stopped(self.nodes - self._start_nodes):
            raise SearchStopped

    def _child_value(self, game: Game, me: Any, ply: int, depth: int, alpha: int, beta: int) -> int:
        """The value for ``me`` of the position just played into ``game``."""
        result = game.result
        if result is not None:
            if result == "draw":
                return 0
            return WIN - ply if result == me else -(WIN - ply)
        if game.to_move == me:  # Pop 10: a scoring pop or a return keeps the turn
            return self._negamax(game, depth, alpha, beta, ply)
        return -self._negamax(game, depth, -beta, -alpha, ply)

    def _negamax(self, game: Game, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._check()
        if depth <= 0:
            self._horizon = True
            return self.evaluate(game)
        key = game.position_key()
        entry = self.table.get(key)
        best_move = None
        if entry is not None:
            stored_depth, flag, value, best_move, inexact = entry
            if stored_depth >= depth and (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                self._horizon |= inexact
                return value
        me = game.to_move
        moves = self._ordered(game, best_move)
        if depth >= 2 and len(moves) > 1:
            ordered = self._threat_order(game, moves, me, ply, best_move is not None)
            if isinstance(ordered, int):
                return ordered
            moves = ordered
        horizon_before = self._horizon
        self._horizon = False
        original_alpha = alpha
        best_value = -INFINITY
        best_move = moves[0]
        for move in moves:
            game.play(move)
            try:
                value = self._child_value(game, me, ply + 1, depth - 1, alpha, beta)
            finally:
                game.undo()
            if value > best_value:
                best_value, best_move = value, move
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        flag = UPPER if best_value <= original_alpha else LOWER if best_value >= beta else EXACT
        inexact = self._horizon
        self._horizon = horizon_before or inexact
        if len(self.table) >= TABLE_LIMIT:
            self.table.clear()
        self.table[key] = (depth, flag, best_value, best_move, inexact)
        return best_value

    def _threat_order(
        self, game: Game, moves: list[Move], me: Any, ply: int, keep_first: bool
    ) -> list[Move] | int:
        """An immediate win's value, or the moves, best-looking first."""
        self.nodes += len(moves)  # each is played and judged: work the stop check must see
        judged = []
        for index, move in enumerate(moves):
            game.play(move)
            result = game.result
            if result is not None and result == me:
                game.undo()
                return WIN - ply - 1
            if result is not None:
                value = 0 if result == "draw" else -WIN
            else:
                value = self.evaluate(game)
                value = value if game.to_move == me else -value
            game.undo()
            judged.append((-value, index, move))
        if keep_first:  # the table's best move from an earlier search leads
            first = judged.pop(0)
            judged.sort()
            return [first[2], *(move for _v, _i, move in judged)]
        judged.sort()
        return [move for _v, _i, move in judged]

    def search(
        self,
        game: Game,
        limits: Limits | None = None,
        max_depth: int = MAX_DEPTH,
        all_moves: bool = False,
        solve: bool = False,
    ) -> SearchResult:
        """Deepen until the limits stop it, the game is solved or ``max_depth``.

        ``solve``: keep deepening even with a single legal move, for its score.

        Depth 1 always completes, so there is always a move; a stop during a
        deeper iteration keeps the last complete one.
        """
        if game.is_over():
            raise ValueError("the game is over: there is no move to search")
        game = game.copy()
        self._limits = limits or Limits()
        self._next_check = self.nodes + CHECK_EVERY
        start_nodes = self._start_nodes = self.nodes
        moves = self._ordered(game, None)
        result: SearchResult | None = None
        for depth in range(1, max_depth + 1):
            checking = depth > 1
            try:
                scores, exact = self._root(game, moves, depth, all_moves, checking)
            except SearchStopped:
                break
            best = max(moves, key=lambda m: scores[m])  # the first of the best
            proven = [scores[best]] if not all_moves else list(scores.values())
            exact = exact or all(abs(value) >= WIN // 2 for value in proven)
            result = SearchResult(best, scores, depth, exact, self.nodes - start_nodes)
            if exact or (len(moves) == 1 and not solve):  # a forced move needs no thought
                break
            if checking and self._limits.stopped(self.nodes - start_nodes):
                break
            moves = sorted(moves, key=lambda m: -scores[m])  # stable: ties keep order
        assert result is not None
        return result

    def _root(
        self, game: Game, moves: Sequence[Move], depth: int, all_moves: bool, checking: bool
    ) -> tuple[dict[Move, int], bool]:
        me = game.to_move
        self._horizon = False
        if not checking:
            self._next_check = 1 << 62
        scores: dict[Move, int] = {}
        alpha = -INFINITY
        for move in moves:
            game.play(move)
            try:
                low = -INFINITY if all_moves else alpha
                scores[move] = self._child_value(game, me, 1, depth - 1, low, INFINITY)
            finally:
                game.undo()
            alpha = max(alpha, scores[move])
        self._next_check = self.nodes + CHECK_EVERY
        return scores, not self._horizon
