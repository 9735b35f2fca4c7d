"""The fast anytime search for every game, on 64-bit bitboards (in Classic,
the exact solver's move while its solve has not finished).

:class:`FastSearch` has :class:`~engine.solver.search.GameSearch`'s
interface and units (``WIN - n``: a win ``n`` plies ahead) but searches a
compact model of the game instead of :class:`~engine.Game`: two bitboards,
the side to move, Pop 10's phase, pending return column and points. The
model and the search run in a compiled core (``_search.c``, built by
``pip install`` when a C compiler is present, the GIL released while it
searches) or in its pure-Python twin (``_pysearch.py``), which gives the same
scores, moves and node counts for the same table size and limits, about a
hundred times slower.

The model restates rules that :mod:`engine.game` owns (drops, pops and who
wins when a pop completes two lines, the 5-in-a-Row strips, Pop 10's fill
order, scoring pops, return drops and passes, the optional repetition
draw). It is allowed only because ``tests/test_fastsearch.py`` plays many
seeded random games of every preset and several board sizes through both
and checks them move for move: the same legal moves, the same positions,
the same results, the same repetition draws. A board whose
``width * (height + 1)`` exceeds 64 bits does not fit: :func:`fits` says so
and the caller uses ``GameSearch``.

The search: iterative deepening alpha-beta with principal variation search
(after the first, moves are only tested against a null window, searched
again if they beat it); a transposition table of fixed size (24 bytes a
slot, :data:`DEFAULT_SLOTS`), wins and losses stored relative to the
position; threat-aware move order (the table's move, an immediate win
taken at once, the rest by the evaluation after the move, moves that let
the opponent complete a line by a drop last); a reply to a threat to win by
a drop searched one ply deeper (up to twice the iteration's depth from the
root: forced lines are where a shallow search misses a loss). When the time
runs out in an iteration, a move it already found better than the last
iteration's choice is kept (:func:`improved`). It judges with the one
evaluation (:mod:`engine.solver.evaluation`). The repetition draw is
judged on the game's own history plus the search path; a value that
depended on the path above a position (the rule's count, the game's past, a
circle closing above it) is never reused from the table for a cutoff, and
with the rule on the table starts empty at each search (the history has
changed). Without the rule, a game with pops judges a position met again as
a draw (:func:`engine.solver.model.cycles`); a circle that closes at a
position or below it leaves that position's value its own, reused anywhere
(``repeats`` in ``_search.c`` argues it).
An iteration that meets no horizon has solved the remaining game: the
search stops with exact scores.

>>> from engine import new_game
>>> game = new_game("popout")
>>> for move in "4 4 3 3 2 2".split():
...     game.play(move)
>>> result = FastSearch(game.rules, core="python", slots=1 << 12).search(game)
>>> str(result.move), result.scores[result.move]
('5', 99999)
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, Literal

from engine.colour import Colour
from engine.game import Game, PositionKey
from engine.move import Move
from engine.phase import Phase
from engine.rules import Rules
from engine.solver import _pysearch, tables
from engine.solver.limits import Limits
from engine.solver.model import model_spec
from engine.solver.search import INFINITY, WIN, SearchResult

try:
    from engine.solver import _search  # type: ignore[attr-defined]
except ImportError:  # built without a compiler: the pure twin answers, slower
    _search = None

COMPILED = _search is not None
DEFAULT_SLOTS = 1 << 20  # 24 bytes a slot: 24 MB
PYTHON_SLOTS = 1 << 16  # the pure twin searches far fewer positions
MAX_DEPTH = 100  # the table keeps depths below 128
EVERYTHING = 1 << 62
PHASES = {Phase.PLAY: 0, Phase.FILL: 1, Phase.POP: 2, Phase.RETURN: 3}
CoreName = Literal["auto", "compiled", "python"]
State = _pysearch.State


def fits(rules: Rules) -> bool:
    """Whether a game under ``rules`` fits the 64-bit model.

    >>> from engine import rules_named
    >>> fits(rules_named("five+popout")), fits(rules_named("popout", (12, 10)))
    (True, False)
    """
    return rules.width * (rules.height + 1) <= 64 and rules.width <= 32


def state_of(game: Game) -> State:
    """The model's state of a game in progress."""
    return _state(game.position_key())


