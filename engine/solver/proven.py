"""Full strength in the games with pops: the anytime search, held to what is proven.

:class:`ProvenPlay` runs the outcome search (:mod:`engine.solver.outcome`)
and the anytime search (:class:`~engine.solver.fastsearch.FastSearch`)
side by side, an iteration of each in turn (whichever has searched fewer
positions goes next), in the same table, and then:

- in Pop Out 7x6's first plies, the side that wins plays the opening
  table's proven win (:mod:`engine.solver.openings`) without searching,
  and the side that loses the move that holds out longest by the table
  and quick proofs (:mod:`engine.solver.holdout`);
- a proven win is played: the fastest proven, from this search, an
  earlier one or pondering (kept per position until a faster one is
  proven, so a win is never thrown away), unless it leads back to a
  position of the game's past (then this search's own win);
- a move proven lost is never chosen while another is not: the anytime
  search leaves them out of its next iterations;
- once every move is proven lost, of the moves that tests of distance
  (:mod:`engine.solver.distance`) find hold out longest in what is left of
  the budget, the outcome search's slowest, or the anytime search's
  choice where it is proven to lose no sooner;
- otherwise the anytime search's choice among the moves left.

Without the repetition rule a proven win holds whatever the game's past
(the outcome search ignores it); under the rule, nothing is kept.

>>> from engine import new_game
>>> game = new_game("popout")
>>> for move in "4 4 3 3 2 2".split():
...     game.play(move)
>>> from engine.solver.fastsearch import FastSearch
>>> play = ProvenPlay(FastSearch(game.rules, core="python", slots=1 << 12))
>>> found = play.choose(game, Limits(max_nodes=3000))
>>> str(found.move), found.scores[found.move], found.exact
('5', 99999, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.game import Game
from engine.move import Move, MoveKind
from engine.solver.distance import slowest_losses
from engine.solver.fastsearch import FastSearch, State, state_of
from engine.solver.holdout import longest_hold
from engine.solver.limits import Limits
from engine.solver.openings import opening_move, replies
from engine.solver.outcome import WON, Outcome, outcomes
from engine.solver.search import WIN, SearchResult

KEPT = 10_000  # proven wins kept (about 3 MB at most); a game meets far fewer positions
# the outcome search's share of the positions: one in OUTCOME_SHARE. Once a
# share of 8 (a half cost the anytime search two plies when the outcome
# search was slow); since its tests play their last ply without searching
# it and order by threats (ten times as deep for the time), half proves the
# wins that the anytime search's evaluation misses: against Four the Win!
# at 250 ms (bench/matches.py --peer, --opening 2, 10 games) as Red 4 won,
# 5 lost with 8 -> 9 won, none lost with 2
OUTCOME_SHARE = 2


@dataclass
class ProvenPlay:
    """Full strength for one game's rules over one fast search (its table)."""

    fast: FastSearch
    wins: dict[State, tuple[Move, int]] = field(default_factory=dict)

    def choose(self, game: Game, limits: Limits) -> SearchResult:
        """The move for ``game``: as the module says; ``exact`` when its
        score is proven (a win, a loss, or the anytime search's own)."""
        state = state_of(game)
        opening = opening_move(game.rules, state)
        if opening is not None:  # proven when the table was built: no search needed
            move, plies = opening
            return SearchResult(move, {move: WIN - plies}, 0, True, 0)
        before = self.fast.nodes
        hold = longest_hold(self.fast, game, limits)
        spent = self.fast.nodes - before
        if hold is not None:  # lost, and the table says how long each move holds out
            move, plies = hold
            return SearchResult(move, {move: -(WIN - plies)}, 0, True, spent)
        if limits.max_nodes is not None:  # the proofs that came to nothing count too
            limits = Limits(limits.should_stop, max(limits.max_nodes - spent, 1))
        before = self.fast.nodes
        outcome, result = self._both(game, limits)
        if limits.max_nodes is not None:  # what is left is the slowest loss's
            limits = Limits(limits.should_stop, limits.max_nodes - (self.fast.nodes - before))
        if outcome.value is not None and outcome.value >= WON:
            self.keep(state, outcome.move, outcome.value)
        if result.scores[result.move] >= WON and result.exact:
            self.keep(state, result.move, result.scores[result.move])
        kept = self.wins.get(state)
        if kept is not None and goes_back(game, kept[0]):
            # kept from an earlier visit: now it leads where the game has been,
            # and two such moves can go round for ever; this search's win cannot
            # (the outcome search judges the game's past a draw)
            kept = None
            if outcome.move is not None and outcome.value is not None and outcome.value >= WON:
                kept = (outcome.move, outcome.value)
        if kept is not None:
            move, value = kept
            return SearchResult(move, {**result.scores, move: value}, result.depth, True,
                                result.nodes)  # fmt: skip
        if outcome.move is not None and outcome.value is not None and outcome.value <= 0:
            # a proven draw or loss: the anytime search's choice only if it keeps it
            if outcome.value == 0 and result.move not in outcome.lost:
                return result
            if outcome.value < 0:
                return self._slowest(game, outcome, result, limits)
            scores = {**result.scores, outcome.move: outcome.value}
            return SearchResult(outcome.move, scores, result.depth, True, result.nodes)
        if result.move in outcome.lost:
            left = [m for m in result.scores if m not in outcome.lost]
            best = max(left, key=lambda m: result.scores[m])
            return SearchResult(best, result.scores, result.depth, False, result.nodes)
        return result

    def ponder(self, game: Game, limits: Limits) -> None:
        """Prove, on the other player's time (``game`` has them to move),
        what each of their replies leaves, a test at a time round the
        replies, and keep the wins found (none where a win is kept or the
        opening table has the move)."""
        waiting: list[tuple[Game, Iterator[Outcome]]] = []
        for after in replies(game):
            state = state_of(after)
            if state not in self.wins and opening_move(game.rules, state) is None:
                waiting.append((after, outcomes(self.fast, after, limits)))
        while waiting:
            for entry in list(waiting):
                after, tests = entry
                found = next(tests, None)
                if found is None or found.value is not None or limits.stopped(0):
                    waiting.remove(entry)
                if found is not None and found.value is not None and found.value >= WON:
                    assert found.move is not None
                    self.keep(state_of(after), found.move, found.value)
                if limits.stopped(0):
                    return

    def keep(self, state: State, move: Move | None, value: int) -> None:
        """Remember a proven win, unless a faster one is known."""
        if move is None or self.fast.spec.repetition:
            return
        known = self.wins.get(state)
        if known is None or value > known[1]:
            if len(self.wins) >= KEPT:
                self.wins.clear()
            self.wins[state] = (move, value)

    def _slowest(
        self, game: Game, outcome: Outcome, result: SearchResult, limits: Limits
    ) -> SearchResult:
        """Every move is proven lost: of the moves that hold out longest by
        tests of distance in what is left of ``limits``
        (:func:`~engine.solver.distance.slowest_losses`), :func:`slower_of`'s
        choice, else the anytime search's best. The outcome search's bounds
        alone are loose on a table that earlier moves' searches filled:
        against Four the Win! at 1 s a move, p4 was played, lost in 4 where
        2 held out 14 (docs/opponent.md, "Exact distances")."""
        chosen = slower_of(outcome, result)
        if limits.max_nodes is not None and limits.max_nodes <= 0:
            return chosen
        longest = slowest_losses(self.fast, game, limits, outcome.lost).moves
        if chosen.move in longest:
            return chosen
        move = max(longest, key=lambda m: result.scores.get(m, -WIN))  # the first of equals
        value = outcome.lost.get(move, chosen.scores[chosen.move])
        return SearchResult(move, {**result.scores, move: value}, result.depth, True, result.nodes)

    def _both(self, game: Game, limits: Limits) -> tuple[Outcome, SearchResult]:
        """The two searches, an iteration of each in turn, until the limits
        stop them or one of them has the answer (with ``max_nodes``, each
        has half)."""
        half = None if limits.max_nodes is None else max(limits.max_nodes // 2, 1)
        each = Limits(limits.should_stop, half)
        refuted: set[int] = set()
        proofs = outcomes(self.fast, game, each)
        deepening = self.fast.iterations(game, each, refuted=refuted)
        spent = [0, 0]  # positions: the outcome search's, the anytime search's

        def step(which: int, steps: Iterator[Any]) -> Any:
            before = self.fast.nodes
            found = next(steps, None)
            spent[which] = self.fast.nodes - before + spent[which] if found else -1
            return found

        outcome: Outcome = step(0, proofs)
        result: SearchResult = step(1, deepening)  # depth 1 always completes
        while outcome.value is None and not result.exact and max(spent) >= 0:
            if limits.stopped(0):
                break
            if spent[1] < 0 or 0 <= spent[0] * (OUTCOME_SHARE - 1) <= spent[1]:
                outcome = step(0, proofs) or outcome
                refuted.update(code(m) for m in outcome.lost)
            else:
                result = step(1, deepening) or result
        return outcome, result


def slower_of(outcome: Outcome, result: SearchResult) -> SearchResult:
    """The move to play when every move is proven lost: the outcome search's
    slowest, unless the anytime search's choice is proven to lose no sooner.

    A loss's bound says only how soon a move is proven to lose at the
    latest, so two moves whose bounds do not set them apart are told apart
    by the anytime search's judgement (threats, parity): on 224 lost
    positions of Pop Out 7x6 (bench/slowloss.py, 1 M positions a move) 180
    plies given up where the outcome search's move alone gave up 194
    (docs/opponent.md, "Which search breaks the tie").

    >>> from engine import Move
    >>> lost = {Move.drop(3): -(WIN - 12), Move.drop(4): -(WIN - 10)}
    >>> outcome = Outcome(Move.drop(4), -(WIN - 10), lost, 8)
    >>> scores = {Move.drop(3): -56, Move.drop(4): -59}
    >>> str(slower_of(outcome, SearchResult(Move.drop(3), scores, 6, False, 0)).move)
    '3'
    >>> lost[Move.drop(3)] = -(WIN - 6)
    >>> str(slower_of(outcome, SearchResult(Move.drop(3), scores, 6, False, 0)).move)
    '4'
    """
    assert outcome.move is not None and outcome.value is not None
    own = min(outcome.lost.get(result.move, -WIN), result.scores[result.move])
    move, value = (result.move, own) if own >= outcome.value else (outcome.move, outcome.value)
    return SearchResult(move, {**result.scores, move: value}, result.depth, True, result.nodes)


def goes_back(game: Game, move: Move) -> bool:
    """Whether ``move`` leads to a position ``game`` has met before."""
    return game.after(move).position_key() in game.past_positions()


def code(move: Move) -> int:
    """A move's code in the cores (column - 1, plus 32 for a pop)."""
    return move.column - 1 + (32 if move.kind is MoveKind.POP else 0)


__all__ = ["ProvenPlay"]
