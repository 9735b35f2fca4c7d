"""Exact distances to the end (engine/solver/distance.py), checked against
the whole solve of small boards (tests/test_outcome.py's, taken back from
the ends), on tables that earlier proofs filled, as in a game."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, MoveKind, new_game, parse_moves
from engine.solver.distance import quickest_win, slowest_losses
from engine.solver.fastsearch import FastSearch, state_of
from engine.solver.limits import Limits
from engine.solver.opponent import Opponent
from engine.solver.outcome import prove
from tests.test_holdout import game_of
from tests.test_outcome import BOARDS, CORES, LOST, WON_, plies_of_move, seeded_game, solved_whole

RULES = BOARDS["4x4 lines of 3"]
# Pop Out 7x6, Yellow to move and lost: 2 and 3 hold out 14 plies, p4 4
LOST_AT_15 = "7 6 4 4 4 6 4 5 4 4 3 5 p4 5 5"


def warmed(game: Game, core: str) -> FastSearch:
    """A search whose table holds the proofs of ``game`` and of every
    position after one move: bounds from lines longer than the quickest."""
    search = FastSearch(RULES, core=core, slots=1 << 14)  # type: ignore[arg-type]
    for move in game.legal_moves():
        after = game.after(move)
        if after.result is None:
            prove(search, after)
    return search


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=80, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 16))
def test_distances_agree_with_the_whole_solve(core: str, seed: int, plies: int) -> None:
    game = seeded_game(RULES, seed, plies)
    # a move back to where the game has been is judged a draw by the
    # searches, and not by the whole solve: a game of drops has no such past
    if any(move.kind is MoveKind.POP for move in game.moves):
        return
    values, plies_left = solved_whole(RULES)
    state = state_of(game)
    search = warmed(game, core)
    found = prove(search, game)
    if values[state] == WON_:
        quickest = quickest_win(search, game)
        assert quickest is not None
        move, plies_to_win = quickest
        assert plies_to_win == plies_left[state]
        assert plies_of_move(game, move, plies_left) == plies_to_win
    elif values[state] == LOST:
        slowest = slowest_losses(search, game, lost=found.lost)
        held = {move: plies_of_move(game, move, plies_left) for move in game.legal_moves()}
        longest = max(held.values())
        assert slowest.exact
        assert all(held[move] == longest for move in slowest.moves)
        if len(slowest.moves) > 1:
            assert slowest.plies == longest
            assert len(slowest.moves) == sum(plies == longest for plies in held.values())
        else:
            assert slowest.plies <= longest
    else:
        assert quickest_win(search, game) is None


def test_a_position_that_is_not_won_has_no_quickest_win() -> None:
    game = game_of("2 3 3", RULES)
    assert solved_whole(RULES)[0][state_of(game)] != WON_
    assert quickest_win(warmed(game, CORES[-1]), game) is None


def test_a_stopped_test_keeps_the_moves_not_yet_caught() -> None:
    game = game_of(LOST_AT_15)
    search = FastSearch(game.rules, slots=1 << 16)
    slowest = slowest_losses(search, game, Limits(max_nodes=50_000))
    # p4 loses in 4 plies, p6 in 6, 4 in 8: caught before 50,000 positions,
    # in the test of 8 plies, which stopped before the others were asked
    assert not slowest.exact and slowest.plies == 7
    assert {str(move) for move in slowest.moves} == {"3", "5", "p5", "2", "6", "1", "7"}


def test_full_strength_holds_out_longest_on_a_table_its_earlier_moves_filled() -> None:
    # Pop Out against Four the Win! at 1 s a move: on its own table, filled
    # by its earlier moves' searches, full strength played p4 here (lost in
    # 4 plies) where 2 and 3 hold out 14: every move's loss was proven, each
    # by a bound from a longer line than the quickest
    game = new_game("popout")
    opponent = Opponent(game.rules)
    for ply, move in enumerate(parse_moves(LOST_AT_15)):
        if ply >= 3 and ply % 2:  # Yellow's moves, as in the match
            opponent.choose(game, Limits(max_nodes=2_000_000))
        game.play(move)
    choice = opponent.choose(game, Limits(max_nodes=2_000_000))
    after = game.after(choice.move)
    fresh = FastSearch(game.rules, slots=1 << 20)
    quickest = quickest_win(fresh, after, Limits(max_nodes=20_000_000))
    assert quickest is not None and quickest[1] + 1 == 14, (choice.move, quickest)
