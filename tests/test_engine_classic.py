"""Classic and 5-in-a-Row: drops only, first line wins, full grid draws."""

from __future__ import annotations

import pytest

from engine import (
    Colour,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Phase,
    PositionError,
    game_from_position,
    new_game,
)
from engine.game import Game


def play(game: Game, moves: str) -> Game:
    for token in moves.split():
        game.play(token)
    return game


def test_new_game_is_empty_with_red_to_move() -> None:
    game = new_game("classic")
    assert game.rows() == ("." * 7,) * 6
    assert game.to_move is Colour.RED and game.phase is Phase.PLAY and game.result is None
    assert [str(m) for m in game.legal_moves()] == ["1", "2", "3", "4", "5", "6", "7"]
    assert game.scores == {Colour.RED: 0, Colour.YELLOW: 0}


def test_drops_land_on_top_and_players_alternate() -> None:
    game = play(new_game("classic"), "4 4 3")
    assert game.column(4) == (Colour.RED, Colour.YELLOW)
    assert game.height(3) == 1 and game.height(1) == 0
    assert game.rows()[-2:] == ("...Y...", "..RR...")
    assert game.to_move is Colour.YELLOW
    assert game.moves == (Move.drop(4), Move.drop(4), Move.drop(3))


@pytest.mark.parametrize(
    ("moves", "cells"),
    [
        ("1 1 2 2 3 3 4", {(1, 1), (2, 1), (3, 1), (4, 1)}),  # horizontal
        ("7 1 7 1 7 1 7", {(7, 1), (7, 2), (7, 3), (7, 4)}),  # vertical
        ("1 2 2 3 3 4 3 4 4 7 4", {(1, 1), (2, 2), (3, 3), (4, 4)}),  # rising diagonal
        ("7 6 6 5 5 4 5 4 4 1 4", {(7, 1), (6, 2), (5, 3), (4, 4)}),  # falling diagonal
    ],
)
def test_the_first_line_wins_in_every_direction(moves: str, cells: set[tuple[int, int]]) -> None:
    game = play(new_game("classic"), moves)
    assert game.result is Colour.RED and game.is_over() and game.to_move is None
    assert game.phase is Phase.OVER and game.legal_moves() == ()
    assert game.winning_cells() == cells


def test_yellow_wins_too() -> None:
    game = play(new_game("classic"), "1 2 1 2 1 2 7 2")
    assert game.result is Colour.YELLOW
    assert game.winning_cells() == {(2, 1), (2, 2), (2, 3), (2, 4)}


def test_a_line_longer_than_k_wins_and_lights_every_disc() -> None:
    game = play(new_game("classic"), "1 1 2 2 4 4 5 5 3")
    assert game.result is Colour.RED
    assert game.winning_cells() == {(c, 1) for c in range(1, 6)}


def test_three_in_a_row_does_not_win() -> None:
    game = play(new_game("classic"), "1 1 2 2 3 3")
    assert game.result is None and not game.winning_cells()


def test_a_line_at_the_board_edge_does_not_wrap_into_the_next_column() -> None:
    # discs at the top of column 1 and the bottom of column 2 are bit-neighbours
    game = play(new_game("classic", (4, 4)), "1 2 1 3 1 4 2 1")
    assert game.result is None


def test_full_grid_without_a_line_is_a_draw() -> None:
    game = game_from_position("classic", ["R.YY", "YRRY", "RRYR", "RRYY"], "yellow")
    game.play("2")
    assert game.result == "draw" and game.phase is Phase.OVER and game.to_move is None
    assert not game.winning_cells() and game.legal_moves() == ()
    game.undo()
    assert game.to_move is Colour.YELLOW and game.height(2) == 3


def test_a_line_on_the_last_cell_wins_rather_than_draws() -> None:
    game = game_from_position("popout", ["Y.YY", "YRRY", "RRYR", "RRYY"], "yellow")
    game.play("2")
    assert game.result is Colour.YELLOW


@pytest.mark.parametrize(
    ("moves", "move", "message"),
    [
        ("1 1 1 1 1 1", "1", "column 1 is full"),
        ("", "p3", "pops are not allowed in Classic"),
        ("", "8", "there is no column 8: the board has columns 1-7"),
    ],
)
def test_illegal_moves_say_why(moves: str, move: str, message: str) -> None:
    game = play(new_game("classic"), moves)
    assert game.why_illegal(move) == message
    assert not game.is_legal(move)
    with pytest.raises(IllegalMoveError) as raised:
        game.play(move)
    assert str(raised.value) == message
    assert game.moves == tuple(Move.drop(int(t)) for t in moves.split())


