"""Moves and the notation of docs/rules.md."""

from __future__ import annotations

import copy
import pickle

import pytest

from engine import InvalidMoveError, Move, MoveKind, parse_move, parse_moves, rules_named


def test_moves_print_in_the_notation() -> None:
    assert str(Move.drop(4)) == "4" and str(Move.pop(12)) == "p12"
    assert repr(Move.pop(3)) == "Move.pop(3)"


def test_moves_are_values() -> None:
    assert Move(MoveKind.DROP, 4) == Move.drop(4) == Move("drop", 4)
    assert Move.drop(4) != Move.pop(4)
    assert len({Move.drop(4), Move.drop(4), Move.pop(4)}) == 2
    assert sorted([Move.pop(1), Move.drop(7), Move.drop(2)]) == [
        Move.drop(2),
        Move.drop(7),
        Move.pop(1),
    ]
    assert copy.deepcopy(Move.pop(3)) == Move.pop(3)
    assert pickle.loads(pickle.dumps(Move.drop(5))) == Move.drop(5)


def test_moves_are_frozen() -> None:
    move = Move.drop(4)
    with pytest.raises(AttributeError, match="frozen"):
        move.column = 5
    with pytest.raises(AttributeError, match="frozen"):
        del move.kind


@pytest.mark.parametrize("bad", [0, -1, 100, True, "3"])
def test_move_columns_are_checked(bad: object) -> None:
    with pytest.raises(InvalidMoveError, match="is not a column"):
        Move.drop(bad)  # type: ignore[arg-type]


def test_move_kind_is_checked() -> None:
    with pytest.raises(InvalidMoveError, match="not a kind of move"):
        Move("push", 3)


def test_parse_move() -> None:
    assert parse_move("4") is Move.drop(4)
    assert parse_move(" p3 ") is Move.pop(3)
    assert parse_move("P10") is Move.pop(10)


@pytest.mark.parametrize("bad", ["", "x", "p", "3p", "d4", "0", "p0", "4.5", "-3"])
def test_parse_move_rejects_what_is_not_a_move(bad: str) -> None:
    with pytest.raises(InvalidMoveError, match="is not a move"):
        parse_move(bad)


def test_parse_moves_splits_on_any_white_space() -> None:
    assert parse_moves("4\tp4\n 3  ") == [Move.drop(4), Move.pop(4), Move.drop(3)]


def test_parse_moves_names_the_bad_move() -> None:
    with pytest.raises(InvalidMoveError, match=r"move 3 \(q1\): 'q1' is not a move"):
        parse_moves("4 4 q1")


def test_digit_runs_are_classic_notation_only() -> None:
    classic = rules_named("classic")
    assert parse_moves("4453 1", classic) == [Move.drop(c) for c in (4, 4, 5, 3, 1)]
    # multi-digit tokens are columns on wider boards and in other games
    assert parse_moves("10", rules_named("classic", (12, 10))) == [Move.drop(10)]
    assert parse_moves("11", rules_named("popout")) == [Move.drop(11)]
    assert parse_moves("44") == [Move.drop(44)]