def _state(key: PositionKey) -> State:
    pending = -1 if key.pending_return is None else key.pending_return - 1
    side = int(key.to_move is Colour.YELLOW)
    return (key.red, key.yellow, side, PHASES[key.phase], pending, key.red_score, key.yellow_score)


def past_of(game: Game) -> list[tuple[int, int, int, int]]:
    """Every position the game has met, with its count: for the repetition
    draw, and without the rule for judging circles."""
    counts = Counter(_state(key) for key in game.past_positions())
    return [(s[0], s[1], _pysearch.key_extra(s), count) for s, count in counts.items()]


def settled(scores: Sequence[int], depth: int, horizon: int) -> bool:
    """Whether an iteration at ``depth`` has decided ``scores``.

    A win or a loss counts only once the iteration looks as far as it: one
    read from the table may come round a cycle of Pop Out positions (each
    claim true, a shorter win unseen), and a search that stopped there would
    chase it round the cycle for ever instead of winning.
    """
    seen_through = all(abs(v) < WIN // 2 or WIN - abs(v) <= depth for v in scores)
    proven = all(abs(v) >= WIN // 2 for v in scores)
    return seen_through and (proven or not horizon)


def to_move(code: int) -> Move:
    """A core's move code as a :class:`Move`."""
    column = (code & 31) + 1
    return Move.pop(column) if code & 32 else Move.drop(column)


def improved(
    result: SearchResult, moves: Sequence[int], scores: Sequence[int], depth: int
) -> SearchResult:
    """``result`` or, better, what a stopped iteration at ``depth`` found.

    The iteration tried the moves best first, so its first score is the
    deeper value of ``result``'s move. A later move that scored higher at
    that depth (a score above the first is exact, not a bound) refutes it:
    its value at the deeper depth beats the old move's, so it is the better
    choice; the rest of that iteration is lost anyway. A win claimed from
    beyond the depth is not trusted (see :func:`settled`).
    """
    if len(scores) < 2:
        return result
    best = max(range(len(scores)), key=lambda i: scores[i])  # the first of the best
    far_win = scores[best] >= WIN // 2 and WIN - scores[best] > depth
    if scores[best] <= scores[0] or far_win:
        return result
    found = dict(result.scores)
    found.update((to_move(m), v) for m, v in zip(moves, scores, strict=False))
    return SearchResult(to_move(moves[best]), found, result.depth, False, result.nodes)


class FastSearch:
    """Iterative deepening over the compact model, for one set of rules.

    ``core``: ``auto`` (compiled when installed), ``compiled`` or ``python``.
    The table is kept between searches; :meth:`clear` empties it.
    """

    def __init__(self, rules: Rules, core: CoreName = "auto", slots: int | None = None) -> None:
        if not fits(rules):
            raise ValueError(f"a {rules.width}x{rules.height} board does not fit the fast search")
        if core == "compiled" and _search is None:
            raise RuntimeError("the compiled search core is not installed")
        compiled = core == "compiled" or (core == "auto" and COMPILED)
        self.rules = rules
        self.spec = model_spec(rules)
        self.core: Any = _search if compiled else _pysearch
        self.core_name = "compiled" if compiled else "python"
        self.check_every = 1 << 12 if compiled else 1 << 7
        slots = slots or (DEFAULT_SLOTS if compiled else PYTHON_SLOTS)
        self.table = bytearray(24 * slots)
        self.nodes = 0

    def clear(self) -> None:
        """Forget every position searched so far."""
        tables.clear(self.table)

    def search(
        self,
        game: Game,
        limits: Limits | None = None,
        max_depth: int = MAX_DEPTH,
        all_moves: bool = False,
        solve: bool = False,
        only: Collection[Move] | None = None,
    ) -> SearchResult:
        """Deepen until the limits stop it, the game is solved or ``max_depth``.

        As :meth:`engine.solver.search.GameSearch.search`: depth 1 always
        completes; a stop during a deeper iteration keeps the last complete
        one; ``solve`` keeps deepening with a single legal move. ``only``
        (legal moves, at least one) limits the moves searched at the root.
        """
        found = self.iterations(game, limits, max_depth, all_moves, solve, only=only)
        return deque(found, maxlen=1)[0]

    def iterations(
        self,
        game: Game,
        limits: Limits | None = None,
        max_depth: int = MAX_DEPTH,
        all_moves: bool = False,
        solve: bool = False,
        refuted: Collection[int] = (),
        only: Collection[Move] | None = None,
    ) -> Iterator[SearchResult]:
        """:meth:`search`, one result an iteration, the last its answer.

        ``refuted``: move codes left out of the next iterations (the caller
        may add to it between them), unless every move is; ``only`` as for
        :meth:`search`.
        """
        if game.is_over():
            raise ValueError("the game is over: there is no move to search")
        limits = limits or Limits()
        state = state_of(game)
        seen = self.past(game)
        moves = self.core.moves(self.spec, state)
        if only is not None:
            moves = [m for m in moves if to_move(m) in only]
        result: SearchResult | None = None
        nodes = counted = 0  # counted: the nodes added to self.nodes
        for depth in range(1, min(max_depth, MAX_DEPTH) + 1):
            checking = depth > 1
            limited = limits if checking else None
            moves = [m for m in moves if m not in refuted] or moves
            scores, horizon, nodes, stopped = self.iterate(
                state, moves, depth, seen, nodes, limited, all_moves
            )
            if stopped:
                if result is not None and not all_moves:
                    result = improved(result, moves, scores, depth)
                    self.nodes, counted = self.nodes + nodes - counted, nodes
                    yield result
                break
            by_move = dict(zip(moves, scores, strict=True))
            best = max(moves, key=lambda m: by_move[m])  # the first of the best
            judged = [by_move[best]] if not all_moves else scores
            exact = settled(judged, depth, horizon)
            result = SearchResult(
                to_move(best), {to_move(m): v for m, v in by_move.items()}, depth, exact, nodes
            )
            self.nodes, counted = self.nodes + nodes - counted, nodes
            yield result
            if exact or (len(moves) == 1 and not solve):
                break
            if checking and limits.stopped(nodes):
                break
            moves = sorted(moves, key=lambda m: -by_move[m])  # stable: ties keep order
        self.nodes += nodes - counted

    def past(self, game: Game) -> list[tuple[int, int, int, int]]:
        """The positions of ``game``'s past the search must know: for the
        repetition draw, and without the rule for judging circles (the
        table starts empty under the rule: the history has changed)."""
        if self.spec.repetition:
            self.clear()  # values stored under another history may miss a repetition
        return past_of(game) if self.spec.repetition or self.spec.cycles else []

    def iterate(
        self,
        state: State,
        moves: Sequence[int],
        depth: int,
        seen: list[tuple[int, int, int, int]],
        nodes: int,
        limits: Limits | None,
        all_moves: bool = False,
        window: tuple[int, int] = (-INFINITY, INFINITY),
    ) -> tuple[list[int], int, int, bool]:
        """One iteration of the core at ``depth``: the scores of ``moves`` in
        ``window`` (until one reaches its top, unless ``all_moves``),
        whether a horizon was met, the nodes counted from ``nodes``, and
        whether the limits stopped it."""
        max_nodes = EVERYTHING
        stop: Callable[[], bool] | None = None
        if limits is not None:
            if limits.max_nodes is not None:
                max_nodes = limits.max_nodes
            stop = limits.should_stop
        answer: tuple[list[int], int, int, bool] = self.core.root(
            self.table, self.spec, state, moves, depth, all_moves, *window, seen,
            max_nodes, nodes, stop, self.check_every,
        )  # fmt: skip
        return answer


__all__ = ["COMPILED", "FastSearch", "fits", "state_of"]
