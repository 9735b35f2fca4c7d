"""The exact outcome search (engine/solver/outcome.py) against every position.

Small Pop Out boards are solved whole here by retrograde analysis (every
reachable position, from the ends back: a position is won when a move wins
at once or leads to a lost one, lost when every move loses at once or leads
to a won one, and drawn when neither ever holds: infinite play wins for
nobody). The outcome search, run from seeded positions of those boards
through ``engine.Game`` (its own cycles, the table shared between
positions), must prove the same outcome, a move that keeps it, and no move
lost that is not.
"""

from __future__ import annotations

import dataclasses
import random
from collections import deque
from functools import cache
from importlib import import_module
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Move, new_game, rules_named
from engine.rules import Rules
from engine.solver import _pysearch
from engine.solver.fastsearch import COMPILED, FastSearch, state_of
from engine.solver.limits import Limits
from engine.solver.model import model_spec
from engine.solver.outcome import WON, Outcome, prove

WON_, DRAWN, LOST = 1, 0, -1
BOARDS = {  # solved whole in seconds (65 thousand positions), and a minute (half a million)
    "4x4 lines of 3": dataclasses.replace(rules_named("popout", (4, 4)), line=3),
    "4x4": rules_named("popout", (4, 4)),
}
CORES = ["python", *(["compiled"] if COMPILED else [])]
# the rules' moves, as the model plays them (tests/test_fastsearch.py holds
# them equal to engine.Game's); the compiled twin where there is one: faster
MODEL: Any = import_module("engine.solver._search") if COMPILED else _pysearch


def solved(rules: Rules) -> dict[_pysearch.State, int]:
    """Every reachable position's outcome for the player to move."""
    return solved_whole(rules)[0]


def plies_left(rules: Rules) -> dict[_pysearch.State, int]:
    """Every won or lost position's plies to the end with the best play of
    both sides (the winner's quickest, the loser's slowest)."""
    return solved_whole(rules)[1]


@cache
def solved_whole(rules: Rules) -> tuple[dict[_pysearch.State, int], dict[_pysearch.State, int]]:
    """Outcomes and plies left. Taken from the ends back in the order of
    their plies left (a queue): a position is won as soon as a lost child is
    known, and lost when its last child is known won, the slowest."""
    spec = model_spec(rules)
    start = state_of(new_game(rules))
    children: dict[_pysearch.State, list[_pysearch.State]] = {}
    value: dict[_pysearch.State, int] = {}
    frontier = [start]
    children[start] = []
    while frontier:  # every reachable position and its ongoing children
        state = frontier.pop()
        for move in MODEL.moves(spec, state):
            after, result = MODEL.play(spec, state, move)
            if result == state[2]:
                value[state] = WON_
            elif result == _pysearch.ONGOING:
                children[state].append(after)
                if after not in children:
                    children[after] = []
                    frontier.append(after)
            elif result != _pysearch.DRAW:  # a pop that completes only their line
                pass
            else:
                children[state].append(after)  # a draw at once: never lost through it
                value.setdefault(after, DRAWN)
    parents: dict[_pysearch.State, list[_pysearch.State]] = {s: [] for s in children}
    for state, after in children.items():
        for child in after:
            parents.setdefault(child, []).append(state)
    # a position is lost once every ongoing child is won for the mover there
    left = {s: len(c) for s, c in children.items()}
    queue = deque(s for s, v in value.items() if v == WON_)
    queue.extend(s for s, n in left.items() if n == 0 and s not in value)
    for s in queue:
        value.setdefault(s, LOST)
    plies = dict.fromkeys(queue, 1)  # a win at once; a loss at once (every move a pop for them)
    while queue:
        state = queue.popleft()
        for parent in parents.get(state, ()):
            if parent in value:
                continue
            if value[state] == LOST:
                value[parent] = WON_
                plies[parent] = plies[state] + 1
                queue.append(parent)
            else:
                left[parent] -= 1
                if left[parent] == 0:
                    value[parent] = LOST
                    plies[parent] = plies[state] + 1
                    queue.append(parent)
    return {s: value.get(s, DRAWN) for s in children}, plies


