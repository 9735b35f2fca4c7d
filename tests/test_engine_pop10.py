"""Pop 10: the fill phase, scoring pops and streaks, returns, passes, the 10th point."""

from __future__ import annotations

import dataclasses

import pytest

from engine import (
    Colour,
    IllegalMoveError,
    Move,
    Phase,
    PositionError,
    game_from_position,
    new_game,
    rules_named,
)
from engine.game import Game


def play(game: Game, moves: str) -> Game:
    for token in moves.split():
        game.play(token)
    return game


def columns(game: Game) -> list[str]:
    return [str(move) for move in game.legal_moves()]


def phase_of(game: Game) -> Phase:
    """The phase, read afresh (mypy would keep an earlier narrowing)."""
    return game.phase


def mover(game: Game) -> Colour | None:
    return game.to_move


def fill(game: Game) -> Game:
    while game.phase is Phase.FILL:
        game.play(game.legal_moves()[0])
    return game


def test_worked_example_fill_phase() -> None:
    game = play(new_game("pop10"), "4 3 5 2 6 1 7")
    assert game.rows()[-1] == "YYYRRRR" and game.phase is Phase.FILL
    assert columns(game) == ["1", "2", "3", "4", "5", "6", "7"]
    game.play("4")
    assert columns(game) == ["1", "2", "3", "5", "6", "7"]
    assert game.why_illegal("4") == (
        "in the fill phase discs go into the lowest columns: 1, 2, 3, 5, 6, 7"
    ).replace("1, 2, 3, 5, 6, 7", "1-3, 5-7")
    assert game.why_illegal("p1") == (
        "in the fill phase discs are only dropped: pops begin once the grid is full"
    )


def test_no_line_counts_while_filling() -> None:
    game = play(new_game("pop10"), "1 5 2 6 3 7 4")
    assert game.rows()[-1] == "RRRRYYY"
    assert game.result is None and game.phase is Phase.FILL and game.to_move is Colour.YELLOW


def test_strips_are_never_filled_in_five_pop10() -> None:
    game = new_game("five+pop10")
    assert columns(game) == ["2", "3", "4", "5", "6", "7", "8"]
    assert game.why_illegal("1") == "column 1 is an edge strip: discs are never dropped into it"


@pytest.mark.parametrize(("size", "first"), [((7, 6), Colour.RED), ((5, 5), Colour.YELLOW)])
def test_pop_phase_begins_with_the_player_after_the_last_fill_drop(
    size: tuple[int, int], first: Colour
) -> None:
    game = fill(new_game("pop10", size))
    assert game.phase is Phase.POP and game.to_move is first
    assert all(move.kind.value == "pop" for move in game.legal_moves())
    assert game.why_illegal("1").startswith(f"in the pop phase {first.title} pops one")  # type: ignore[union-attr]


NO_LINES = ["RYYY", "YRRY", "RRYR", "RRYY"]  # a full 4x4 grid without any line


def test_worked_example_full_grid_non_scoring_pop_goes_back_into_its_own_column() -> None:
    game = game_from_position("pop10", NO_LINES, "red")
    game.play("p1")
    assert game.phase is Phase.RETURN and game.pending_return == 1
    assert game.to_move is Colour.RED and columns(game) == ["1"]
    assert game.height(1) == 3 and game.scores == {Colour.RED: 0, Colour.YELLOW: 0}
    game.play("1")
    assert phase_of(game) is Phase.POP and mover(game) is Colour.YELLOW
    assert game.column(1) == (Colour.RED, Colour.YELLOW, Colour.RED, Colour.RED)
    assert game.pending_return is None


SCORING = ["YRYR", "RYRY", "YRYR", "RRRR"]  # 4x4, red's bottom row is a line


def test_a_scoring_pop_sets_the_disc_aside_and_the_same_player_pops_again() -> None:
    game = game_from_position("pop10", SCORING, "red")
    assert game.phase is Phase.POP
    game.play("p1")
    # judged before the pop: the row reads YRRR afterwards, the point stands
    assert game.rows()[-1] == "YRRR" and game.height(1) == 3
    assert game.scores == {Colour.RED: 1, Colour.YELLOW: 0}
    assert game.to_move is Colour.RED and game.phase is Phase.POP


def test_a_non_scoring_pop_returns_into_another_column_with_room() -> None:
    game = play(game_from_position("pop10", SCORING, "red"), "p1 p2")
    assert game.phase is Phase.RETURN and game.pending_return == 2
    assert columns(game) == ["1"]  # column 1 has room, so not back into 2
    assert game.why_illegal("2") == (
        "the disc popped from column 2 must go back into another column: 1"
    )
    assert game.why_illegal("3") == "column 3 is full; the disc popped from column 2 can go into 1"
    assert game.why_illegal("p3") == (
        "the disc popped from column 2 must first go back in, into column 1"
    )
    game.play("1")
    assert game.column(1)[-1] is Colour.RED and game.to_move is Colour.YELLOW
    assert game.scores[Colour.RED] == 1


def test_return_drops_never_score_or_win() -> None:
    game = play(game_from_position("pop10", SCORING, "red"), "p1 p2 1")
    assert game.result is None and game.scores == {Colour.RED: 1, Colour.YELLOW: 0}


