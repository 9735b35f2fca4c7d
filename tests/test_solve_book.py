"""``popref solve`` answers from the opening book where it holds the exact score."""

from __future__ import annotations

import argparse
import io
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cli import solve
from engine.solver.book import Book, packaged_book
from engine.solver.classic import ClassicSolver
from engine.solver.position import Position

BOOK = packaged_book(7, 6)
assert BOOK is not None
ENTRIES = sorted(BOOK.entries().items())


def book() -> Book:
    assert BOOK is not None
    return BOOK


def position_of(key: int) -> Position:
    return Position.from_key(7, 6, key)


def digits(position: Position) -> str:
    """A move sequence (digit run) that reaches ``position``, by undoing top discs."""
    moves: list[int] = []
    current, mask = position.current, position.mask
    # the solver's positions keep no history: find one by search, top discs first
    found = _unplay(position.width, position.height, current, mask, position.moves, moves)
    assert found, position
    return "".join(str(c) for c in reversed(moves))


def _unplay(width: int, height: int, current: int, mask: int, moves: int, out: list[int]) -> bool:
    if moves == 0:
        return True
    stride = height + 1
    opponent = current ^ mask  # the discs of who moved last
    for column in range(width):
        cells = mask >> (column * stride) & ((1 << stride) - 1)
        if not cells:
            continue
        top = 1 << (column * stride + cells.bit_length() - 1)
        if not opponent & top:
            continue
        before = Position(width, height, opponent ^ top, mask ^ top, moves - 1)
        if before.wins_with(column + 1):
            continue  # the game would have ended there
        out.append(column + 1)
        if _unplay(width, height, opponent ^ top, mask ^ top, moves - 1, out):
            return True
        out.pop()
    return False


def run_solve(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    solve.add_arguments(parser)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    status = solve.run(parser.parse_args(argv), clock=lambda: 0.0)
    return status, out.getvalue()


def no_search(*_args: object) -> None:
    raise AssertionError("the solver searched a position the book holds")


def test_the_first_plies_come_from_the_book_without_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ClassicSolver, "_window", no_search)
    status, out = run_solve(["--all"], "-\n4\n", monkeypatch)
    assert status == 0
    start, after_4 = out.splitlines()
    # the start's values are the known ones (Connect Four is a first player's win in the centre)
    assert start == "- 1:-2 2:-1 3:0 4:1 5:0 6:-1 7:-2"
    scores = dict(item.split(":") for item in after_4.split()[1:])
    # Yellow's best reply to 4 keeps the position's score, the book's own
    four = book().exact_score(Position.from_columns(7, 6, [4]))
    assert max(int(v) for v in scores.values()) == four == -1 and len(scores) == 7
    status, out = run_solve([], "-\n4\n", monkeypatch)
    assert out == "- 1\n4 -1\n"


@given(st.sampled_from(ENTRIES))
def test_the_exact_score_is_the_entry_s_if_exact_for_the_position_and_its_mirror(
    item: tuple[int, object],
) -> None:
    key, _entry = item
    position = position_of(key)
    entry = book().lookup(position)
    assert entry is not None
    expected = entry.score if entry.exact else None
    assert book().exact_score(position) == book().exact_score(position.mirrored()) == expected


def deep(exact: bool, ply: int, count: int) -> list[Position]:
    """Book positions from ``ply`` on: those with an exact score, or a win's outcome only."""
    found = [position_of(k) for k, e in ENTRIES if e.exact == exact]
    return [p for p in found if p.moves >= ply][:count]


def test_book_answers_are_the_solver_s(monkeypatch: pytest.MonkeyPatch) -> None:
    # past ply 7 the book's exact scores are its draws: each still needs
    # millions of positions, but seconds of the compiled core
    positions = deep(exact=True, ply=9, count=3)
    assert len(positions) == 3
    solver = ClassicSolver(7, 6)
    lines = "".join(f"{digits(p)}\n" for p in positions)
    monkeypatch.setattr(ClassicSolver, "_window", no_search)
    _status, out = run_solve([], lines, monkeypatch)
    monkeypatch.undo()
    assert out == "".join(f"{digits(p)} {solver.solve(p)}\n" for p in positions)


def test_an_outcome_only_entry_is_solved_not_printed_as_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    solver = ClassicSolver(7, 6)
    positions = deep(exact=False, ply=15, count=2)
    scores = [solver.solve(p) for p in positions]
    assert all(book().exact_score(p) is None for p in positions)
    assert any(score != 1 for score in scores)  # the book's 1 would be wrong there
    lines = "".join(f"{digits(p)}\n" for p in positions)
    _status, out = run_solve([], lines, monkeypatch)
    assert out == "".join(f"{digits(p)} {s}\n" for p, s in zip(positions, scores, strict=True))


def test_every_move_s_score_agrees_with_the_solver_where_the_book_answers_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the position before a drawn book entry of ply 11: one reply from the
    # book, the others solved
    (drawn,) = deep(exact=True, ply=11, count=1)
    before = digits(drawn)[:-1]
    position = Position.from_columns(7, 6, [int(c) for c in before])
    expected = " ".join(f"{c}:{v}" for c, v in ClassicSolver(7, 6).move_scores(position).items())
    _status, out = run_solve(["--all"], f"{before}\n", monkeypatch)
    assert out == f"{before} {expected}\n"