def seeded_game(rules: Rules, seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    game = new_game(rules)
    for _ in range(plies):
        if game.is_over():
            break
        game.play(rng.choice(list(game.legal_moves())))
    if game.is_over():
        game.undo()
    return game


def plies_of_move(game: Game, move: Move, plies: dict[_pysearch.State, int]) -> int:
    """The plies to the end after a move that loses, the best play of both sides."""
    after = game.after(move)
    return 1 if after.result is not None else 1 + plies[state_of(after)]


def outcome_of_move(game: Game, move: Move, values: dict[_pysearch.State, int]) -> int:
    """The outcome a move gives its player, from the solved positions."""
    after = game.after(move)
    if after.result is not None:
        return DRAWN if after.result == "draw" else WON_ if after.result is game.to_move else LOST
    return -values[state_of(after)]


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 16))
def test_outcome_search_agrees_with_the_whole_solve(core: str, seed: int, plies: int) -> None:
    check_position(BOARDS["4x4 lines of 3"], core, seed, plies)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 20))
def test_what_the_outcome_search_proves_of_pop_out_4x4_is_true(seed: int, plies: int) -> None:
    # real lines of four: the drawn positions would need the whole game's
    # circles searched (no horizon), so only what is proven is checked
    check_position(BOARDS["4x4"], CORES[-1], seed, plies, Limits(max_nodes=300_000))


def check_position(
    rules: Rules, core: str, seed: int, plies: int, limits: Limits | None = None
) -> None:
    """The outcome search proves the truth (all of it without ``limits``)."""
    values = solved(rules)
    game = seeded_game(rules, seed, plies)
    search = FastSearch(rules, core=core, slots=1 << 14)  # type: ignore[arg-type]
    found = prove(search, game, limits)
    truth = values[state_of(game)]
    for move in found.lost:
        assert outcome_of_move(game, move, values) == LOST
    if limits is not None and found.value is None:
        return
    assert found.value is not None, f"not proven: {found.describe()}"
    assert (found.value > 0) - (found.value < 0) == truth
    assert found.move is not None
    assert outcome_of_move(game, found.move, values) == truth
    assert abs(found.value) >= WON or found.value == 0


@pytest.mark.skipif(not COMPILED, reason="the compiled search core is not installed")
def test_the_tests_last_ply_is_played_not_searched() -> None:
    # Pop Out 7x6 from the start: the tests' last ply once cost a full node
    # a move, with a threat extension behind each (11 plies took 5.4 million
    # positions); the move that ends the game is all the edge of the window
    # asks for (13 plies in 2.1 million)
    game = new_game(rules_named("popout"))
    found = prove(FastSearch(game.rules), game, Limits(max_nodes=2_500_000))
    assert found.value is None and found.depth >= 13


@pytest.mark.skipif(not COMPILED, reason="the compiled search core is not installed")
def test_the_tests_try_the_moves_that_leave_most_threats_first() -> None:
    # ordered by the judgement, 15 plies from the start took 11.3 million
    # positions; by the threats each move leaves, 5.7 million
    game = new_game(rules_named("popout"))
    found = prove(FastSearch(game.rules), game, Limits(max_nodes=6_500_000))
    assert found.value is None and found.depth >= 16


@pytest.mark.parametrize("core", CORES)
def test_a_proven_win_does_not_go_back_where_the_game_has_been(core: str) -> None:
    # here 2 won in 5 by giving back the position after "3 1 2 3 3 3 p3 p1":
    # true, but two such wins can lead to each other's position for ever
    game, found = proof_after(BOARDS["4x4 lines of 3"], core, 184, "3 1 2 3 3 3 p3 p1 2 4 p2 p4")
    assert found.move is not None and found.value is not None and found.value >= WON
    after = game.after(found.move)
    assert after.position_key() not in game.past_positions()


@pytest.mark.parametrize("core", CORES)
def test_a_lost_position_is_played_to_its_slowest_loss(core: str) -> None:
    # every move here loses; by the bounds the tests leave on the moves they
    # catch, a move lost in 8 plies was played where 16 can be held
    game, found = proof_after(BOARDS["4x4"], core, 138, "2 4 4 3 2 p3 3 2 2")
    assert found.move is not None and found.value is not None and found.value <= -WON
    plies = plies_left(BOARDS["4x4"])
    assert plies_of_move(game, found.move, plies) == plies[state_of(game)] == 16


def proof_after(rules: Rules, core: str, seed: int, record: str) -> tuple[Game, Outcome]:
    """What the outcome search proves after a seeded game's moves (checked
    to be ``record``, so that a change of the random moves shows)."""
    game = seeded_game(rules, seed, len(record.split()))
    assert " ".join(str(move) for move in game.moves) == record
    return game, prove(FastSearch(rules, core=core, slots=1 << 14), game)  # type: ignore[arg-type]
