"""The computer opponent: levels, seeds, the general search, the book."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from engine import Colour, Game, Move, new_game, rules_named
from engine.solver.classic import ClassicSolver
from engine.solver.limits import Limits
from engine.solver.opponent import MAX_LEVEL, Opponent, classic_position
from engine.solver.search import WIN, GameSearch


def play(name: str, moves: str, size: tuple[int, int] | None = None) -> Game:
    game = new_game(name, size)
    for move in moves.split():
        game.play(move)
    return game


# -- levels ------------------------------------------------------------------


@pytest.mark.parametrize("level", range(1, MAX_LEVEL))
def test_a_level_and_seed_always_choose_the_same(level: int) -> None:
    game = play("classic", "4 3 4 5 2")
    first = [str(Opponent(game.rules, level, seed).choose(game).move) for seed in range(5)]
    again = [str(Opponent(game.rules, level, seed).choose(game).move) for seed in range(5)]
    assert first == again


def test_the_lowest_level_varies_with_the_seed_but_takes_a_win() -> None:
    game = play("classic", "4 3 4 5 2")
    choices = Counter(str(Opponent(game.rules, 1, seed).choose(game).move) for seed in range(40))
    assert len(choices) >= 4  # human-like variety, not one fixed line
    winning = play("classic", "4 5 4 5 4 5")
    assert all(str(Opponent(winning.rules, 1, s).choose(winning).move) == "4" for s in range(20))


def test_low_levels_miss_blocks_that_middle_levels_make() -> None:
    game = play("classic", "4 5 4 5 4")  # Red threatens 4 in column 4
    low = Counter(str(Opponent(game.rules, 1, seed).choose(game).move) for seed in range(40))
    assert low["4"] < 40
    assert all(str(Opponent(game.rules, 5, s).choose(game).move) == "4" for s in range(20))


def test_levels_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="levels are 1 to 10"):
        Opponent(rules_named("classic"), level=0)


def test_the_level_range_is_stated_once() -> None:
    # the configuration, the computer's seat, the commands and the page's
    # API import the engine's range; a second statement would drift
    root = Path(__file__).resolve().parent.parent
    stated = []
    for folder in ("engine", "controller", "hardware", "bench"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                targets = node.targets if isinstance(node, ast.Assign) else []
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in ("MIN_LEVEL", "MAX_LEVEL"):
                        stated.append(f"{path.relative_to(root)}: {target.id}")
    assert sorted(stated) == [
        "engine/solver/opponent.py: MAX_LEVEL",
        "engine/solver/opponent.py: MIN_LEVEL",
    ]


def test_full_strength_plays_the_exact_best_move_in_classic() -> None:
    game = play("classic", "2 2 3 5 4 1 7 1 7 7 6 7 6 3")  # a test-set middle position
    choice = Opponent(game.rules, book=False).choose(game)
    solver = ClassicSolver(slots=1_000_003)
    position = classic_position(game)
    assert choice.source == "solver" and choice.exact
    assert solver.move_scores(position)[choice.move.column] == solver.solve(position)


def test_full_strength_falls_back_when_stopped() -> None:
    game = new_game("classic")
    choice = Opponent(game.rules, book=False).choose(game, Limits(should_stop=lambda: True))
    assert choice.source == "search" and game.is_legal(choice.move)


# -- the general search ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "moves", "best"),
    [
        ("popout", "1 2 1 2 1 2", "1"),  # drop the fourth
        ("five", "3 3 4 4 5 5 6 6", "7"),  # 2 or 7; 7 is nearer the centre
        ("five+popout", "4 4 5 5 6 6 7 7", "3"),
    ],
)
def test_the_search_takes_an_immediate_win(name: str, moves: str, best: str) -> None:
    game = play(name, moves)
    result = GameSearch(game.rules).search(game, Limits(max_nodes=5000))
    assert result.scores[result.move] == WIN - 1
    after = game.after(result.move)
    assert after.result is Colour.RED


def test_the_search_blocks_in_pop_out() -> None:
    game = play("popout", "4 5 4 5 4")
    result = GameSearch(game.rules).search(game, Limits(max_nodes=20_000))
    assert str(result.move) in {"4", "p4"}  # a pop of Red's bottom disc also breaks it


def test_the_search_solves_small_classic_like_the_exact_solver() -> None:
    rules = rules_named("classic", (4, 4))
    solver = ClassicSolver(4, 4, core="python")
    for moves in ["1 2", "2 3 2", "1 1 2 2", "3 2 3"]:
        game = play("classic", moves, (4, 4))
        result = GameSearch(rules).search(game, max_depth=40, solve=True)
        exact = solver.solve(classic_position(game))
        assert result.exact
        value = result.scores[result.move]
        assert (value > 0) == (exact > 0) and (value < 0) == (exact < 0), moves


def test_pop10_search_scores_points() -> None:
    full = ["RYRYRYR", "YRYRYRY", "RYRYRYR", "RRRRYYY", "YYYRRRR", "RRRRYYY"]
    from engine import game_from_position

    game = game_from_position("pop10", full, "red")
    result = GameSearch(game.rules).search(game, Limits(max_nodes=3000))
    after = game.after(result.move)
    assert after.scores[Colour.RED] == 1  # it pops a disc of its own line


def test_a_node_budget_makes_the_search_deterministic() -> None:
    game = play("popout", "4 3 5")
    runs = {str(GameSearch(game.rules).search(game, Limits(max_nodes=3000)).move) for _ in range(3)}
    assert len(runs) == 1


def test_an_ended_game_has_no_move() -> None:
    game = play("classic", "1 2 1 2 1 2 1")
    with pytest.raises(ValueError, match="over"):
        Opponent(game.rules).choose(game)


def test_a_level_chooses_the_same_whatever_it_was_asked_before() -> None:
    game = play("popout", "4 3 4")
    fresh = str(Opponent(game.rules, 6, seed=2).choose(game).move)
    used = Opponent(game.rules, 6, seed=2)
    for moves in ["1", "1 2 3", "7 7"]:
        used.choose(play("popout", moves))
    assert str(used.choose(game).move) == fresh


def test_node_budgets_count_from_each_search() -> None:
    game = play("five", "4 5")
    search = GameSearch(game.rules)
    first = search.search(game, Limits(max_nodes=3000))
    second = search.search(game, Limits(max_nodes=3000))
    assert second.depth >= first.depth > 1


def test_short_of_time_full_strength_keeps_the_outcome() -> None:
    # a node budget that lets the outcome search finish but not the exact one
    game = play("classic", " ".join("32751571231557"))
    solver = ClassicSolver()
    position = classic_position(game)
    solver.outcome_move(position)
    outcome_nodes = solver.nodes
    short = Opponent(game.rules, book=False).choose(game, Limits(max_nodes=outcome_nodes + 1))
    whole = Opponent(game.rules, book=False).choose(game, Limits(max_nodes=10**9))
    scores = solver.move_scores(position)
    assert (short.source, short.exact, short.scores) == ("outcome", False, {short.move: -1})
    assert scores[short.move.column] < 0  # lost either way, as the position is
    assert whole.source == "solver" and scores[whole.move.column] == max(scores.values())


def test_a_drawn_position_needs_only_the_outcome_search() -> None:
    game = play("classic", " ".join("2737772244262123677516643354"))  # a test-set draw
    solver = ClassicSolver()
    position = classic_position(game)
    solver.outcome_move(position)
    opponent = Opponent(game.rules, book=False)
    choice = opponent.choose(game)
    assert opponent.solver is not None and opponent.solver.nodes == solver.nodes  # no more
    scores = solver.move_scores(position)
    assert (choice.source, choice.exact, choice.scores) == ("solver", True, {choice.move: 0})
    assert scores[choice.move.column] == 0 == max(scores.values())


def test_pondering_leaves_the_next_move_cheaper() -> None:
    game = play("classic", "4 7 2 6 1 2 1 3 4 7 2 4")  # past the book, Red to move
    reply = play("classic", "4 7 2 6 1 2 1 3 4 7 2 4 5")  # after Red's answer
    cold = Opponent(game.rules, level=10)
    cold.choose(reply, Limits(max_nodes=10**9))
    warm = Opponent(game.rules, level=10)
    warm.ponder(game, Limits(max_nodes=10**9))  # on the time of Red (a person)
    assert warm.solver is not None and cold.solver is not None
    before = warm.solver.nodes
    assert warm.choose(reply, Limits(max_nodes=10**9)).move == cold.choose(reply).move
    assert warm.solver.nodes == before  # pondering proved it: kept, not searched again


def test_a_studied_position_gets_a_proven_hint_at_any_budget() -> None:
    # Begin-Hard, a win: 20 M positions to solve (without the book, which has
    # held it since ply 6 was begun)
    game = play("classic", "5 3 7 4 3 7")
    cold = Opponent(game.rules, level=10, book=False)
    assert not cold.choose(game, Limits(max_nodes=200_000)).proven
    warm = Opponent(game.rules, level=10, book=False)
    warm.study(game, Limits(max_nodes=10**9))  # on the time of the person to move
    assert warm.solver is not None
    before = warm.solver.nodes
    hint = warm.choose(game, Limits(max_nodes=1))
    assert (hint.move, hint.source, hint.exact) == (Move.drop(3), "solver", True)
    assert warm.solver.nodes == before


def test_a_proven_move_is_not_thrown_away_for_a_later_guess() -> None:
    game = play("classic", "5 3 7 4 3 7")
    opponent = Opponent(game.rules, level=10, book=False)  # the book holds it (ply 6)
    proven = opponent.choose(game, Limits(max_nodes=10**9))
    assert proven.exact and proven.source == "solver"
    again = opponent.choose(game, Limits(should_stop=lambda: True))  # no time at all
    assert again == proven


def test_lower_levels_and_finished_games_do_not_ponder() -> None:
    game = play("classic", "4 7 2 6 1 2 1 3 4 7 2 4")
    low = Opponent(game.rules, level=9)
    low.ponder(game, Limits(max_nodes=10**9))
    assert low.search.nodes == 0
    over = play("classic", "4 5 4 5 4 5 4")
    full = Opponent(over.rules, level=10)
    full.ponder(over, Limits())
    assert full.solver is not None and full.solver.nodes == 0


def test_no_pondering_where_the_book_answers_every_reply() -> None:
    game = play("classic", "4")  # the computer plays Red: the book has its next move
    full = Opponent(game.rules, level=10)
    full.ponder(game, Limits())
    assert full.solver is not None and full.solver.nodes == 0


@pytest.mark.parametrize("moves", ["4", "1 4"])  # the computer Red, then Yellow after 1 4
def test_no_pondering_where_the_pop_out_table_answers_every_reply(moves: str) -> None:
    game = play("popout", moves)
    full = Opponent(game.rules, level=10)
    full.ponder(game, Limits(max_nodes=10**9))
    assert full.fast is not None and full.fast.nodes == 0
