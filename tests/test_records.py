"""Game records: writing, reading, checking the stated result, naming bad lines."""

from __future__ import annotations

import dataclasses

import pytest

from engine import (
    Colour,
    RecordError,
    game_from_position,
    new_game,
    read_record,
    rules_named,
    write_record,
)


def test_a_record_lists_rules_size_result_and_moves() -> None:
    game = new_game("classic")
    for move in ["4", "4", "3", "3", "2", "2", "1"]:
        game.play(move)
    assert write_record(game) == "Rules: classic\nSize: 7x6\nResult: red\n\n4 4 3 3 2 2 1\n"


def test_long_games_wrap_and_read_back() -> None:
    game = new_game("pop10")
    while len(game.moves) < 45:
        game.play(game.legal_moves()[0])
    text = write_record(game)
    assert len(text.splitlines()) == 4 + 3
    assert read_record(text).moves == game.moves


def test_options_and_start_positions_are_recorded() -> None:
    rules = dataclasses.replace(rules_named("pop10", (4, 4)), target=3, repetition=4)
    game = game_from_position(rules, ["....", "....", "....", "YR.."], "red")
    game.play("3")
    text = write_record(game)
    assert "Repetition: 4\nTarget: 3\n" in text
    assert "Start: ..../..../..../YR..\nTo-Move: red\nScores: 0 0\n" in text
    again = read_record(text)
    assert again.rules == rules and again.rows() == game.rows()


def test_reading_accepts_comments_and_digit_runs() -> None:
    game = read_record("# a solver test\nRules: classic\nResult: *\n\n# moves\n4453\n")
    assert [str(m) for m in game.moves] == ["4", "4", "5", "3"]
    assert game.to_move is Colour.RED


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4 4 3", "line 1: a record starts with a 'Rules: NAME' line"),
        ("", "line 1: a record starts with a 'Rules: NAME' line"),
        ("Rules: chess\n", "line 1: Rules: unknown rules 'chess'"),
        ("Rules: classic\nSize: 7by6\n", "line 2: Size: bad size '7by6'"),
        ("Rules: classic\nSize: 2x6\n", "line 2: Size: a board must be 4 to 20 columns"),
        ("Rules: classic\nRules: classic\n", "line 2: Rules is given twice"),
        ("Rules: popout\nRepetition: often\n", "line 2: Repetition: invalid literal"),
        ("Rules: popout\nPops: maybe\n", "line 2: Pops: write yes or no"),
        ("Rules: classic\nTo-Move: red\n", "line 2: To-Move: only a game with a Start"),
        ("Rules: classic\n\n4 4\n4 p4\n", "line 4: move 4 (p4): pops are not allowed in Classic"),
        ("Rules: classic\n\n4 x\n", "line 3: move 2 (x): 'x' is not a move"),
        ("Rules: classic\nResult: red\n\n4 4\n", "line 2: the record says the result is 'red'"),
        ("Rules: classic\n\n1 2 1 2 1 2 1\n", "the record: the record says the result is '*'"),
        ("Rules: pop10\nStart: RRRR\n", "line 2: Start: a board must be 4 to 20 rows high"),
        (
            "Rules: classic\nSize: 5x4\nStart: ..../..../..../....\n",
            "line 3: Start: the position is 4x4 but Size says 5x4",
        ),
        ("Rules: pop10\nStart: ..\nScores: a b\n", "line 3: Scores: write two whole numbers"),
    ],
)
def test_bad_records_name_the_line(text: str, message: str) -> None:
    with pytest.raises(RecordError) as raised:
        read_record(text)
    assert str(raised.value).startswith(message), str(raised.value)
    assert "\n" not in str(raised.value)
