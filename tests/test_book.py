"""The opening book: its file, its build, its coverage and its moves."""

from __future__ import annotations

import hashlib
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.computer.thinker import Job, solver
from engine import new_game, rules_named
from engine.solver import book as book_module
from engine.solver.book import (
    DIGEST,
    FORMAT,
    HEADER,
    MAGIC,
    Book,
    BookError,
    BookMove,
    Entry,
    book_file,
    canonical,
    packaged_book,
)
from engine.solver.bookbuild import Plan, Record, book_entries, build, discs, plies
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED, CoreName
from engine.solver.limits import Limits, SearchStopped
from engine.solver.opponent import MAX_LEVEL, Opponent, classic_position
from engine.solver.position import Position

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
    with pytest.raises(BookError, match="truncated"):
        Book.from_bytes(data[:10])
    with pytest.raises(BookError, match="digest does not match"):
        Book.from_bytes(data[:-40] + bytes([data[-40] ^ 1]) + data[-39:])


def answers_legally(book: Book) -> bool:
    """Whether every position the book holds (and its mirror) gets a legal move."""
    for key in book.entries():
        position = Position.from_key(book.width, book.height, key)
        for asked in (position, position.mirrored()):
            found = book.lookup(asked)
            if found is None or not asked.can_play(found.column):
                return False
    return True


def shipped_bytes() -> bytes:
    return book_file(7, 6).read_bytes()


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a byte changed, cut short, or with bytes put in."""
    kind = draw(st.sampled_from(["byte", "cut", "insert"]))
    if kind == "byte":
        at = draw(st.integers(0, len(data) - 1))
        value = draw(st.integers(0, 255).filter(lambda v: v != data[at]))
        return data[:at] + bytes([value]) + data[at + 1 :]
    if kind == "cut":
        return data[: draw(st.integers(0, len(data) - 1))]
    at = draw(st.integers(0, len(data)))
    return data[:at] + draw(st.binary(min_size=1, max_size=40)) + data[at:]


@settings(max_examples=300)
@given(st.data())
def test_any_damage_to_the_book_file_is_caught_at_load(data: st.DataObject) -> None:
    # a corrupted byte once made bestmove play column 9, a full column, and
    # full strength on the board column 1 for every move
    bad = data.draw(damaged(shipped_bytes()))
    try:
        book = Book.from_bytes(bad)
    except BookError:
        return
    assert answers_legally(book)


def keys() -> st.SearchStrategy[int]:
    """Keys of real positions (some of them full columns) and any 64-bit number."""
    moves = st.lists(st.integers(1, 7), max_size=30)
    real = moves.map(lambda columns: _position(columns).key())
    return st.one_of(real, st.integers(0, 2**64 - 1), st.integers(0, 2**20))


def _position(columns: list[int]) -> Position:
    position = Position.empty(7, 6)
    for column in columns:
        if position.can_play(column):
            position = position.play(column)
    return position


@settings(max_examples=300)
@given(
    st.lists(st.tuples(keys(), st.integers(0, 255), st.integers(0, 255)), max_size=12),
    st.integers(0, 255),
    st.booleans(),
)
def test_a_digest_that_matches_still_gives_only_legal_moves(
    entries: list[tuple[int, int, int]], depth: int, ordered: bool
) -> None:
    # the digest stamps what a book holds, not that it is right: every entry
    # is checked at load too (a key that is a position, room in its column)
    if ordered:
        entries = sorted(entries)
    content = HEADER.pack(MAGIC, 7, 6, depth, FORMAT, len(entries))
    content += b"".join(key.to_bytes(8, "little") for key, _s, _c in entries)
    content += bytes(score for _k, score, _c in entries)
    content += bytes(column for _k, _s, column in entries)
    try:
        book = Book.from_bytes(content + hashlib.sha256(content).digest())
    except BookError:
        return
    assert answers_legally(book)


def test_the_shipped_book_is_current_and_re_stamping_keeps_its_moves(tmp_path: Path) -> None:
    data = shipped_bytes()
    assert Book.from_bytes(data).to_bytes() == data  # the format this popref writes
    # a format 0 file (no digest) is read only to resume a build or re-stamp it
    old = data[:11] + b"\0" + data[12:-DIGEST]
    with pytest.raises(BookError, match="format 0"):
        Book.from_bytes(old)
    (tmp_path / "old.bin").write_bytes(old)
    assert main(["book", "--stamp", "--output", str(tmp_path / "old.bin")]) == 0
    assert (tmp_path / "old.bin").read_bytes() == data


@pytest.fixture
def damaged_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The shipped book's file with the empty board's column set to 9."""
    data = bytearray(shipped_bytes())
    count = int.from_bytes(data[12:16], "little")
    data[HEADER.size + 9 * count] = 9  # the first entry's column: the empty board's
    path = tmp_path / "book-7x6.bin"
    path.write_bytes(bytes(data))
    monkeypatch.setattr(book_module, "book_file", lambda width, height: path)
    book_module._packaged.cache_clear()
    yield path
    book_module._packaged.cache_clear()


def test_a_damaged_book_leaves_full_strength_to_the_solver(damaged_book: Path) -> None:
    game = new_game("classic")
    opponent = Opponent(game.rules, core="python")
    assert opponent.book is None and opponent.book_problem is not None
    assert str(damaged_book) in opponent.book_problem
    assert "digest does not match" in opponent.book_problem
    choice = opponent.choose(game, Limits(should_stop=lambda: True))  # the solver's fallback
    assert game.is_legal(choice.move) and choice.source == "search"


def test_bestmove_with_a_damaged_book_warns_once_and_plays_legally(
    damaged_book: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("-\n4\n-\n"))
    assert main(["bestmove", "--movetime", "50"]) == 0
    out, err = capsys.readouterr()
    # said once; at 50 ms without the book a move may also be said not proven
    told = [line for line in err.splitlines() if "playing without the opening book" in line]
    others = [line for line in err.splitlines() if line not in told]
    assert len(told) == 1 and all("is not proven" in line for line in others)
    assert len(out.split()) == 3 and all(move in "1234567" for move in out.split())


def test_the_daemon_tells_a_damaged_book_once_and_the_solver_plays(
    damaged_book: Path, caplog: pytest.LogCaptureFixture
) -> None:
    choose = solver()
    # the last Classic opponent is dropped for the other games' and made anew
    for key, name in enumerate(["classic", "popout", "pop10", "classic"]):
        game = new_game(name)
        job = Job("computer", (key,), game, level=MAX_LEVEL, seed=key)
        assert game.is_legal(choose(job, Limits(should_stop=lambda: True, max_nodes=500)).move)
    told = [r.getMessage() for r in caplog.records if "opening book" in r.getMessage()]
    assert len(told) == 1 and str(damaged_book) in told[0]


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


def test_the_book_holds_every_opening_of_six_moves() -> None:
    # hints between two people meet any opening; a fresh solve of one takes
    # seconds to minutes, and within a move's time full strength lost 2 1 and 6 7
    book = packaged()

    def walk(position: Position, moves: tuple[int, ...]) -> None:
        assert book.lookup(position) is not None, " ".join(map(str, moves))
        if len(moves) < 6:  # no line of four can be made before the seventh disc
            for column in range(1, 8):
                walk(position.play(column), (*moves, column))

    walk(Position.empty(7, 6), ())


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
