"""The exact outcome search for the games of the fast search: win, draw or loss.

Null-window tests over the fast search's core, deepened one ply at a time:
at an odd depth, "does a move win within that many plies?" (the window
just below a proven win), at an even depth, "which moves lose within it?"
(the window just above a proven loss). The evaluation only orders the
moves: it never decides a test, so whatever a test proves holds, and a
test that met no horizon has looked at the whole game. Far cheaper than
the anytime search's full windows, the tests look much deeper in the same
time (:data:`docs/opponent.md`'s figures).

Sound under the full-grid and repetition rules (the core's ``repeats``
says why in detail): a circle on the search path counts as a draw, which
never hides a win (a forced win has a strategy that never repeats a
position) and never makes one; a value that depends on the path above a
position is not reused from the table as its own; with the repetition
rule the game's earlier positions count, and the table starts empty.
Without it a move back to one of them is judged a draw too, never exact:
so a proven win never goes back to where the game has been (two
winning moves that each led back to the other's position once made a game
go round for ever), and a proven win or loss stays true (the draw only
takes chances away from the side it would have helped).

>>> from engine import new_game
>>> from engine.solver.fastsearch import FastSearch
>>> game = new_game("popout")
>>> for move in "4 4 3 3 2 2".split():
...     game.play(move)
>>> search = FastSearch(game.rules, core="python", slots=1 << 12)
>>> found = prove(search, game)
>>> str(found.move), found.value, found.describe()
('5', 99999, 'won in 1')
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from engine.game import Game
from engine.move import Move
from engine.solver._pysearch import key_extra
from engine.solver.fastsearch import MAX_DEPTH, FastSearch, State, state_of, to_move
from engine.solver.limits import Limits
from engine.solver.search import WIN

WON = WIN // 2  # a score at or above it is a proven win, at or below -WON a loss


@dataclass(frozen=True)
class Outcome:
    """What the tests have proven of a position so far.

    ``value``: ``WIN - n`` won in at most ``n`` plies by ``move``; 0 a
    proven draw (``move`` draws); ``-(WIN - n)`` lost (``move`` loses
    slowest as far as proven); None not proven yet (``move`` None).
    ``lost``: the moves proven to lose, with their scores. ``depth``: the
    plies the last test looked ahead.
    """

    move: Move | None
    value: int | None
    lost: dict[Move, int]
    depth: int

    def describe(self) -> str:
        """The outcome in a few words (benchmarks, logs).

        >>> Outcome(None, None, {}, 9).describe()
        'unknown to 9 plies'
        """
        if self.value is None:
            return f"unknown to {self.depth} plies"
        if self.value == 0:
            return "draw"
        plies = WIN - abs(self.value)
        return f"won in {plies}" if self.value > 0 else f"lost in {plies}"


def outcomes(search: FastSearch, game: Game, limits: Limits | None = None) -> Iterator[Outcome]:
    """The outcome proven after each test, deepening until the game's is
    proven or the limits stop it (the last one then says what was proven)."""
    if game.is_over():
        raise ValueError("the game is over: there is no move to search")
    limits = limits or Limits()
    state = state_of(game)
    seen = met_before(search, game, state)
    moves: list[int] = search.core.moves(search.spec, state)
    lost: dict[int, int] = {}
    no_win = no_loss = False  # proven at some depth with no horizon: for the whole game
    survivor: int | None = None  # the move that last held out against a test of loss
    nodes = counted = 0  # counted: the nodes added to search.nodes
    for depth in range(1, MAX_DEPTH + 1):
        open_moves = [m for m in moves if m not in lost]
        if depth % 2:  # a win of the side to move comes at an odd ply
            window = (WON - 1, WON)
            scores, horizon, nodes, stopped = search.iterate(
                state, open_moves, depth, seen, nodes, limits, False, window
            )
            won = [(v, m) for m, v in zip(open_moves, scores, strict=False) if v >= WON]
            search.nodes, counted = search.nodes + nodes - counted, nodes
            if won:
                value, move = won[0]
                yield _found(move, value, lost, depth)
                return
            no_win = no_win or not (horizon or stopped)
        else:
            window = (-WON, 1 - WON)
            scores, horizon, nodes, stopped = search.iterate(
                state, open_moves, depth, seen, nodes, limits, True, window
            )
            lost.update((m, v) for m, v in zip(open_moves, scores, strict=False) if v <= -WON)
            search.nodes, counted = search.nodes + nodes - counted, nodes
            no_loss = no_loss or not (horizon or stopped)
            if len(lost) == len(moves):
                slowest, nodes = _slowest(
                    search, state, seen, lost, survivor, open_moves, moves, depth, nodes, limits
                )
                search.nodes, counted = search.nodes + nodes - counted, nodes
                yield _found(slowest, lost[slowest], lost, depth)
                return
            survivor = next((m for m in open_moves if m not in lost), survivor)
        if no_win and no_loss:
            drawing = next(m for m in moves if m not in lost)
            yield _found(drawing, 0, lost, depth)
            return
        yield Outcome(None, None, _moves(lost), depth)
        if stopped or limits.stopped(nodes):
            return


def prove(search: FastSearch, game: Game, limits: Limits | None = None) -> Outcome:
    """What :func:`outcomes` proves before ``limits`` stop it."""
    return deque(outcomes(search, game, limits), maxlen=1)[0]


def met_before(search: FastSearch, game: Game, state: State) -> list[tuple[int, int, int, int]]:
    """The positions that count as met before: the game's past with pops or
    the repetition rule (the module says why), else only the position itself."""
    if search.spec.repetition or search.spec.cycles:
        return search.past(game)
    return [(state[0], state[1], key_extra(state), 1)]


def _moves(codes: dict[int, int]) -> dict[Move, int]:
    return {to_move(m): v for m, v in codes.items()}


def _slowest(
    search: FastSearch,
    state: State,
    seen: list[tuple[int, int, int, int]],
    lost: dict[int, int],
    survivor: int | None,
    caught: list[int],
    moves: list[int],
    depth: int,
    nodes: int,
    limits: Limits,
) -> tuple[int, int]:
    """The move to play when every move is proven lost (the test at
    ``depth`` caught the last of them, ``caught``), and the nodes counted.

    A test of loss stops at the first move it cannot prove lost, and the
    value it leaves on a move it catches is a bound from the first losing
    line met (a threat extension may look past the test's depth, a circle
    counts as a draw), not the move's distance: by the loosest bound, a
    move once lost in 6 plies where 12 could be held. The move that held
    out against the test before the last (``survivor``) loses no sooner
    than that test's depth. The last test's other catches were never put
    to that test (it stopped at the survivor): each whose bound says it
    may hold out longer is, alone, and joins the survivor if it holds out.
    Of those, the loosest bound is played (docs/opponent.md, "Losing
    slowly, measured", has the figures).
    """
    if survivor is None:
        return min(lost, key=lambda m: (-lost[m], moves.index(m))), nodes
    held = [survivor]
    window = (-WON, 1 - WON)
    for move in caught:  # the survivor among them: no bound is looser than its own
        if limits.stopped(nodes):
            break
        if lost[move] <= lost[survivor]:
            continue
        scores, _horizon, nodes, stopped = search.iterate(
            state, [move], depth - 2, seen, nodes, limits, True, window
        )
        if stopped:
            break
        if scores[0] > -WON:
            held.append(move)
    return min(held, key=lambda m: (-lost[m], held.index(m))), nodes


def _found(move: int, value: int, lost: dict[int, int], depth: int) -> Outcome:
    return Outcome(to_move(move), value, _moves(lost), depth)


__all__ = ["WON", "Outcome", "met_before", "outcomes", "prove"]
