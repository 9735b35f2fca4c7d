"""Pop Out: pops of one's own bottom disc, both-lines, empty and full grids, repetition."""

from __future__ import annotations

import dataclasses

import pytest

from engine import Colour, IllegalMoveError, Move, game_from_position, new_game, rules_named
from engine.game import Game

WORKED = "6 4 1 1 3 5 5 3 7 6 2 6 p6 p5 p7 5 4 4 4"


def play(game: Game, moves: str) -> Game:
    for token in moves.split():
        game.play(token)
    return game


def test_pop_removes_the_bottom_disc_and_the_column_falls() -> None:
    game = play(new_game("popout"), "4 4 3 5 p4")
    assert game.column(4) == (Colour.YELLOW,)
    assert game.moves[-1] == Move.pop(4) and game.to_move is Colour.YELLOW
    assert game.scores == {Colour.RED: 0, Colour.YELLOW: 0}  # popped discs leave the game


def test_legal_moves_are_drops_then_own_bottom_pops() -> None:
    game = play(new_game("popout", (5, 4)), "1 2 3")
    assert [str(m) for m in game.legal_moves()] == ["1", "2", "3", "4", "5", "p2"]


def test_worked_example_both_lines_popper_wins() -> None:
    game = play(new_game("popout"), WORKED)
    assert game.to_move is Colour.YELLOW
    game.play("p4")
    assert game.rows()[-2:] == ("Y.YYYY.", "RRRRRY.")
    assert game.result is Colour.YELLOW
    assert game.winning_cells() == {(c, 2) for c in (3, 4, 5, 6)}


def test_both_lines_house_rule_can_give_the_opponent_the_win() -> None:
    rules = dataclasses.replace(rules_named("popout"), both_lines="opponent")
    game = play(new_game(rules), WORKED + " p4")
    assert game.result is Colour.RED
    assert game.winning_cells() == {(c, 1) for c in range(1, 6)}


def test_a_pop_that_completes_only_the_opponents_line_loses() -> None:
    game = game_from_position("popout", ["." * 7] * 4 + ["Y......", "RYYY..."], "red")
    game.play("p1")
    assert game.rows()[-1] == "YYYY..." and game.result is Colour.YELLOW


def test_a_pop_that_completes_only_the_poppers_line_wins() -> None:
    rows = ["." * 7] * 3 + ["R......", "YRRR...", "RYRY..."]
    game = game_from_position("popout", rows, "red")
    game.play("p1")
    assert game.rows()[-2:] == ("RRRR...", "YYRY...") and game.result is Colour.RED


def test_a_pop_that_empties_the_grid_is_a_draw() -> None:
    game = play(new_game("popout"), "4 3 p4")
    assert game.result is None
    game.play("p3")
    assert game.result == "draw" and game.to_move is None


def test_a_drop_that_fills_the_grid_without_a_line_is_a_draw() -> None:
    game = game_from_position("popout", ["R.YY", "YRRY", "RRYR", "RRYY"], "yellow")
    game.play("2")
    assert game.result == "draw"


def test_a_full_grid_still_allows_pops_until_then() -> None:
    game = game_from_position("popout", ["R.YY", "YRRY", "RRYR", "RRYY"], "red")
    assert [str(m) for m in game.legal_moves()] == ["2", "p1", "p2"]


@pytest.mark.parametrize(
    ("moves", "move", "message"),
    [
        ("4", "p4", "the bottom disc of column 4 is Red's; Yellow can pop only their own"),
        ("4 3", "p3", "the bottom disc of column 3 is Yellow's; Red can pop only their own"),
        ("", "p2", "column 2 is empty: there is no disc to pop"),
        ("4 4 4 4 4 4", "4", "column 4 is full"),
    ],
)
def test_illegal_pops_say_why(moves: str, move: str, message: str) -> None:
    game = play(new_game("popout"), moves)
    with pytest.raises(IllegalMoveError) as raised:
        game.play(move)
    assert str(raised.value) == message


def test_five_popout_strip_discs_are_never_popped_but_count() -> None:
    game = new_game("five+popout")
    assert game.why_illegal("p1") == "column 1 is an edge strip: its discs are never popped"
    assert game.why_illegal("p9") == "column 9 is an edge strip: its discs are never popped"
    play(game, "2 2 3 3 4 4 5")
    assert game.result is Colour.RED


def test_undo_restores_a_pop_exactly() -> None:
    game = play(new_game("popout"), "4 4 3 5")
    before = (game.rows(), game.position_key(), tuple(game.legal_moves()))
    game.play("p4")
    assert game.undo() == Move.pop(4)
    assert (game.rows(), game.position_key(), tuple(game.legal_moves())) == before


CYCLE = " 5 6 p5 p6"


def test_repetition_is_off_by_default() -> None:
    game = play(new_game("popout"), "1 2 3 4" + CYCLE * 5)
    assert game.result is None


def test_repetition_draws_on_the_nth_occurrence() -> None:
    rules = dataclasses.replace(rules_named("popout"), repetition=3)
    game = play(new_game(rules), "1 2 3 4" + CYCLE)
    assert game.result is None  # the position after 1 2 3 4 has come twice
    play(game, CYCLE.rsplit(" ", 1)[0])
    assert game.result is None
    game.play("p6")
    assert game.result == "draw"
    game.undo()
    game.undo()
    play(game, "p5 p6")  # taking moves back un-counts them
    assert game.result == "draw"


def test_repetition_two_draws_on_the_first_return() -> None:
    rules = dataclasses.replace(rules_named("popout"), repetition=2)
    game = play(new_game(rules), "1 2 3 4 5 6 p5")
    assert game.result is None
    game.play("p6")
    assert game.result == "draw"
