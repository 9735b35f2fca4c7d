"""The computer opponent: a level, a seed, and a move for any game.

Level :data:`MAX_LEVEL` is full strength: in Classic (lines of four, a board
that fits the exact solver) the opening book, then the exact solver, so every
move keeps the position's game value; in every other game the anytime search
for as long as the caller allows. Lower levels look a fixed number of moves
ahead and choose by a softmax over the moves' scores at a temperature, so
they make the mistakes of a player who sees less far and misjudges close
calls, not random moves. A choice depends only on the position, the level
and the seed (lower levels never read a clock).

>>> from engine import new_game
>>> game = new_game("classic")
>>> for move in "4 5 4 5 4".split():
...     game.play(move)
>>> str(Opponent(game.rules, level=2, seed=7).choose(game).move)  # blocks
'4'
"""

from __future__ import annotations

import math
import random
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from engine.colour import Colour
from engine.game import Game
from engine.move import Move
from engine.rules import Rules
from engine.solver.book import REBUILD, Book, BookError, packaged_book
from engine.solver.classic import ClassicSolver
from engine.solver.cores import CoreName
from engine.solver.fastsearch import FastSearch
from engine.solver.fastsearch import fits as fast_fits
from engine.solver.limits import Limits, SearchStopped
from engine.solver.position import Position, fits
from engine.solver.proofs import Proofs
from engine.solver.proven import ProvenPlay
from engine.solver.search import WIN, GameSearch, SearchResult

MIN_LEVEL = 1  # a child can beat it
MAX_LEVEL = 10  # full strength: the one statement of the level range (config, page, CLI read it)
# Classic outside the book, in positions of the compiled cores (about 22 million
# a second here; a Pi 4 did 2-3 million, a 1 s budget about 2.5 million, before
# issue 24's core, which searches the same positions about twice as fast here):
SOLVE_FIRST = 400_000  # the exact solver's first share: it finishes most positions within it
FALLBACK_NODES = 100_000  # then the fast search's, for a move should the solver not finish
FALLBACK_SLOTS = 1 << 16  # its table: 1.5 MB, ample for that share
PYTHON_SLOWER = 64  # the pure-Python cores: the same shares of their budgets
KEPT_CHOICES = 512  # Classic's proven choices kept: a game meets 42 positions, pondering 7 a move
DEFAULT_NODES = 20_000  # full strength outside Classic when the caller sets no limits
FAST_NODES = 1_000_000  # the same, compiled fast search: about 0.2 s here, under 1 s on a Pi
# level: (plies looked ahead, softmax temperature in the units of the one
# evaluation (engine/solver/evaluation.py: a threat, one disc short of a
# line, is worth 2 * 4 ** (line - 2)), a node budget). The budgets keep every
# level below what full strength searches in a second on a Pi (about 2,000
# nodes in Pop Out, pure Python), and keep the levels free of clocks, so
# deterministic. The temperatures of levels 1-4 were raised when the lower
# levels moved to the one evaluation (its parity and Pop 10 terms widen the
# gaps between moves), so that each level plays its best-scored move as often
# as before on 240 positions of every game (bench/levels.py).
LEVELS: dict[int, tuple[int, float, int]] = {
    1: (1, 95.0, 50),
    2: (2, 60.0, 100),
    3: (2, 19.0, 150),
    4: (3, 14.0, 250),
    5: (3, 5.0, 350),
    6: (4, 4.0, 500),
    7: (4, 1.5, 700),
    8: (5, 1.0, 900),
    9: (6, 0.3, 1200),
}


@dataclass(frozen=True)
class Choice:
    """A move and why: ``scores`` per legal move for the player to move.

    ``source`` is ``book`` (its exact score, or 1 where it holds a move that
    keeps a win but not the win's exact score), ``solver`` (exact Classic
    scores in the test-set convention), ``outcome`` (Classic when only the
    outcome was solved in time: 1 win, 0 draw, -1 loss; the move keeps it),
    or ``search`` (:mod:`engine.solver.search` units). ``exact``: the chosen
    move's score is the exact game value.
    """

    move: Move
    scores: dict[Move, int]
    source: str
    exact: bool
    depth: int = 0

    @property
    def proven(self) -> bool:
        """Whether the move is proven to keep the position's outcome: the
        book's, the solver's, or a search that solved the game."""
        return self.exact or self.source in ("book", "solver", "outcome")


def _proven(column: int, value: int, exact: bool) -> Choice:
    """The exact solver's choice: ``value`` an exact score, or (not ``exact``)
    the outcome (1 win, -1 loss) the move keeps."""
    move = Move.drop(column)
    return Choice(move, {move: value}, "solver" if exact else "outcome", exact)


