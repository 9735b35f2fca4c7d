"""Full strength with pops holds to what the outcome search proves
(engine/solver/proven.py): node budgets, so every run is the same.

The positions come from seeded random Pop Out games where a short search
does not see the win: in ``WON_POSITION`` 5 wins in 7 plies (and 4 in at
most 11), which a search of a ply or two cannot prove; in ``LOSING_CHOICE`` the anytime
search alone plays 4, which loses.
"""

from __future__ import annotations

from engine import Game, Move, new_game, rules_named
from engine.solver.fastsearch import FastSearch, state_of
from engine.solver.limits import Limits
from engine.solver.opponent import Opponent
from engine.solver.outcome import WON, prove
from engine.solver.proven import ProvenPlay
from engine.solver.search import WIN
from tests.test_outcome import BOARDS, plies_left, plies_of_move, seeded_game

RULES = rules_named("popout")
WON_POSITION = "5 3 5 3 3 1 6 p3 p5 2 6 p2 1 7 3 p1 7 3"
LOSING_CHOICE = "7 7 4 3 5 6 p7 2 p4 p2 2 p3 2 7 5 3 6"


def game_of(moves: str) -> Game:
    game = new_game(RULES)
    for move in moves.split():
        game.play(move)
    return game


def test_a_proven_win_is_kept_when_the_next_search_is_too_short_to_see_it() -> None:
    game = game_of(WON_POSITION)
    opponent = Opponent(RULES)
    first = opponent.choose(game, Limits(max_nodes=600_000))
    assert str(first.move) in ("4", "5") and first.scores[first.move] >= WON
    again = opponent.choose(game, Limits(max_nodes=50))
    assert again.move == first.move and again.scores[again.move] == first.scores[first.move]
    short = Opponent(RULES).choose(game, Limits(max_nodes=50))  # without the proof
    assert short.scores[short.move] < WON


def test_a_kept_win_gives_way_only_to_a_faster_one() -> None:
    play = ProvenPlay(FastSearch(RULES, slots=1 << 10))
    state = state_of(game_of(WON_POSITION))
    play.keep(state, Move.drop(4), WIN - 11)
    play.keep(state, Move.drop(6), WIN - 13)
    assert play.wins[state] == (Move.drop(4), WIN - 11)
    play.keep(state, Move.drop(2), WIN - 5)
    assert play.wins[state] == (Move.drop(2), WIN - 5)


def test_a_win_found_while_pondering_is_played() -> None:
    before = game_of(WON_POSITION.rsplit(" ", 1)[0])  # Yellow to move; 3 leads to the win
    opponent = Opponent(RULES)
    opponent.ponder(before, Limits(max_nodes=400_000))
    before.play("3")
    choice = opponent.choose(before, Limits(max_nodes=50))
    assert choice.scores[choice.move] >= WON
    truth = prove(FastSearch(RULES), before)
    assert truth.value is not None and truth.value >= WON


def test_a_move_proven_lost_is_not_chosen_while_another_is_not() -> None:
    game = game_of(LOSING_CHOICE)
    lost = prove(FastSearch(RULES), game, Limits(max_nodes=300_000)).lost
    assert Move.drop(4) in lost and len(lost) < len(list(game.legal_moves()))
    search_alone = FastSearch(RULES).search(game, Limits(max_nodes=40_000))
    assert search_alone.move == Move.drop(4)  # what full strength played before
    choice = Opponent(RULES).choose(game, Limits(max_nodes=40_000))
    assert choice.move not in lost


def test_a_kept_win_that_leads_back_where_the_game_has_been_is_not_played() -> None:
    # after 1 2 3 4 p3, Yellow's p4 gives back the position after 1 2: a win
    # kept from an earlier visit that goes back can be one of two that lead
    # to each other's position for ever (a game against Four the Win! went
    # round 6 p6 to the 300-ply cap from a proven win)
    game = game_of("1 2 3 4 p3")
    play = ProvenPlay(FastSearch(RULES, slots=1 << 12))
    play.keep(state_of(game), Move.pop(4), WIN - 1)  # as fast as any: kept whatever is found
    assert play.choose(game, Limits(max_nodes=2000)).move != Move.pop(4)
    other = ProvenPlay(FastSearch(RULES, slots=1 << 12))
    other.keep(state_of(game), Move.drop(6), WIN - 1)  # the same, but 6 is not back
    assert other.choose(game, Limits(max_nodes=2000)).move == Move.drop(6)


def test_a_lost_position_is_held_as_long_as_the_proofs_allow() -> None:
    # every move here loses; the outcome search's slowest by its bounds is
    # lost in 6 plies, the anytime search's choice (a bound no tighter) in 10,
    # the most that can be held (the board solved whole, tests/test_outcome.py)
    board = BOARDS["4x4"]
    game = seeded_game(board, 76, 9)
    assert " ".join(str(move) for move in game.moves) == "3 4 4 2 3 1 4 p4 2"
    choice = Opponent(board).choose(game, Limits(max_nodes=20_000))
    plies = plies_left(board)
    assert choice.scores[choice.move] <= -WON
    assert plies_of_move(game, choice.move, plies) == plies[state_of(game)] == 10
