"""The losing side's move at the edge of Pop Out's opening table: the one that holds out longest.

The opening table (:mod:`engine.solver.openings`) holds, in Pop Out 7x6's
first plies, the winner's proven move and the plies it wins within. Where
the side to move has lost, each of its moves either leads to an entry of
the winner's (whose plies bound how long that move holds out), or was
left out of the table because its proof is cheap (the table's builder
proves it within about what full strength searches in a move). There no test of
full strength's own finishes in a move's time (the wins are 20 to 30
plies deep), and its judgement chose moves that lost 6 to 10 plies
sooner than they had to (docs/opponent.md, "Holding out at the table's
edge"). Every such position the opening table reaches, after the
winner's entry or any other move that wins too, is in a table of holds
(``holds_data.py``, built by bench/popout_holds.py, which proves each
move alone); a position it lacks is proven here, within a share of the
move's budget. The plies are exact distances (:mod:`engine.solver.distance`),
but for a move to an entry: in play it stands at the entry's bound, and
in the table of holds too where its own proof did not finish.

>>> from engine import new_game
>>> from engine.solver.fastsearch import FastSearch
>>> game = new_game("popout")
>>> for move in "3 6 4 2 4 2 4".split():  # Yellow to move, lost
...     game.play(move)
>>> move, plies = longest_hold(FastSearch(game.rules, slots=1 << 12), game, Limits())
>>> str(move), plies
('4', 16)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from engine.game import Game
from engine.move import Move
from engine.solver.distance import quickest_win
from engine.solver.fastsearch import FastSearch, state_of
from engine.solver.limits import Limits
from engine.solver.openings import Entries, after_each, applies, entries, look_up, opening_move

# the table's builder left out a position whose proof took at most 500,000
# positions (bench/popout_openings.py --enough): proven within this, or the
# position is not at the table's edge
EDGE_PROOF = 500_000
# all the proofs of one move: at most about 100 ms here (the outcome search
# runs about 15 M positions a second), so a search that must take over
# still has most of a move's time; the most a move at the edge of the
# games in docs/opponent.md took was 1.07 M
EDGE_PROOFS = 3 * EDGE_PROOF


def longest_hold(search: FastSearch, game: Game, limits: Limits) -> tuple[Move, int] | None:
    """The move in ``game`` that holds out longest and the plies it holds
    (the winner's quickest win after it, plus one): from the table of holds
    where it has the position, else where the opening table has the
    winner's move after at least one move and every other is proven lost
    within :data:`EDGE_PROOF` positions (and :data:`EDGE_PROOFS` and
    ``limits``, counted over all the proofs); else None, and full strength
    searches as usual."""
    if not applies(game.rules):
        return None  # the other games with pops do not load the table
    held = look_up(holds_table(), game.rules, state_of(game))
    if held is not None:
        return held
    if not at_edge(game):
        return None
    each = holds_of(lambda: search, game, limits, EDGE_PROOF, EDGE_PROOFS)
    return None if each is None else longest(each)


def at_edge(game: Game) -> bool:
    """Whether a move in ``game`` leads to an entry of the opening table."""
    return any(
        after.result is None and opening_move(game.rules, state_of(after)) is not None
        for _move, after in after_each(game)
    )


def longest(each: dict[Move, int]) -> tuple[Move, int]:
    """The move that holds out longest, and its plies (the first of equals)."""
    best = max(each, key=lambda move: each[move])
    return best, each[best]


def holds_of(
    searches: Callable[[], FastSearch],
    game: Game,
    limits: Limits,
    proof: int,
    proofs: int,
    entries_too: bool = False,
) -> dict[Move, int] | None:
    """How many plies each move in ``game`` holds out, if the position is
    lost for the side to move (else None): the winner's quickest win after
    it, plus one, by tests of distance (:func:`~engine.solver.distance.quickest_win`),
    each within ``proof`` positions, all within ``proofs`` and ``limits``,
    each on the search ``searches`` gives. The moves that lead to the
    opening table's entries stand at the entry's plies (a proof's first
    win, which bounds the quickest): even that proof took over 500,000
    positions when the opening table was built, and an exact one takes
    more, more than a move has for them.
    ``entries_too``: prove them as well, last, with what is left, the
    entry's plies standing where a proof does not finish. The table of
    holds is made so, each proof on a fresh table (bench/popout_holds.py)."""
    held: dict[Move, int] = {}
    unknown: list[tuple[Move, Game, int | None]] = []  # proven first, with no bound
    bounded: list[tuple[Move, Game, int | None]] = []
    for move, after in after_each(game):
        if after.result is not None:
            if after.result is game.to_move or after.result == "draw":
                return None  # not lost: the mover has better than a loss at once
            held[move] = 1
            continue
        found = opening_move(game.rules, state_of(after))
        if found is None:
            unknown.append((move, after, None))
        elif entries_too:
            bounded.append((move, after, found[1] + 1))
        else:
            held[move] = found[1] + 1
    spent = 0
    for move, after, bound in unknown + bounded:
        budget = min(proof, proofs - spent)
        if limits.max_nodes is not None:
            budget = min(budget, limits.max_nodes - spent)
        quickest = None
        if budget > 0:
            search = searches()
            before = search.nodes
            quickest = quickest_win(search, after, Limits(limits.should_stop, budget))
            spent += search.nodes - before
        if quickest is not None:
            held[move] = quickest[1] + 1
        elif bound is not None:
            held[move] = bound
        else:
            return None  # not proven the other side's win in time
    return held


@cache
def holds_table() -> Entries:
    """The table of holds (``holds_data.py``), by a position's key; read
    when a game first needs it, not by every process that imports the
    opponent (about 1 MB, and 25 ms where Python may not keep its
    compiled modules)."""
    from engine.solver.holds_data import HOLDS

    return entries(HOLDS)


__all__ = [
    "EDGE_PROOF",
    "EDGE_PROOFS",
    "at_edge",
    "holds_of",
    "holds_table",
    "longest",
    "longest_hold",
]
