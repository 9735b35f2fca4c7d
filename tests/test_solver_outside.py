"""Full strength in Classic outside the book when the exact solve does not finish.

Each finished outcome test is kept (a move proven lost is never played, one
proven to keep a draw comes first), the search looks for a safe move before
a win, and the fast search chooses among the rest (issue 24). Node budgets
make every case deterministic; both cores answer.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Move, new_game
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED, CoreName
from engine.solver.limits import Limits, SearchStopped
from engine.solver.opponent import Opponent, classic_position
from engine.solver.proofs import Proofs

CORES: list[CoreName] = ["python", "compiled"] if COMPILED else ["python"]
# test-set draws (Test_L2_R2, Test_L1_R3) where one move alone holds the draw;
# before issue 24 full strength played 5 and 4 there at every budget up to 100,000
# positions (the first outcome test, which proves the safe move, needs 167,000 and 231,000)
ONE_HOLDS = {"274552224131661": 4, "6143156275532": 3}


def game_of(digits: str) -> Game:
    game = new_game("classic")
    for digit in digits:
        game.play(digit)
    return game


def column_outcomes(digits: str) -> dict[int, int]:
    """Every legal column's outcome for the mover, from the unlimited solver."""
    solver = ClassicSolver(slots=1_000_003)
    position = classic_position(game_of(digits))
    outcomes = {}
    for column in position.centre_first:
        if position.can_play(column):
            won = position.wins_with(column)
            outcomes[column] = 1 if won else -solver.outcome(position.play(column))
    return outcomes


@pytest.mark.parametrize("digits", sorted(ONE_HOLDS))
@pytest.mark.parametrize(
    ("core", "nodes"), [(core, 100_000) for core in CORES] + [("compiled", 20_000)] * COMPILED
)
def test_the_one_move_that_holds_a_draw_is_played_at_budgets_that_used_to_fail(
    core: CoreName, digits: str, nodes: int
) -> None:
    opponent = Opponent(game_of(digits).rules, core=core)
    choice = opponent.choose(game_of(digits), Limits(max_nodes=nodes))
    assert choice.source == "search" and not choice.exact  # the outcome was not proven
    assert choice.move == Move.drop(ONE_HOLDS[digits])


@pytest.mark.skipif(not COMPILED, reason="budgets of a quarter second need the compiled cores")
@settings(max_examples=8, deadline=None)
@given(nodes=st.integers(240_000, 1_500_000))
def test_any_budget_past_the_first_test_keeps_the_draw_where_one_move_holds_it(nodes: int) -> None:
    # the safe move is proven within the solver's first share: from then on it
    # is played, whatever else the budget allows
    digits = "274552224131661"
    choice = Opponent(game_of(digits).rules).choose(game_of(digits), Limits(max_nodes=nodes))
    assert choice.move == Move.drop(ONE_HOLDS[digits])


@pytest.mark.parametrize("core", CORES)
def test_a_stopped_outcome_search_keeps_what_it_proved(core: CoreName) -> None:
    digits = "274552224131661"
    position = classic_position(game_of(digits))
    solver = ClassicSolver(core=core)
    proofs = Proofs()
    columns = list(position.centre_first)
    # the safe move is searched first: stop as soon as it is proven
    with pytest.raises(SearchStopped):
        solver.outcome_move(position, lambda: bool(proofs.safe(columns)), proofs)
    assert proofs.safe(columns) == [ONE_HOLDS[digits]]
    outcomes = column_outcomes(digits)
    for column in columns:  # every bound kept is true
        assert proofs.at_least(column) <= outcomes[column] <= proofs.at_most(column)
    # resumed with those proofs, the search answers as a fresh one
    assert solver.outcome_move(position, None, proofs) == (ONE_HOLDS[digits], 0)
    assert ClassicSolver(core=core).outcome_move(position) == (ONE_HOLDS[digits], 0)


def unproven(digits: str, proofs: Proofs) -> Move:
    """The move the fast search's choice and ``proofs`` give together."""
    game = game_of(digits)
    opponent = Opponent(game.rules, core="python")
    assert opponent.fallback is not None
    found = opponent.fallback.search(game, Limits(max_nodes=2000))
    return opponent._unproven(classic_position(game), proofs, found).move


# Begin-Hard positions (Test_L1_R3) whose outcome 2 M positions leave unproven,
# with the moves that keep it (every move solved without limits, offline); the
# fast search's best move gave each away at every budget up to 5 M positions
KEEPERS = {
    "646722164": {4},  # a draw only 4 holds
    "623774": {4, 6},
    "1112444": {2, 4},
    "56117276": {6, 7},
    "1236741": {4},
}


@pytest.mark.skipif(not COMPILED, reason="budgets of a quarter second need the compiled cores")
@pytest.mark.parametrize("digits", sorted(KEEPERS))
@pytest.mark.parametrize("nodes", [500_000, 2_000_000])
def test_unproven_the_solver_s_own_first_move_keeps_the_result(digits: str, nodes: int) -> None:
    # without the book, which holds the ply-6 ones since every six-move opening is in it
    opponent = Opponent(game_of(digits).rules, book=False)
    choice = opponent.choose(game_of(digits), Limits(max_nodes=nodes))
    assert choice.source == "search" and not choice.proven  # the fallback chose
    assert choice.move.column in KEEPERS[digits]


def test_a_refuted_move_is_never_chosen() -> None:
    digits = "274552224131661"
    searched = unproven(digits, Proofs())
    proofs = Proofs()
    proofs.prove(searched.column, high=-1)
    assert unproven(digits, proofs) not in (searched, None)
    for column in range(1, 8):  # all but one refuted: that one
        if column != 2:
            proofs.prove(column, high=-1)
    assert unproven(digits, proofs) == Move.drop(2)


def test_a_proven_safe_move_comes_before_the_search_choice() -> None:
    digits = "274552224131661"
    searched = unproven(digits, Proofs())
    other = 1 if searched.column != 1 else 2
    proofs = Proofs()
    proofs.prove(other, low=0)
    assert unproven(digits, proofs) == Move.drop(other)


@pytest.mark.parametrize("core", CORES)
def test_a_proven_win_is_never_dropped(core: CoreName) -> None:
    digits = "17516442226766"  # Test_L1_R1: a win for the mover (8)
    position = classic_position(game_of(digits))
    counter = ClassicSolver(core=core)
    _column, outcome = counter.outcome_move(position)
    assert outcome == 1
    opponent = Opponent(game_of(digits).rules, book=False, core=core)
    # enough for the outcome (the exact score may not finish): the win is kept
    for nodes in (counter.nodes + 1, 2 * counter.nodes):
        choice = opponent.choose(game_of(digits), Limits(max_nodes=nodes))
        assert choice.source in ("outcome", "solver") and choice.scores[choice.move] > 0
        assert column_outcomes(digits)[choice.move.column] == 1


def test_a_position_outside_the_book_is_solved_without_limits() -> None:
    digits = "71324677554451437653"  # Test_L2_R2: a draw only 3 holds
    choice = Opponent(game_of(digits).rules, core="python").choose(game_of(digits))
    assert (choice.move, choice.source, choice.exact) == (Move.drop(3), "solver", True)
