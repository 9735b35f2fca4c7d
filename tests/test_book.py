"""The opening book: its file, its build, its coverage and its moves."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from engine import new_game, rules_named
from engine.solver.book import Book, BookError, BookMove, Entry, canonical, packaged_book
from engine.solver.bookbuild import Plan, Record, book_entries, build, discs, plies
from engine.solver.classic import COMPILED, ClassicSolver, CoreName, Position
from engine.solver.limits import Limits, SearchStopped
from engine.solver.opponent import Opponent, classic_position

needs_compiled = pytest.mark.skipif(not COMPILED, reason="the compiled solver core is missing")
SMALL = Plan(depth=3, exact=3, nodes=300, slots=100_003)  # 5x4: a frontier at once


def packaged() -> Book:
    book = packaged_book(7, 6)
    if book is None:
        pytest.skip("no book built yet")
    return book


def built(plan: Plan, core: CoreName = "auto", until: int | None = None) -> dict[int, Record]:
    records: dict[int, Record] = {}
    solver = ClassicSolver(5, 4, core=core, slots=100_003)
    if until is not None:
        plan = Plan(plan.depth, plan.exact, plan.nodes, plan.slots, until)
    build(solver, 5, 4, plan, records, lambda *solved: None)
    return records


# -- the file ----------------------------------------------------------------


def test_book_lookup_covers_the_mirror() -> None:
    after_two = Position.from_columns(7, 6, [2])
    key, mirrored = canonical(after_two)
    book = Book.from_entries(7, 6, 2, {key: Entry(-2, 3 if not mirrored else 5)})
    assert book.lookup(after_two) == BookMove(3, -2, True)
    assert book.lookup(after_two.mirrored()) == BookMove(5, -2, True)
    assert book.lookup(Position.from_columns(7, 6, [1])) is None
    assert book.lookup(Position.empty(5, 4)) is None


def test_an_outcome_only_entry_survives_the_file() -> None:
    after_one = Position.from_columns(7, 6, [4])
    book = Book.from_entries(7, 6, 2, {0: Entry(1, 4), after_one.key(): Entry(1, 7, False)})
    again = Book.from_bytes(book.to_bytes())
    assert again.lookup(after_one) == BookMove(7, 1, False)
    assert again.lookup(Position.empty(7, 6)) == BookMove(4, 1, True)
    assert again.entries() == book.entries()


def test_a_broken_book_file_is_refused() -> None:
    data = Book.from_entries(7, 6, 1, {0: Entry(1, 4)}).to_bytes()
    with pytest.raises(BookError, match="size differs"):
        Book.from_bytes(data[:-1])
    with pytest.raises(BookError, match="not a popref book"):
        Book.from_bytes(b"X" * len(data))


def test_a_key_tells_its_number_of_discs() -> None:
    position = Position.from_columns(7, 6, [4, 4, 4, 4, 4, 4, 3, 1, 7])
    assert discs(position.key(), 7, 6) == 9 == discs(position.mirrored().key(), 7, 6)


# -- the build ---------------------------------------------------------------


def test_the_build_is_reproducible_and_resumes() -> None:
    whole = built(SMALL)
    first = Book.from_entries(5, 4, 9, book_entries(SMALL, whole)).to_bytes()
    partial = built(SMALL, until=5)
    assert 0 < len(partial) < len(whole)
    build(ClassicSolver(5, 4, slots=100_003), 5, 4, SMALL, partial, lambda *solved: None)
    assert partial == whole
    assert Book.from_entries(5, 4, 9, book_entries(SMALL, partial)).to_bytes() == first


def test_the_cores_build_the_same_book_where_no_node_count_decides() -> None:
    plan = Plan(depth=6, exact=4, nodes=10**9, slots=100_003, until=6)
    python, compiled = built(plan, "python"), built(plan, "compiled")
    assert book_entries(plan, python) == book_entries(plan, compiled) and len(python) > 50


def test_the_frontier_leaves_out_what_the_solver_answers_within_the_budget() -> None:
    records = built(SMALL)
    held = book_entries(SMALL, records)
    assert len(held) < len(records)
    for key, record in records.items():
        deep = record.ply >= SMALL.depth
        assert (key in held) == (not deep or record.nodes > SMALL.nodes)
    # and a larger budget only ever holds fewer
    lenient = Plan(SMALL.depth, SMALL.exact, SMALL.nodes * 10, SMALL.slots)
    assert set(book_entries(lenient, built(lenient))) < set(held)


def test_every_built_move_keeps_the_value() -> None:
    records = built(SMALL)
    solver = ClassicSolver(5, 4, slots=100_003)
    positions = {p.key(): p for _ply, level in plies(5, 4, SMALL, records) for p in level}
    for key, record in records.items():
        position = positions[key]
        value = solver.solve(position)
        after = solver.move_scores(position)[record.column]
        if record.exact:
            assert record.score == value == after
        else:  # a win kept, maybe not the fastest
            assert record.score == 1 and value > 0 and after > 0
        assert record.exact == (record.ply < SMALL.exact or value <= 0)


# -- the packaged book -------------------------------------------------------


def meetable(book: Book, plan: Plan) -> Iterator[tuple[int, Position]]:
    """Every position the computer can meet in the book's complete plies."""
    records = _Known(
        {key: Record(*entry, discs(key, 7, 6), -1) for key, entry in book.entries().items()}
    )  # every position in the book leads further, as in the build
    with_depth = Plan(plan.depth, plan.exact, plan.nodes, plan.slots, book.depth)
    for ply, level in plies(7, 6, with_depth, records):
        for position in level:
            yield ply, position


