"""The solver's helper thread (controller/computer/helper.py): what it proves is
sound, a win it proves is played, it never outlives the search, and a node
budget leaves it out."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings

from controller.computer.helper import NAME, outcome_move_helped
from engine import new_game
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED
from engine.solver.limits import Limits, SearchStopped
from engine.solver.opponent import Opponent
from engine.solver.position import Position
from engine.solver.proofs import Proofs
from tests.smallboards import positions

# Test_L1_R3, won: the core's first child (4) only draws, and of the others 3
# alone wins (0.6 M positions, after 6's failed test, 0.7 M); the solver's own
# order reaches 3 after 3.1 M, more than a quarter second bought (issue 24)
FIRST_ONLY_DRAWS = "277215132"


def helper_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == NAME]


def outcome_of(solver: ClassicSolver, position: Position, column: int) -> int:
    """The mover's outcome after dropping into ``column``, solved in full."""
    if position.wins_with(column):
        return 1
    child = position.play(column)
    return 0 if child.moves == child.width * child.height else -solver.outcome(child)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(position=positions())
def test_the_helped_search_keeps_the_outcome_and_every_proof_holds(position: Position) -> None:
    solver, judge = ClassicSolver(5, 4, core="python"), ClassicSolver(5, 4, core="python")
    proofs = Proofs()
    column, outcome = outcome_move_helped(solver, position, None, proofs)
    assert outcome == judge.outcome(position)
    assert outcome_of(judge, position, column) == outcome
    for proven in set(proofs.low) | set(proofs.high):
        truth = outcome_of(judge, position, proven)
        assert proofs.at_least(proven) <= truth <= proofs.at_most(proven), proven
    assert not helper_threads()


def test_a_spent_budget_stops_both_threads() -> None:
    solver = ClassicSolver(7, 6, core="python")
    position = Position.from_columns(7, 6, [2, 1, 3, 1, 2, 3, 1])
    with pytest.raises(SearchStopped):
        outcome_move_helped(solver, position, lambda: True, Proofs())
    assert not helper_threads()


@pytest.mark.skipif(not COMPILED, reason="a solve of millions of positions needs the compiled core")
def test_a_win_the_helper_proves_is_the_answer() -> None:
    position = Position.from_columns(7, 6, [int(c) for c in FIRST_ONLY_DRAWS])

    def held_until_the_helper_ends() -> bool:
        # the solver's own thread waits at its first poll until the helper has
        # ended, which it does only on proving a win: only the helper can prove 3
        if threading.current_thread().name != NAME:
            for helper in helper_threads():
                helper.join(60.0)
        return False

    solver, proofs = ClassicSolver(7, 6, core="compiled"), Proofs()
    assert outcome_move_helped(solver, position, held_until_the_helper_ends, proofs) == (3, 1)
    assert proofs.at_least(3) == 1  # what the helper proved is the caller's too
    assert solver.nodes < 1_000_000  # the solver's own first test was cut short (1.4 M)
    assert not helper_threads()


@pytest.mark.skipif(not COMPILED, reason="a solve of millions of positions needs the compiled core")
def test_a_node_budget_leaves_the_helper_out() -> None:
    # the budget counts one thread's positions, so the choice is the same with or without
    game = new_game("classic")
    for digit in FIRST_ONLY_DRAWS:
        game.play(digit)
    budget = Limits(max_nodes=500_000)
    helped = Opponent(game.rules, outcome_move=outcome_move_helped).choose(game.copy(), budget)
    alone = Opponent(game.rules).choose(game.copy(), budget)
    assert (helped.move, helped.proven, helped.source) == (alone.move, alone.proven, alone.source)
