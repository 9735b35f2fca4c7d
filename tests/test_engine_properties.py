"""Property tests: random legal games on random boards under every preset."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    RULES_NAMES,
    Colour,
    Move,
    MoveKind,
    Phase,
    new_game,
    parse_move,
    parse_moves,
    read_record,
    rules_named,
    write_record,
)
from engine.game import Game


@st.composite
def games(draw: st.DrawFn) -> tuple[Game, random.Random]:
    name = draw(st.sampled_from(RULES_NAMES))
    extra = 2 if rules_named(name).strips else 0
    width = draw(st.integers(4, 12)) + extra
    height = draw(st.integers(4, 10))
    return new_game(name, (width, height)), random.Random(draw(st.integers(0, 2**32)))


def check_consistent(game: Game) -> None:
    rules = game.rules
    rows = game.rows()
    for column in range(1, rules.width + 1):
        cells = [row[column - 1] for row in reversed(rows)]
        height = game.height(column)
        assert "." not in cells[:height] and set(cells[height:]) <= {"."}  # gravity
        assert "".join(c.letter for c in game.column(column)) == "".join(cells[:height])
    red = sum(row.count("R") for row in rows)
    yellow = sum(row.count("Y") for row in rows)
    drops = {c: 0 for c in Colour}
    pops = {c: 0 for c in Colour}
    replay = new_game(rules)
    for move in game.moves:
        mover = replay.to_move
        assert mover is not None
        (drops if move.kind is MoveKind.DROP else pops)[mover] += 1
        replay.play(move)
    if not rules.pop10:
        assert red == drops[Colour.RED] - pops[Colour.RED] + _strip_count(rules, "R")
        assert yellow == drops[Colour.YELLOW] - pops[Colour.YELLOW] + _strip_count(rules, "Y")
    else:
        total = rules.height * len(rules.playable_columns)
        filled = red + yellow - _strip_count(rules, "R") - _strip_count(rules, "Y")
        scored = sum(game.scores.values())
        if game.phase is Phase.FILL:
            assert scored == 0 and filled == len(game.moves)
        else:
            missing = 1 if game.phase is Phase.RETURN else 0
            assert filled + scored + missing == total
    assert replay.position_key() == game.position_key()


def _strip_count(rules: object, letter: str) -> int:
    fresh = new_game(rules)  # type: ignore[arg-type]
    return sum(row.count(letter) for row in fresh.rows())


@settings(max_examples=60, deadline=None)
@given(games())
def test_random_games_keep_gravity_counts_and_undo_exact(case: tuple[Game, random.Random]) -> None:
    game, rng = case
    states = []
    while not game.is_over() and len(game.moves) < 300:
        states.append(
            (game.position_key(), game.rows(), tuple(game.legal_moves()), game.to_move,
             game.result, game.scores, game.passed, game.pending_return)
        )  # fmt: skip
        legal = game.legal_moves()
        assert legal and all(game.is_legal(m) and game.why_illegal(m) is None for m in legal)
        game.play(rng.choice(legal))
        check_consistent(game)
    if game.is_over():
        assert game.to_move is None and game.legal_moves() == () and game.phase is Phase.OVER
    for state in reversed(states):
        game.undo()
        assert (
            game.position_key(), game.rows(), tuple(game.legal_moves()), game.to_move,
            game.result, game.scores, game.passed, game.pending_return,
        ) == state  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(games())
def test_records_round_trip(case: tuple[Game, random.Random]) -> None:
    game, rng = case
    for _ in range(rng.randrange(0, 120)):
        if game.is_over():
            break
        game.play(rng.choice(game.legal_moves()))
    again = read_record(write_record(game))
    assert again.rules == game.rules and again.moves == game.moves
    assert again.rows() == game.rows() and again.result == game.result
    assert again.scores == game.scores and write_record(again) == write_record(game)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["classic", "five"]), st.integers(4, 12), st.integers(4, 10), st.integers())
def test_the_fast_drop_game_agrees_with_the_general_model(
    name: str, width: int, height: int, seed: int
) -> None:
    fast = new_game(name, (width + (2 if name == "five" else 0), height))
    rng = random.Random(seed)
    general = Game(fast.rules)  # the one general path, used by every rules value
    while not fast.is_over():
        assert tuple(fast.legal_moves()) == tuple(general.legal_moves())
        move = rng.choice(fast.legal_moves())
        fast.play(move)
        general.play(move)
        assert fast.position_key() == general.position_key()
    assert fast.result == general.result and general.is_over()
    assert fast.winning_cells() == general.winning_cells()


@given(st.sampled_from(list(MoveKind)), st.integers(1, 99))
def test_notation_round_trips(kind: MoveKind, column: int) -> None:
    move = Move(kind, column)
    assert parse_move(str(move)) is move
    assert parse_moves(f" {move}\t{move}\n") == [move, move]
