"""The losing side at the edge of Pop Out's opening table (engine/solver/holdout.py)
and its table of holds (bench/popout_holds.py): node budgets, so every run
is the same.

After ``2 1 4 5 4`` Yellow has lost. Each move's reply solved by tests of
distance: 1 and 5 hold out 16 plies, 3 and 4 14, the others 12 or 10;
2's reply is not solved within 50 M positions, and its entry in the
opening table says Red wins within 23 (a bound): the table of holds has 2,
24. Full strength's judgement played 4 before there was a table.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

from bench.popout_holds import prove_holds, walk
from engine import Game, Move, new_game, rules_named
from engine.rules import Rules
from engine.solver.fastsearch import FastSearch
from engine.solver.holdout import (
    EDGE_PROOF,
    EDGE_PROOFS,
    holds_of,
    holds_table,
    longest,
    longest_hold,
)
from engine.solver.limits import Limits
from engine.solver.opponent import Opponent
from engine.solver.outcome import WON

RULES = rules_named("popout")
LOST_AT_THE_EDGE = "2 1 4 5 4"
# Yellow's 6 after 3 3 4 leaves Red a win the search proves in a move, so
# the opening table has no entry there and its walk does not go on: after
# Red's 4 Yellow is lost at the table's edge (its 2 leads to an entry) in a
# position the table of holds lacks
OFF_THE_WALK = "3 3 4 6 4"


def game_of(moves: str, rules: Rules = RULES) -> Game:
    game = new_game(rules)
    for move in moves.split():
        game.play(move)
    return game


def test_the_move_that_holds_out_longest_is_played() -> None:
    choice = Opponent(RULES).choose(game_of(LOST_AT_THE_EDGE), Limits(max_nodes=1_000_000))
    assert choice.move == Move.drop(2)
    assert choice.scores[choice.move] <= -WON


def test_the_table_of_holds_answers_at_once() -> None:
    search = FastSearch(RULES)
    found = longest_hold(search, game_of(LOST_AT_THE_EDGE), Limits(max_nodes=1))
    assert found == (Move.drop(2), 24)  # the opening table's entry: Red wins within 23
    assert search.nodes == 0


def test_the_table_of_holds_is_what_its_builder_makes() -> None:
    proof, other = 50_000_000, 5_000_000
    tasks = walk(proof, other)
    assert len({line for line, _cap in tasks}) == len(tasks) > 5_000
    assert [line for line, cap in tasks if cap == proof][:6] == [
        "1",
        "2",
        "3",
        "4",
        "1 1 4",
        "1 2 4",
    ]
    # the first plies' proofs take 15-20 s each: a dozen of the seventh ply's
    later = [line for line, cap in tasks if cap == proof and len(line.split()) >= 7][:12]
    for line in later:
        _line, _cap, found, _nodes, _took = prove_holds((line, proof, 1 << 20))
        assert found is not None, line
        position, move, plies = found
        assert holds_table()[position] == (move, plies), line


def test_after_a_winning_move_the_table_does_not_have_the_holds_are_there_too() -> None:
    # Red's 2 is the opening table's after 1 1 4 5; 4 wins too, and Yellow's
    # 2 holds out longest, where the proofs of its other moves take 15 M
    # positions in all (2's own, over 20 M, does not finish: its entry's
    # bound stands)
    search = FastSearch(RULES)
    assert longest_hold(search, game_of("1 1 4 5 4"), Limits(max_nodes=1)) == (Move.drop(2), 22)
    assert search.nodes == 0


def test_off_the_walk_each_move_is_held_by_an_entry_or_a_proof() -> None:
    # Red wins in 13 after 2 (its entry in the opening table says within
    # 19), in 11 after 1 and 5, and in 3 after the others
    game = game_of(OFF_THE_WALK)
    held = holds_of(lambda: FastSearch(RULES), game, Limits(), 8_000_000, 20_000_000)
    assert held is not None and longest(held) == (Move.drop(2), 20)
    assert held[Move.drop(1)] == held[Move.drop(5)] == 12
    exact = holds_of(lambda: FastSearch(RULES), game, Limits(), 8_000_000, 20_000_000, True)
    assert exact is not None and exact == {**held, Move.drop(2): 14}


def test_proofs_too_long_for_the_budget_leave_the_move_to_the_search() -> None:
    # the proof after 1 takes about a million positions, past EDGE_PROOF:
    # full strength searches, and its tests of distance find 2 all the same
    search = FastSearch(RULES)
    assert longest_hold(search, game_of(OFF_THE_WALK), Limits(max_nodes=1_000_000)) is None
    assert search.nodes <= EDGE_PROOFS + EDGE_PROOF // 10  # a test stops at its next poll
    choice = Opponent(RULES).choose(game_of(OFF_THE_WALK), Limits(max_nodes=4_000_000))
    assert choice.move == Move.drop(2)


def test_a_position_away_from_the_table_costs_nothing() -> None:
    for moves in ("", "2 1 4 5", "2 1 4 5 4 4 5 2 7 7 6 4 6"):
        search = FastSearch(RULES)
        assert longest_hold(search, game_of(moves), Limits()) is None
        assert search.nodes == 0


def test_a_position_that_is_not_lost_is_left_to_the_search() -> None:
    # after 1, Yellow's 4 wins (the table holds Yellow's wins from there on)
    assert longest_hold(FastSearch(RULES), game_of("1"), Limits()) is None


def test_only_under_the_rules_the_table_was_proven_under() -> None:
    rules = dataclasses.replace(RULES, repetition=3)
    assert longest_hold(FastSearch(rules), game_of(LOST_AT_THE_EDGE, rules), Limits()) is None


def test_the_other_games_with_pops_do_not_load_the_table_of_holds() -> None:
    # a process of its own: this one may have loaded it already
    program = (
        "import sys\n"
        "from engine import new_game\n"
        "from engine.solver.fastsearch import FastSearch\n"
        "from engine.solver.holdout import longest_hold\n"
        "from engine.solver.limits import Limits\n"
        "for rules in ('pop10', 'five+popout'):\n"
        "    game = new_game(rules)\n"
        "    assert longest_hold(FastSearch(game.rules), game, Limits()) is None\n"
        "print('engine.solver.holds_data' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "False\n"


def test_red_holds_out_too_where_the_opening_is_yellows_win() -> None:
    # after 1 4 the table holds Yellow's wins from each of Red's moves
    search = FastSearch(RULES)
    found = longest_hold(search, game_of("1 4"), Limits())
    assert found is not None and found[1] > 40
    assert search.nodes == 0  # every move leads to an entry: nothing to prove