def classic_fits(rules: Rules) -> bool:
    """Whether ``rules`` are Classic on a board the exact solver handles."""
    plain = rules.line == 4 and not (rules.pops or rules.pop10 or rules.strips)
    return plain and rules.repetition is None and fits(rules.width, rules.height)


def classic_position(game: Game) -> Position:
    """The solver's position for a Classic game."""
    # the engine's bitboards have the solver's layout: column-major, stride height + 1
    key = game.position_key()
    mine = key.yellow if key.to_move is Colour.YELLOW else key.red
    discs = key.red | key.yellow
    return Position(game.rules.width, game.rules.height, mine, discs, discs.bit_count())


# a way to find a move that keeps the outcome: (solver, position, should_stop,
# proofs) -> (column, outcome), as ClassicSolver.outcome_move
OutcomeMove = Callable[[ClassicSolver, Position, Callable[[], bool], Proofs], tuple[int, int]]


class Opponent:
    """Chooses moves for one set of rules at one level.

    ``book`` defaults to the book shipped for the board size (Classic only).
    A damaged shipped book is not used: the solver answers instead, and
    ``book_problem`` says why, for the caller to tell once.
    ``outcome_move``: in Classic, how the exact solver finds a move that
    keeps the outcome where the budget is time (default
    :meth:`ClassicSolver.outcome_move`; ``controller/computer/helper.py``
    adds a thread on a second core: the engine has none of its own).
    """

    def __init__(
        self,
        rules: Rules,
        level: int = MAX_LEVEL,
        seed: int = 0,
        book: Book | bool | None = True,
        core: CoreName = "auto",
        outcome_move: OutcomeMove | None = None,
    ) -> None:
        if not MIN_LEVEL <= level <= MAX_LEVEL:
            raise ValueError(f"levels are {MIN_LEVEL} to {MAX_LEVEL}, not {level}")
        self.rules = rules
        self.level = level
        self.seed = seed
        self.outcome_move = outcome_move
        self.search = GameSearch(rules)
        self.solver: ClassicSolver | None = None
        self.book: Book | None = None
        self.book_problem: str | None = None
        # full strength in every other game: the fast search where the board fits it
        self.fast: FastSearch | None = None
        self.fallback: FastSearch | None = None  # Classic's, while the exact solve runs
        # Classic's proven choices by position (its own moves, pondering, hints,
        # study): a result once proven is never searched for again, nor lost
        # to a stopped search or to the solver's table overwriting its entries
        self._kept: OrderedDict[int, Choice] = OrderedDict()
        if level == MAX_LEVEL and not classic_fits(rules) and fast_fits(rules):
            self.fast = FastSearch(rules, core=core)
        # with pops, held to what the outcome search proves (engine/solver/proven.py)
        self.proven = ProvenPlay(self.fast) if self.fast is not None and rules.pops else None
        if level == MAX_LEVEL and classic_fits(rules):
            self.solver = ClassicSolver(rules.width, rules.height, core=core)
            self.fallback = FastSearch(rules, core=core, slots=FALLBACK_SLOTS)
            if book is True:
                try:
                    self.book = packaged_book(rules.width, rules.height)
                except BookError as error:
                    self.book_problem = f"playing without the opening book ({error}): {REBUILD}"
            elif isinstance(book, Book):
                self.book = book

    def choose(self, game: Game, limits: Limits | None = None) -> Choice:
        """The move to play in ``game`` (which is left as it was).

        ``limits`` bound full strength's thinking; without them the Classic
        solver runs to the end and the search of other games looks at
        :data:`DEFAULT_NODES` positions (:data:`FAST_NODES` with the compiled
        fast search). Lower levels ignore them.
        """
        if game.is_over():
            raise ValueError("the game is over: there is no move to choose")
        if self.level < MAX_LEVEL:
            return self._human_like(game)
        if self.solver is not None:
            return self._perfect(game, limits or Limits())
        if self.fast is not None:
            nodes = FAST_NODES if self.fast.core_name == "compiled" else DEFAULT_NODES
            if self.proven is not None:
                result = self.proven.choose(game, limits or Limits(max_nodes=nodes))
            else:
                result = self.fast.search(game, limits or Limits(max_nodes=nodes))
        else:
            result = self.search.search(game, limits or Limits(max_nodes=DEFAULT_NODES))
        return Choice(result.move, result.scores, "search", result.exact, result.depth)

    def ponder(self, game: Game, limits: Limits) -> None:
        """Think on the other player's time: ``game`` has them to move.

        Full strength searches until ``limits`` stop it, so its tables
        already hold what its next move needs: in Classic it solves, as its
        own move would, the position after each of their replies, the
        likeliest first (the next move then costs a hundredth or less, and
        is exact far more often); with pops it proves what each of their
        replies leaves (:meth:`ProvenPlay.ponder`); in the other games it
        searches their position. Nothing to do at lower levels (their searches start from
        an empty table, to stay reproducible), in a finished game, or where
        the book holds every position their answer can lead to.

        >>> from engine import new_game
        >>> game = new_game("classic")
        >>> for move in "4 7 2 6 1 2 1 3 4 7 2 4".split():  # past the book
        ...     game.play(move)
        >>> opponent = Opponent(game.rules, core="python", book=False)
        >>> opponent.ponder(game, Limits(max_nodes=2000))
        >>> opponent.solver is not None and opponent.solver.nodes > 0
        True
        """
        if self.level < MAX_LEVEL or game.is_over():
            return
        if self.solver is not None:
            self._ponder_classic(classic_position(game), limits)
        elif self.proven is not None:
            self.proven.ponder(game, limits)
        elif self.fast is not None:
            self.fast.search(game, limits)

    def study(self, game: Game, limits: Limits) -> None:
        """Think about ``game``'s position for the player to move before they
        ask for a hint: what :meth:`choose` would do, until it proves its move
        or ``limits`` stop it, the answer dropped. What it proved stays in the
        tables, so a hint asked later costs a fraction of a cold one and is
        proven where the cold one, at a move's budget, would not be.

        >>> from engine import new_game
        >>> game = new_game("classic")
        >>> for move in "2252576253462244111563365343671351441":  # five discs to go
        ...     game.play(move)
        >>> opponent = Opponent(game.rules, core="python", book=False)
        >>> opponent.study(game, Limits(max_nodes=100_000))
        >>> hint = opponent.choose(game, Limits(should_stop=lambda: True))  # no time left
        >>> str(hint.move), hint.source, hint.exact
        ('6', 'solver', True)
        """
        if self.level == MAX_LEVEL and not game.is_over():
            self.choose(game, limits)

    def _ponder_classic(self, position: Position, limits: Limits) -> None:
        """Solve, as :meth:`choose` would, the position after each reply the
        book does not answer, the likeliest replies first, until stopped."""
        assert self.solver is not None
        solver = self.solver
        stop = self._solver_stop(limits)
        safe = solver.ordered_safe_moves(position)
        for column in [*safe, *(c for c in position.centre_first if c not in safe)]:
            if not position.can_play(column) or position.wins_with(column):
                continue
            after = position.play(column)
            if after.moves == after.width * after.height:
                continue
            if self.book is not None and self.book.lookup(after) is not None:
                continue
            kept = self._kept.get(after.key())
            if kept is not None and kept.exact:
                continue
            proofs = Proofs()
            try:
                column, outcome = solver.outcome_move(after, stop, proofs)
            except SearchStopped:
                return
            choice = self._exact(after, column, outcome, proofs, stop)
            self._keep(after, choice)
            if not choice.exact:
                return

    def _human_like(self, game: Game) -> Choice:
        depth, temperature, nodes = LEVELS[self.level]
        budget = Limits(max_nodes=nodes)
        self.search.table.clear()  # the choice must not depend on earlier calls
        result = self.search.search(game, budget, max_depth=depth, all_moves=True)
        moves = list(game.legal_moves())
        best = max(result.scores[m] for m in moves)
        weights = [math.exp((result.scores[m] - best) / temperature) for m in moves]
        rng = random.Random(f"{self.seed}/{','.join(str(m) for m in game.moves)}")
        move = rng.choices(moves, weights)[0]
        exact = result.exact and result.scores[move] == best
        return Choice(move, result.scores, "search", exact, result.depth)

    def _perfect(self, game: Game, limits: Limits) -> Choice:
        assert self.solver is not None
        position = classic_position(game)
        if self.book is not None:
            known = self.book.lookup(position)
            if known is not None:
                move = Move.drop(known.column)
                return Choice(move, {move: known.score}, "book", known.exact)
        kept = self._kept.get(position.key())
        if kept is not None and kept.exact:
            return kept
        choice = self._solve(game, position, limits)
        if not choice.proven:
            return kept or choice  # a move proven before beats a guess now
        self._keep(position, choice)
        return choice

    def _solve(self, game: Game, position: Position, limits: Limits) -> Choice:
        """The exact solver's move within ``limits``, else the best guess."""
        assert self.solver is not None
        proofs = Proofs()
        stop = self._solver_stop(limits)
        found = None
        try:
            # most positions are solved within a first share; only then the fast search
            first = None if limits == Limits() else self._share(SOLVE_FIRST)
            try:
                column, outcome = self._outcome_move(
                    position, self._solver_stop(limits, first), proofs, limits
                )
            except SearchStopped:
                found = self._fallback(game, limits, proofs)
                column, outcome = self._outcome_move(position, stop, proofs, limits)
        except SearchStopped:
            assert found is not None
            return self._unproven(position, proofs, found)
        return self._exact(position, column, outcome, proofs, stop)

    def _exact(
        self,
        position: Position,
        column: int,
        outcome: int,
        proofs: Proofs,
        stop: Callable[[], bool],
    ) -> Choice:
        """The move with the position's exact score, given a ``column`` the
        outcome search proved to keep its ``outcome`` (and what else it
        proved); when stopped, the move the finished tests proved best."""
        assert self.solver is not None
        if outcome == 0:  # a draw's exact score is 0: that move is the exact answer too
            return _proven(column, 0, exact=True)
        bounds = self.solver.score_bounds(position, proofs)
        try:
            column, score = self.solver.narrow_best(position, bounds, stop)
        except SearchStopped:
            return _proven(bounds.best()[0], outcome, exact=False)
        return _proven(column, score, exact=True)

    def _outcome_move(
        self, position: Position, stop: Callable[[], bool], proofs: Proofs, limits: Limits
    ) -> tuple[int, int]:
        """The solver's move that keeps the outcome: the caller's way where the
        budget is time (a node budget counts the solver's own positions)."""
        assert self.solver is not None
        if self.outcome_move is not None and limits.max_nodes is None:
            return self.outcome_move(self.solver, position, stop, proofs)
        return self.solver.outcome_move(position, stop, proofs)

    def _keep(self, position: Position, choice: Choice) -> None:
        """Remember a proven choice (the most recent :data:`KEPT_CHOICES`)."""
        self._kept[position.key()] = choice
        self._kept.move_to_end(position.key())
        while len(self._kept) > KEPT_CHOICES:
            self._kept.popitem(last=False)

    def _share(self, nodes: int) -> int:
        """``nodes`` of the compiled cores as the same share of a budget for this core."""
        assert self.solver is not None
        return nodes if self.solver.core.name == "compiled" else nodes // PYTHON_SLOWER

    def _solver_stop(self, limits: Limits, cap: int | None = None) -> Callable[[], bool]:
        """``limits`` (and at most ``cap`` positions) as the exact solver's stop
        check, its nodes counted from now."""
        assert self.solver is not None
        solver, start, every = self.solver, self.solver.nodes, self.solver.core.check_every
        # the solver adds a test's nodes when it ends; within one, the core
        # polls every ``every`` positions, so the polls count the rest
        polls = [solver.nodes, 0]  # at the end of the last test, polls since

        def stop() -> bool:
            if polls[0] != solver.nodes:
                polls[:] = [solver.nodes, 0]
            polls[1] += 1
            nodes = solver.nodes - start + polls[1] * every
            return limits.stopped(nodes) or (cap is not None and nodes >= cap)

        return stop

    def _fallback(self, game: Game, limits: Limits, proofs: Proofs) -> SearchResult:
        """Classic's move while the exact solve has not finished: the fast
        search (threats, parity) over the moves no test has refuted, for its
        share of the budget."""
        assert self.fallback is not None
        columns = [move.column for move in game.legal_moves()]
        pool = proofs.unrefuted(columns) or columns
        nodes = self._share(FALLBACK_NODES)
        if limits.max_nodes is not None:
            nodes = min(nodes, limits.max_nodes)
        budget = Limits(limits.should_stop, nodes)
        return self.fallback.search(game, budget, only={Move.drop(c) for c in pool})

    def _unproven(self, position: Position, proofs: Proofs, found: SearchResult) -> Choice:
        """Classic's move when the outcome was not proven in time: a win the
        fast search proved, else the first in the solver's own order (the
        most threats made, then centre first) among the moves proven to keep
        at least a draw, else among those no test nor the fast search has
        refuted. The fast search's judgement only vetoes: on the won and drawn
        Begin-Hard positions whose outcome 5 M positions left unproven and
        20 M proved, its best move changed the result in 5 of 27, the
        solver's first in 1 (a proven draw played where another move won)."""
        assert self.solver is not None
        scores = found.scores
        order = self.solver.ordered_safe_moves(position)
        columns = order + [c for c in position.centre_first if position.can_play(c)]
        columns = list(dict.fromkeys(columns))  # every legal move once, the safe ones first
        pool = proofs.unrefuted(columns) or columns
        if found.move.column in pool and scores[found.move] >= WIN // 2:
            return Choice(found.move, scores, "search", found.exact, found.depth)
        alive = [c for c in pool if scores.get(Move.drop(c), 0) > -WIN // 2] or pool
        column = (proofs.safe(alive) or alive)[0]
        return Choice(Move.drop(column), scores, "search", False, found.depth)
