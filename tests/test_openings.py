"""Pop Out 7x6's opening table (engine/solver/openings.py), checked against
the outcome search: node budgets, so every run is the same."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from bench.popout_openings import _account, build, written_with
from engine import Colour, Game, new_game, rules_named
from engine.solver.fastsearch import COMPILED, FastSearch, state_of, to_move
from engine.solver.limits import Limits
from engine.solver.openings import (
    Key,
    canonical,
    in_table_form,
    key,
    mirror,
    mirrored,
    opening_move,
    replies,
    roots,
)
from engine.solver.openings_data import OPENINGS
from engine.solver.outcome import WON, prove
from engine.solver.proven import ProvenPlay
from engine.solver.search import WIN

RULES = rules_named("popout")
BUILDER = Path(__file__).resolve().parent.parent / "bench" / "popout_openings.py"
ENOUGH = 500_000  # bench/popout_openings.py's default: what the table leaves to the search


def game_of(moves: str) -> Game:
    game = new_game(RULES)
    for move in moves.split():
        game.play(move)
    return game


def test_the_table_opens_with_a_move_for_the_start() -> None:
    found = opening_move(RULES, state_of(new_game(RULES)))
    assert found is not None and found[0] in new_game(RULES).legal_moves()


def test_the_table_holds_only_under_the_rules_it_was_proven_for() -> None:
    start = state_of(new_game(RULES))
    assert opening_move(dataclasses.replace(RULES, name="custom"), start) is not None
    for other in (
        dataclasses.replace(RULES, both_lines="opponent"),
        dataclasses.replace(RULES, repetition=3),
        rules_named("classic"),
    ):
        assert opening_move(other, start) is None


def test_a_mirrored_position_gets_the_mirrored_move() -> None:
    left, right = game_of("4 1"), game_of("4 7")
    assert canonical(*state_of(left)[:2])[:2] == canonical(*state_of(right)[:2])[:2]
    found, seen = opening_move(RULES, state_of(left)), opening_move(RULES, state_of(right))
    assert found is not None and seen is not None
    assert seen == (mirrored(found[0]), found[1])
    red, yellow = state_of(left)[:2]
    assert mirror(mirror(red)) == red and mirror(yellow) == state_of(right)[1]


def test_full_strength_plays_the_table_at_any_budget() -> None:
    play = ProvenPlay(FastSearch(RULES, slots=1 << 10))
    chosen = play.choose(new_game(RULES), Limits(max_nodes=1))
    found = opening_move(RULES, state_of(new_game(RULES)))
    assert found is not None
    assert chosen.move == found[0] and chosen.exact and chosen.scores[chosen.move] >= WON


@pytest.mark.slow
@pytest.mark.skipif(not COMPILED, reason="the compiled search core is not installed")
def test_every_entry_wins_against_every_reply() -> None:
    # From the start and each position after two plies, the table's move for
    # the side to move (where the table has none for Red, Yellow's after each
    # of Red's replies, if it has those), then each of the other side's
    # replies: a position the table has again, or one the outcome search
    # proves the same side wins within ENOUGH positions. So, from the leaves
    # back, every entry is a win; and every entry is met on the way (none is
    # dead weight).
    met: set[Key] = set()
    waiting = []
    for root in roots():
        if opening_move(RULES, state_of(root)) is not None:
            waiting.append(root)
        else:  # left out, or Red's loss
            waiting += [r for r in replies(root) if opening_move(RULES, state_of(r)) is not None]
    while waiting:
        game = in_table_form(waiting.pop())  # the image the table was proven on
        state = state_of(game)
        position, _flipped = key(state)
        found = opening_move(RULES, state)
        if found is None:
            proof = prove(FastSearch(RULES), game, Limits(max_nodes=ENOUGH))
            line = " ".join(str(m) for m in game.moves)
            assert proof.value is not None and proof.value >= WON, line
            continue
        if position in met:
            continue
        met.add(position)
        move, plies = found
        assert move in game.legal_moves() and 0 < plies < WIN - WON
        after = game.after(move)
        for reply in after.legal_moves():
            next_game = after.after(reply)
            assert next_game.result in (None, game.to_move)
            if next_game.result is None:
                waiting.append(next_game)
    assert met == {(side, red, yellow) for side, red, yellow, _code, _plies in OPENINGS}


def test_a_rebuild_keeps_the_entries_it_is_given_unsearched() -> None:
    start = in_table_form(new_game(RULES))
    position, _flipped = key(state_of(start))
    entry = next((m, p) for s, r, y, m, p in OPENINGS if (s, r, y) == position)
    # one position a budget: without the kept entry the start's proof fails
    table, edge, unproven = build(1, 1, 1, 1, slots=1 << 10, known={position: entry})
    assert table == {position: entry}
    # every other position (after two plies) is past the table's edge at once
    assert edge and all(len(line.split()) == 2 for line in edge) and unproven == []
    with pytest.raises(SystemExit, match="Red's win not proven"):
        build(1, 1, 1, 1, slots=1 << 10)


def test_a_root_lost_for_red_gives_way_to_yellows_wins() -> None:
    # Yellow's discs in columns 3, 4 and 5 of the bottom row: whatever Red
    # does, 2 or 6 completes four
    lost = game_of("1 3 1 4 7 5")
    # enough=1: no proof is cheap, so every win Yellow has gets an entry
    table, edge, unproven = build(18, 1, 10**6, 10**6, slots=1 << 12, starts=[lost])
    assert edge == [] and unproven == []
    answered = set()
    for reply in replies(lost):
        found = opening_move(RULES, state_of(reply))  # not the shipped table's
        assert found is None
        position, flipped = key(state_of(reply))
        code, plies = table[position]
        move = to_move(code)
        reply.play(mirrored(move) if flipped else move)
        assert reply.result is Colour.YELLOW and plies == 1
        answered.add(position)
    assert set(table) == answered and all(side == 1 for side, _r, _y in table)
    # kept, those entries prove the root lost: one position a budget finds no proof
    assert build(18, 1, 1, 1, slots=1 << 12, known=table, starts=[lost]) == (table, [], [])
    assert build(18, 1, 1, 1, slots=1 << 12, starts=[lost])[2] != []


def test_a_kept_table_names_the_run_it_kept_and_its_own() -> None:
    shipped = _account()  # the options in the shipped table's header
    assert shipped.startswith("--plies ") and shipped.count(",\nthen ") == 3
    assert written_with("--keep", shipped) == f"{shipped},\nthen --keep"


@pytest.mark.parametrize(
    ("arguments", "status", "error"),
    [
        (["--roots", "1 4"], 2, "--roots needs --keep: the other roots' entries come from"),
        (["--keep", "--roots", "1 9"], 1, "--roots: '1 9' is not a position after two plies"),
    ],
)
def test_the_builder_refuses_roots_it_cannot_use(
    arguments: list[str], status: int, error: str
) -> None:
    done = subprocess.run(
        [sys.executable, str(BUILDER), *arguments], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == status and done.stdout == ""
    assert error in done.stderr.splitlines()[-1] and "Traceback" not in done.stderr
