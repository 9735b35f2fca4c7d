"""The computer opponent: levels, seeds, the general search, the book."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine import Colour, Game, new_game, rules_named
from engine.solver.book import Book, BookError, canonical
from engine.solver.bookbuild import build
from engine.solver.classic import ClassicSolver, Position
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


def test_the_book_answers_first() -> None:
    empty = Position.empty(7, 6)
    book = Book.from_entries(7, 6, 1, {empty.key(): (1, 4)})
    choice = Opponent(rules_named("classic"), book=book).choose(new_game("classic"))
    assert (str(choice.move), choice.source, choice.scores) == ("4", "book", {choice.move: 1})


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
    after = game.copy()
    after.play(result.move)
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
    after = game.copy()
    after.play(result.move)
    assert after.scores[Colour.RED] == 1  # it pops a disc of its own line


def test_a_node_budget_makes_the_search_deterministic() -> None:
    game = play("popout", "4 3 5")
    runs = {str(GameSearch(game.rules).search(game, Limits(max_nodes=3000)).move) for _ in range(3)}
    assert len(runs) == 1


def test_an_ended_game_has_no_move() -> None:
    game = play("classic", "1 2 1 2 1 2 1")
    with pytest.raises(ValueError, match="over"):
        Opponent(game.rules).choose(game)


# -- the book ------------------------------------------------------------------


def test_book_lookup_covers_the_mirror() -> None:
    after_two = Position.from_columns(7, 6, [2])
    key, mirrored = canonical(after_two)
    book = Book.from_entries(7, 6, 2, {key: (-2, 3 if not mirrored else 5)})
    assert book.lookup(after_two) == (3, -2)
    assert book.lookup(after_two.mirrored()) == (5, -2)
    assert book.lookup(Position.from_columns(7, 6, [1])) is None
    assert book.lookup(Position.empty(5, 4)) is None


def test_a_broken_book_file_is_refused() -> None:
    data = Book.from_entries(7, 6, 1, {0: (1, 4)}).to_bytes()
    with pytest.raises(BookError, match="size differs"):
        Book.from_bytes(data[:-1])
    with pytest.raises(BookError, match="not a popref book"):
        Book.from_bytes(b"X" * len(data))


def test_book_building_is_reproducible_and_resumes() -> None:
    whole: dict[int, tuple[int, int]] = {}
    build(ClassicSolver(5, 4, core="python"), 5, 4, 5, whole, lambda *entry: None)
    first = Book.from_entries(5, 4, 5, whole).to_bytes()
    partial: dict[int, tuple[int, int]] = {}
    build(ClassicSolver(5, 4, core="python"), 5, 4, 3, partial, lambda *entry: None)
    assert len(partial) < len(whole)
    build(ClassicSolver(5, 4, core="compiled", slots=100_003), 5, 4, 5, partial, lambda *e: None)
    assert Book.from_entries(5, 4, 5, partial).to_bytes() == first


def test_every_book_move_keeps_the_score() -> None:
    solved: dict[int, tuple[int, int]] = {}
    solver = ClassicSolver(5, 4, core="compiled", slots=100_003)
    build(solver, 5, 4, 4, solved, lambda *entry: None)
    book = Book.from_entries(5, 4, 4, solved)
    for position in [Position.empty(5, 4), *(Position.from_columns(5, 4, [c]) for c in (1, 2))]:
        found = book.lookup(position)
        assert found is not None
        column, score = found
        assert solver.move_scores(position)[column] == score == solver.solve(position)


def test_the_packaged_book_is_valid_if_present() -> None:
    path = Path(__file__).parents[1] / "engine" / "solver" / "book-7x6.bin"
    if not path.exists():
        pytest.skip("no book built yet")
    book = Book.from_bytes(path.read_bytes())
    assert (book.width, book.height) == (7, 6) and len(book) > 0
    assert book.lookup(Position.empty(7, 6)) == (4, 1)  # the known value of Connect Four


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
    solver.best_move_for_outcome(position)
    outcome_nodes = solver.nodes
    short = Opponent(game.rules, book=False).choose(game, Limits(max_nodes=outcome_nodes + 1))
    whole = Opponent(game.rules, book=False).choose(game, Limits(max_nodes=10**9))
    scores = solver.move_scores(position)
    assert (short.source, short.exact, short.scores) == ("outcome", False, {short.move: -1})
    assert scores[short.move.column] < 0  # lost either way, as the position is
    assert whole.source == "solver" and scores[whole.move.column] == max(scores.values())