def test_moves_after_the_end_raise_game_over() -> None:
    game = play(new_game("classic"), "1 1 2 2 3 3 4")
    with pytest.raises(GameOverError, match=r"^the game is over: Red won$"):
        game.play("5")
    assert game.why_illegal("5") == "the game is over: Red won"


def test_text_that_is_not_a_move_is_invalid() -> None:
    game = new_game("classic")
    with pytest.raises(InvalidMoveError):
        game.play("four")
    with pytest.raises(InvalidMoveError):
        game.play(4)  # type: ignore[arg-type]
    assert game.why_illegal("4") is None and game.is_legal(Move.drop(4))


def test_undo_takes_back_wins_and_full_columns() -> None:
    game = play(new_game("classic"), "1 1 1 1 1 1")
    assert Move.drop(1) not in game.legal_moves()
    assert game.undo() == Move.drop(1)
    assert Move.drop(1) in game.legal_moves() and game.to_move is Colour.YELLOW
    game = play(new_game("classic"), "1 1 2 2 3 3 4")
    game.undo()
    assert game.result is None and game.to_move is Colour.RED and game.phase is Phase.PLAY
    with pytest.raises(IllegalMoveError, match="no move to undo"):
        new_game("classic").undo()


def test_copies_are_independent() -> None:
    game = play(new_game("classic"), "4 4")
    twin = game.copy()
    twin.play("3")
    assert game.moves == (Move.drop(4), Move.drop(4)) and len(twin.moves) == 3
    assert new_game("classic").rows() == ("." * 7,) * 6  # the shared fresh game is untouched


def test_column_queries_check_the_column() -> None:
    with pytest.raises(IndexError, match="there is no column 9"):
        new_game("classic").height(9)


# -- 5-in-a-Row ----------------------------------------------------------------


def test_five_starts_with_full_strips_of_alternating_colours() -> None:
    game = new_game("five")
    assert game.rows() == ("Y.......R", "R.......Y") * 3
    assert game.column(1) == (Colour.RED, Colour.YELLOW) * 3
    assert [m.column for m in game.legal_moves()] == list(range(2, 9))


def test_five_strip_discs_count_in_lines() -> None:
    game = play(new_game("five"), "2 2 3 3 4 4 5")
    assert game.result is Colour.RED
    assert game.winning_cells() == {(c, 1) for c in range(1, 6)}


def test_four_wins_nothing_in_five() -> None:
    game = play(new_game("five"), "3 3 4 4 5 5 6")
    assert game.result is None and game.to_move is Colour.YELLOW


def test_five_in_the_middle_wins() -> None:
    game = play(new_game("five"), "3 3 4 4 5 5 6 6 7")
    assert game.result is Colour.RED


def test_nobody_drops_into_a_strip() -> None:
    game = new_game("five")
    assert game.why_illegal("1") == "column 1 is an edge strip: discs are never dropped into it"
    assert game.why_illegal("9") == "column 9 is an edge strip: discs are never dropped into it"
    assert game.why_illegal("p2") == "pops are not allowed in 5-in-a-Row"


def test_five_full_grid_without_five_is_a_draw_after_42_drops() -> None:
    rows = [
        "YRY.RRRYR",
        "RRRYRYYYY",
        "YRYYRYRRR",
        "RYYYRYYYY",
        "YRYRYYRRR",
        "RYRRRRYRY",
    ]
    game = game_from_position("five", rows, "yellow")
    game.play("4")
    assert game.result == "draw"
    assert sum(game.height(c) for c in range(2, 9)) == 42


def test_positions_are_checked() -> None:
    with pytest.raises(PositionError, match="gap under a disc"):
        game_from_position("classic", ["R...", "....", "....", "...."], "yellow")
    with pytest.raises(PositionError, match="cannot be Red's turn"):
        game_from_position("classic", ["....", "....", "....", "R..."], "red")
    with pytest.raises(PositionError, match="already has a line for Red"):
        game_from_position("classic", ["....", "....", "YYY.", "RRRR"], "yellow")
    with pytest.raises(PositionError, match="row 2 has 3 cells"):
        game_from_position("classic", ["....", "...", "....", "...."], "red")
    with pytest.raises(PositionError, match=r"cells are '\.', 'R' or 'Y'"):
        game_from_position("classic", ["....", "....", "....", "X..."], "red")
    with pytest.raises(PositionError, match="to_move must be 'red' or 'yellow'"):
        game_from_position("classic", ["....", "....", "....", "...."], "blue")
    with pytest.raises(PositionError, match="column 1 is an edge strip"):
        game_from_position("five", ["." * 9] * 6, "red")
    with pytest.raises(PositionError, match="points are scored only in Pop 10"):
        game_from_position("classic", ["...."] * 4, "red", (1, 0))