class _Known(dict[int, Record]):
    """The book's records; a position outside it leads nowhere (as in the build)."""

    def __missing__(self, key: int) -> Record:
        return Record(0, 1, True, 99, 0)  # within the budget and past any depth: a leaf


def test_the_packaged_book_is_valid() -> None:
    book = packaged()
    assert (book.width, book.height) == (7, 6) and book.depth >= 7
    assert book.lookup(Position.empty(7, 6)) == BookMove(4, 1, True)  # Connect Four's value


def test_the_book_holds_every_position_the_computer_meets_early() -> None:
    book, plan = packaged(), Plan()
    seen = 0
    for ply, position in meetable(book, plan):
        if ply < plan.depth:
            assert book.lookup(position) is not None, (ply, position)
            seen += 1
    assert seen > 300


@needs_compiled
def test_beyond_its_depth_the_solver_answers_what_the_book_leaves_out() -> None:
    book, plan = packaged(), Plan()
    if book.depth <= plan.depth:
        pytest.skip("the book is not built past its full depth yet")
    outside = [p for ply, p in meetable(book, plan) if ply >= plan.depth and not book.lookup(p)]
    assert outside
    solver = ClassicSolver(7, 6, core="compiled", slots=plan.slots)
    stop = Limits(max_nodes=2 * plan.nodes)
    for position in outside[:: max(1, len(outside) // 12)]:
        solver.reset()  # as the book counted them: from a fresh table
        solver.nodes = 0
        solver.best_move_for_outcome(position, lambda: stop.stopped(solver.nodes))
        assert solver.nodes <= plan.nodes


@needs_compiled
def test_a_sample_of_packaged_book_moves_keeps_the_value() -> None:
    book = packaged()
    held = [(ply, p) for ply, p in meetable(book, Plan()) if book.lookup(p)]
    deepest = max(ply for ply, _p in held)  # the cheapest to check: the fewest discs to go
    deep = [p for ply, p in held if ply == deepest]
    solver = ClassicSolver(7, 6, core="compiled")
    for position in deep[:: max(1, len(deep) // 6)]:
        found = book.lookup(position)
        assert found is not None
        outcome = solver.outcome(position)
        child = position.play(found.column)
        kept = 1 if position.wins_with(found.column) else -solver.outcome(child)
        assert kept == outcome
        assert found.exact or (found.score == 1 == outcome)


@pytest.mark.slow
@needs_compiled
def test_exact_packaged_book_moves_keep_the_exact_score() -> None:
    """Two positions always; every sixtieth of plies 5-6 with POPREF_SLOW=1 (minutes)."""
    book = packaged()
    exact = [p for ply, p in meetable(book, Plan()) if 5 <= ply < 7 and book.lookup(p)]
    step = 60 if os.environ.get("POPREF_SLOW") == "1" else len(exact) // 2
    solver = ClassicSolver(7, 6, core="compiled")
    for position in exact[len(exact) - 1 :: -step]:
        found = book.lookup(position)
        assert found is not None and found.exact
        assert solver.move_scores(position)[found.column] == found.score


@pytest.mark.parametrize("first", [True, False])
def test_full_strength_plays_from_the_packaged_book(first: bool) -> None:
    book = packaged()
    game = new_game("classic")
    opponent = Opponent(game.rules)
    if not first:
        game.play("3")
    while len(game.moves) < 7 and not game.is_over():  # all before the book's depth
        found = book.lookup(classic_position(game))
        choice = opponent.choose(game, Limits(should_stop=lambda: True))
        assert choice.source == "book" and found is not None
        assert (choice.move.column, choice.exact) == (found.column, found.exact)
        game.play(choice.move)
        if not game.is_over():
            game.play(next(m for m in game.legal_moves() if m.column != choice.move.column))


def test_the_book_answers_first() -> None:
    empty = Position.empty(7, 6)
    book = Book.from_entries(7, 6, 1, {empty.key(): Entry(1, 4)})
    choice = Opponent(rules_named("classic"), book=book).choose(new_game("classic"))
    assert (str(choice.move), choice.source, choice.scores) == ("4", "book", {choice.move: 1})


def test_a_stopped_solver_stops_a_build() -> None:
    with pytest.raises(SearchStopped):
        build(ClassicSolver(5, 4, core="python"), 5, 4, SMALL, {}, lambda *solved: None,
              should_stop=lambda: True)  # fmt: skip