def test_return_choices_list_every_column_with_room() -> None:
    rows = ["Y....", "RY...", "RYRYR", "YRYRY", "RRYYR"]
    game = game_from_position("pop10", rows, "yellow", (4, 3))
    game.play("p3")
    assert game.pending_return == 3 and columns(game) == ["2", "4", "5"]
    assert game.why_illegal("3") == (
        "the disc popped from column 3 must go back into another column: 2, 4, 5"
    )
    assert (
        game.why_illegal("1")
        == "column 1 is full; the disc popped from column 3 can go into 2, 4, 5"
    )


PASS_AFTER_SCORE = ["YYYR", "YYRY", "YRYY", "RYYY"]  # red's diagonal, red's only bottom disc


def test_no_own_bottom_disc_passes_the_turn_and_ends_a_streak() -> None:
    game = game_from_position("pop10", PASS_AFTER_SCORE, "red")
    game.play("p1")
    assert game.scores[Colour.RED] == 1
    assert game.passed is Colour.RED and game.to_move is Colour.YELLOW
    assert game.rows()[-1] == "YYYY"
    game.play("p2")  # yellow's bottom row line scores
    assert game.passed is None and game.scores[Colour.YELLOW] == 1
    game.undo()
    assert game.passed is Colour.RED and game.scores[Colour.YELLOW] == 0


def test_a_pass_at_the_start_of_the_pop_phase() -> None:
    game = game_from_position("pop10", ["RRRR", "RRRR", "YYYY", "YYYY"], "red")
    assert game.passed is Colour.RED and game.to_move is Colour.YELLOW
    assert columns(game) == ["p1", "p2", "p3", "p4"]


def test_neither_player_with_a_bottom_disc_is_a_draw() -> None:
    game = game_from_position("pop10", ["...."] * 4, "red", {Colour.RED: 8, Colour.YELLOW: 8})
    assert game.result == "draw" and game.phase is Phase.OVER and game.legal_moves() == ()


def test_the_tenth_point_wins_at_once() -> None:
    rows = ["R...", "RY..", "RY..", "RY.."]
    game = game_from_position("pop10", rows, "red", (9, 0))
    game.play("p1")
    assert game.result is Colour.RED and game.phase is Phase.OVER and game.to_move is None
    assert game.scores == {Colour.RED: 10, Colour.YELLOW: 0}
    assert game.height(1) == 3 and game.winning_cells() == frozenset()


def test_the_target_is_an_option() -> None:
    rules = dataclasses.replace(rules_named("pop10", (4, 4)), target=1)
    game = game_from_position(rules, SCORING, "red")
    play(game, "p1")
    assert game.result is Colour.RED and game.scores[Colour.RED] == 1


def test_pops_in_the_pop_phase_are_own_bottom_discs_only() -> None:
    game = fill(new_game("pop10"))
    assert columns(game) == ["p1", "p3", "p5", "p7"]
    with pytest.raises(IllegalMoveError, match="the bottom disc of column 2 is Yellow's"):
        game.play("p2")


FIVE_POP10 = [  # red's only line of five: the bottom row with the left strip's disc
    "YYYRYYRRR",
    "RYYRRYRYY",
    "YYRRRYYRR",
    "RYRRYRRYY",
    "YYRYRRYYR",
    "RRRRRYYYY",
]


def test_five_pop10_lines_of_five_score_with_strip_discs_and_strips_are_never_popped() -> None:
    game = game_from_position("five+pop10", FIVE_POP10, "red")
    assert game.why_illegal("p1") == "column 1 is an edge strip: its discs are never popped"
    game.play("p2")
    assert game.scores[Colour.RED] == 1 and game.phase is Phase.POP
    assert game.rows()[-1] == "RYRRRYYYY"
    game.play("p3")  # no line of five through it any more
    assert phase_of(game) is Phase.RETURN and game.scores[Colour.RED] == 1


def test_positions_in_pop10_are_checked() -> None:
    with pytest.raises(PositionError, match="must add up to the 16 cells"):
        game_from_position("pop10", ["....", *SCORING[1:]], "red", (0, 2))
    with pytest.raises(PositionError, match="one row at a time"):
        game_from_position("pop10", ["....", "....", "R...", "YR.."], "yellow")
    with pytest.raises(PositionError, match="cannot be Yellow's turn in the fill phase"):
        game_from_position("pop10", ["....", "....", "....", "YR.."], "yellow")
    with pytest.raises(PositionError, match="a score of 10 has already won"):
        game_from_position("pop10", ["...."] * 4, "red", (10, 6))
    with pytest.raises(PositionError, match="scores are two whole numbers"):
        game_from_position("pop10", SCORING, "red", (1,))  # type: ignore[arg-type]


def test_a_pop10_position_mid_fill_continues_filling() -> None:
    game = game_from_position("pop10", ["....", "....", "....", "YR.."], "red")
    assert game.phase is Phase.FILL and columns(game) == ["3", "4"]


def test_undo_walks_back_through_every_phase() -> None:
    game = new_game("pop10", (4, 4))
    keys, phases = [game.position_key()], {game.phase}
    while not game.is_over() and len(keys) < 60:
        game.play(game.legal_moves()[-1])
        keys.append(game.position_key())
        phases.add(game.phase)
    assert {Phase.FILL, Phase.POP, Phase.RETURN} <= phases
    for key in reversed(keys[:-1]):
        game.undo()
        assert game.position_key() == key
    assert game.phase is Phase.FILL and game.rows() == ("....",) * 4
    assert game.moves == () and Move.drop(1) in game.legal_moves()
