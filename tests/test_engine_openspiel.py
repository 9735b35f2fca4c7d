"""Classic against an independent implementation: OpenSpiel's connect_four."""

from __future__ import annotations

import random

import pytest

from engine import Move, new_game

pyspiel = pytest.importorskip("pyspiel")

GAMES = 10_000


def test_classic_matches_openspiel_move_by_move() -> None:
    spiel_game = pyspiel.load_game("connect_four")
    rng = random.Random(20240601)
    outcomes = {"red": 0, "yellow": 0, "draw": 0}
    for number in range(GAMES):
        ours, theirs = new_game("classic"), spiel_game.new_initial_state()
        while True:
            legal = [m.column - 1 for m in ours.legal_moves()]
            assert legal == sorted(theirs.legal_actions()), f"game {number}, {ours.moves}"
            assert ours.is_over() == theirs.is_terminal()
            if ours.is_over():
                break
            action = rng.choice(legal)
            ours.play(Move.drop(action + 1))
            theirs.apply_action(action)
        red_return = theirs.returns()[0]
        expected = "draw" if red_return == 0 else "red" if red_return > 0 else "yellow"
        assert str(ours.result) == expected, f"game {number}, {ours.moves}"
        # OpenSpiel prints rows top first with x for the first player (Red)
        board = str(theirs).replace("x", "R").replace("o", "Y").split()
        assert list(ours.rows()) == board
        outcomes[expected] += 1
    assert all(outcomes.values())  # every kind of ending was compared
