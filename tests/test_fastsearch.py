"""The fast search: its model agrees with engine.Game, its two cores agree.

The model in ``_search.c`` / ``_pysearch.py`` restates the rules of
:mod:`engine.game`; these tests are what allows that: seeded random games of
every preset and several sizes, played move for move through the engine and
both cores (legal moves, positions, results, repetition draws). Then the
searches: the compiled and the pure core give the same scores, moves and
node counts at the same depth and node budget on positions of every game.
"""

from __future__ import annotations

import ast
import dataclasses
import random
import threading
import types
from pathlib import Path
from typing import Any

import pytest

import engine.solver
from engine import Colour, Game, Move, new_game, rules_named
from engine.rules import RULES_NAMES, Rules
from engine.solver import _pysearch
from engine.solver.evaluation import ZUGZWANG
from engine.solver.fastsearch import (
    COMPILED,
    FastSearch,
    fits,
    improved,
    past_of,
    settled,
    state_of,
    to_move,
)
from engine.solver.limits import Limits
from engine.solver.model import model_spec
from engine.solver.opponent import Opponent
from engine.solver.search import WIN, GameSearch, SearchResult

CORES = [_pysearch]
if COMPILED:
    from engine.solver import _search  # type: ignore[attr-defined]

    CORES.append(_search)

needs_compiled = pytest.mark.skipif(not COMPILED, reason="the compiled search core is not built")

GAMES = [name for name in RULES_NAMES if name != "classic"]
SIZES = [
    ("classic", (5, 4)),
    ("popout", (4, 4)),
    ("popout", (5, 5)),
    ("popout", (8, 7)),
    ("pop10", (4, 4)),
    ("pop10", (5, 4)),
    ("pop10", (6, 5)),
    ("five", (7, 5)),
    ("five+popout", (8, 5)),
    ("five+pop10", (7, 4)),
]


def variants() -> list[Rules]:
    """Every preset, some sizes, and the house rules: repetition, both lines."""
    rules = [rules_named(name) for name in RULES_NAMES]
    rules += [rules_named(name, size) for name, size in SIZES]
    rules.append(dataclasses.replace(rules_named("popout"), repetition=3))
    rules.append(dataclasses.replace(rules_named("popout", (4, 4)), repetition=2))
    rules.append(dataclasses.replace(rules_named("popout"), both_lines="opponent"))
    rules.append(dataclasses.replace(rules_named("pop10", (4, 4)), target=3))
    rules.append(dataclasses.replace(rules_named("five+pop10"), repetition=2))
    rules.append(dataclasses.replace(rules_named("popout", (5, 4)), line=3))
    return rules


def rules_id(rules: Rules) -> str:
    extra = f"-rep{rules.repetition}" if rules.repetition else ""
    extra += "-opp" if rules.both_lines == "opponent" else ""
    extra += f"-t{rules.target}" if rules.target != 10 else ""
    extra += f"-k{rules.line}" if rules.line not in (4, 5) else ""
    return f"{rules.name}-{rules.width}x{rules.height}{extra}"


def random_game(rules: Rules, seed: int, plies: int, pops_first: bool = False) -> Game:
    rng = random.Random(seed)
    game = new_game(rules)
    while not game.is_over() and len(game.moves) < plies:
        moves = list(game.legal_moves())
        pops = [m for m in moves if str(m).startswith("p")]
        game.play(rng.choice(pops if pops_first and pops and rng.random() < 0.6 else moves))
    return game


@pytest.mark.parametrize("rules", variants(), ids=rules_id)
@pytest.mark.parametrize("core", CORES, ids=lambda core: core.__name__.rsplit(".", 1)[-1])
def test_the_model_plays_every_game_as_the_engine(rules: Rules, core: object) -> None:
    spec = model_spec(rules)
    for seed in range(25 if core is _pysearch else 60):
        rng = random.Random(seed)
        game = new_game(rules)
        state = state_of(game)
        counts: dict[tuple[int, int, int], int] = {}
        while True:
            legal = {str(m) for m in game.legal_moves()}
            codes = core.moves(spec, state)  # type: ignore[attr-defined]
            assert sorted(str(to_move(c)) for c in codes) == sorted(legal), game.moves
            assert len(codes) == len(set(codes))
            # Pop Out games go round in circles: pops half the time make repeats
            pops = [c for c in codes if c & 32]
            code = rng.choice(pops if pops and rng.random() < 0.5 else codes)
            key = (state[0], state[1], _pysearch.key_extra(state))
            counts[key] = counts.get(key, 0) + 1
            game.play(to_move(code))
            state, result = core.play(spec, state, code)  # type: ignore[attr-defined]
            if result == _pysearch.ONGOING and rules.repetition:
                key = (state[0], state[1], _pysearch.key_extra(state))
                if counts.get(key, 0) + 1 >= rules.repetition:
                    result = _pysearch.DRAW
            expected = {None: -1, "red": 0, "yellow": 1, "draw": 2}[game.result]
            assert result == expected, game.moves
            if game.is_over() or len(game.moves) >= 400:
                break
            assert state == state_of(game), game.moves


@pytest.mark.parametrize("rules", [r for r in variants() if r.repetition], ids=rules_id)
def test_the_repetition_history_is_the_engines(rules: Rules) -> None:
    game = random_game(rules, 3, 60, pops_first=True)
    if game.is_over():
        game.undo()
    seen = {(b0, b1, extra): count for b0, b1, extra, count in past_of(game)}
    state = state_of(game)
    assert seen[(state[0], state[1], _pysearch.key_extra(state))] >= 1
    assert sum(seen.values()) == len(game.moves) + 1


def positions() -> list[tuple[Rules, Game]]:
    found = []
    for rules in variants():
        for seed, plies in ((1, 4), (2, 15), (3, 30), (4, 70)):
            game = random_game(rules, seed, plies, pops_first=bool(seed % 2))
            while game.is_over():
                game.undo()
            found.append((rules, game))
    return found


@needs_compiled
@pytest.mark.parametrize(
    ("rules", "game"), positions(), ids=lambda v: rules_id(v) if isinstance(v, Rules) else ""
)
def test_both_cores_search_alike(rules: Rules, game: Game) -> None:
    for limits, depth in ((Limits(max_nodes=3000), 64), (Limits(), 3)):
        answers: list[object] = []
        for core in ("compiled", "python"):
            search = FastSearch(rules, core=core, slots=1 << 10)
            for all_moves in (False, True):
                result = search.search(game, limits, max_depth=depth, all_moves=all_moves)
                answers.append((result.move, result.scores, result.depth, result.exact))
                answers.append(search.nodes)
        half = len(answers) // 2
        assert answers[:half] == answers[half:]


def test_every_search_judges_with_the_one_evaluation() -> None:
    # the search through engine.Game (the lower levels, boards past 64 bits)
    # once had its own, with other weights and no parity: the levels were
    # tuned in other units than full strength judged in
    for rules, game in positions():
        spec, state = model_spec(rules), state_of(game)
        assert GameSearch(rules).evaluate(game) == _pysearch.evaluate(spec, state), game.moves
        if COMPILED:
            assert _search.evaluate(spec, state) == _pysearch.evaluate(spec, state), game.moves


@pytest.mark.parametrize("core", CORES, ids=lambda core: core.__name__.rsplit(".", 1)[-1])
def test_the_model_travels_by_name(core: Any) -> None:
    # both cores read the model's fields by name, in any order, not by position
    rules = rules_named("five+popout")
    spec, state = model_spec(rules), state_of(random_game(rules, 2, 12))
    fields = dataclasses.asdict(spec)
    shuffled = types.SimpleNamespace(**dict(reversed(fields.items())))
    assert core.moves(shuffled, state) == core.moves(spec, state)
    assert core.evaluate(shuffled, state) == core.evaluate(spec, state)
    with pytest.raises(AttributeError, match="has no attribute"):
        core.moves(tuple(fields.values()), state)


@pytest.mark.parametrize("rules", [rules_named(n) for n in RULES_NAMES], ids=rules_id)
def test_a_games_past_is_public_and_alike_on_both_paths(rules: Rules) -> None:
    # the searches read the positions a game has met through Game's public
    # accessors; the lean drop-only game keeps no snapshots but answers alike
    game = random_game(rules, 4, 30, pops_first=True)
    general = Game(rules)
    for move in game.moves:
        general.play(move)
    assert game.past_positions() == general.past_positions()
    assert len(game.past_positions()) == len(game.moves) + 1
    assert game.past_positions()[-1] == game.position_key()
    assert (game.position_key().red, game.position_key().yellow) == (
        sum(1 << (c - 1) * (rules.height + 1) + r for c in range(1, rules.width + 1)
            for r, disc in enumerate(game.column(c)) if disc is Colour.RED),
        sum(1 << (c - 1) * (rules.height + 1) + r for c in range(1, rules.width + 1)
            for r, disc in enumerate(game.column(c)) if disc is Colour.YELLOW),
    )  # fmt: skip


def test_the_solver_reads_no_private_part_of_a_game() -> None:
    private = []
    for path in Path(engine.solver.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id == "game"
            ):
                private.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert not private


def wins_at_once(game: Game) -> bool:
    """Whether the player to move has a move that wins at once."""
    mover = game.to_move
    for move in game.legal_moves():
        after = game.after(move)
        if after.result == mover:
            return True
    return False


@pytest.mark.parametrize("core", ["python", pytest.param("compiled", marks=needs_compiled)])
@pytest.mark.parametrize("name", [name for name in GAMES if "pop10" not in name])
def test_it_blocks_a_win_and_takes_one(name: str, core: str) -> None:
    rules = rules_named(name)
    game = new_game(rules)
    # Red a disc short of a line in the bottom row (the strip's disc counts)
    columns = rules.playable_columns[: rules.line - 1 - int(rules.strips)]
    for column in columns:
        game.play(str(column))
        if column != columns[-1]:
            game.play(str(column))
    search = FastSearch(rules, core=core, slots=1 << 12)  # type: ignore[arg-type]
    block = search.search(game, Limits(max_nodes=5000)).move
    after = game.after(block)
    assert not wins_at_once(after)
    game.play(str(rules.playable_columns[-1]))
    result = search.search(game, Limits(max_nodes=5000))
    assert result.scores[result.move] == WIN - 1 and result.exact


def test_a_solved_ending_is_exact() -> None:
    rules = rules_named("popout", (4, 4))
    game = random_game(rules, 5, 10)
    while game.is_over():
        game.undo()
    result = FastSearch(rules, core="python", slots=1 << 12).search(game, max_depth=4)
    assert result.depth <= 4
    deep = FastSearch(rules, core="python", slots=1 << 14).search(game, Limits(max_nodes=200_000))
    if deep.exact:
        assert abs(deep.scores[deep.move]) >= WIN // 2 or deep.scores[deep.move] == 0


def test_the_same_seed_gives_the_same_search() -> None:
    rules = rules_named("pop10")
    game = random_game(rules, 9, 50)
    one = FastSearch(rules, core="python", slots=1 << 12).search(game, Limits(max_nodes=2000))
    two = FastSearch(rules, core="python", slots=1 << 12).search(game, Limits(max_nodes=2000))
    assert one == two


@needs_compiled
def test_a_stop_from_another_thread_ends_the_search() -> None:
    rules = rules_named("popout")
    stop = threading.Event()
    calls = 0

    def should_stop() -> bool:
        nonlocal calls
        calls += 1
        if calls == 3:
            stop.set()
        return stop.is_set()

    result = FastSearch(rules).search(new_game(rules), Limits(should_stop=should_stop))
    assert stop.is_set() and result.depth >= 1 and not result.exact


def test_boards_past_64_bits_do_not_fit() -> None:
    assert not fits(rules_named("popout", (12, 10)))
    with pytest.raises(ValueError, match="does not fit"):
        FastSearch(rules_named("popout", (12, 10)))


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


@pytest.mark.parametrize(
    "rules",
    # Pop Out's endings are rarely solved: without repetition a game may never end
    [dataclasses.replace(rules_named("pop10", (4, 4)), target=2), rules_named("five", (7, 4))],
    ids=rules_id,
)
def test_solved_endings_agree_with_the_search_through_the_engine(rules: Rules) -> None:
    compared = 0
    for seed in range(8):
        game = random_game(rules, seed, 14, pops_first=True)
        while game.is_over():
            game.undo()
        budget = Limits(max_nodes=60_000)
        slow = GameSearch(rules).search(game, budget, all_moves=True, solve=True)
        fast = FastSearch(rules, slots=1 << 16).search(game, budget, all_moves=True, solve=True)
        if slow.exact and fast.exact:
            compared += 1
            assert {m: sign(v) for m, v in fast.scores.items()} == {
                m: sign(v) for m, v in slow.scores.items()
            }, game.moves
    assert compared >= 3


@pytest.mark.parametrize("name", GAMES)
def test_full_strength_uses_the_fast_search_where_the_board_fits(name: str) -> None:
    rules = rules_named(name)
    game = random_game(rules, 11, 20)
    while game.is_over():
        game.undo()
    opponent = Opponent(rules, core="python")
    assert opponent.fast is not None and opponent.fast.core_name == "python"
    choice = opponent.choose(game, Limits(max_nodes=3000))
    assert game.is_legal(choice.move) and choice.source == "search"
    assert opponent.fast.nodes > 0
    if COMPILED:
        compiled = Opponent(rules, core="compiled")
        compiled.fast = FastSearch(rules, core="compiled", slots=len(opponent.fast.table) // 24)
        assert compiled.choose(game, Limits(max_nodes=3000)) == choice


def test_a_board_past_64_bits_searches_through_the_engine() -> None:
    rules = rules_named("popout", (12, 10))
    opponent = Opponent(rules)
    assert opponent.fast is None
    choice = opponent.choose(new_game(rules), Limits(max_nodes=300))
    assert choice.move.column in rules.playable_columns


@needs_compiled
def test_a_won_pop_out_game_is_won_not_chased_round_a_cycle() -> None:
    # Yellow wins in 9 here; the table once held true but longer wins round
    # a cycle of pops and drops, and full strength went round it for ever
    rules = rules_named("popout")
    game = new_game(rules)
    for move in ["5", "3", "4", "4", "4", "3", "6", "7", "3"]:
        game.play(move)
    strong, other = Opponent(rules), Opponent(rules, level=9, seed=1)
    while not game.is_over() and len(game.moves) < 60:
        if game.to_move == Colour.YELLOW:
            game.play(strong.choose(game, Limits(max_nodes=100_000)).move)
        else:
            game.play(other.choose(game).move)
    assert game.result == Colour.YELLOW


def test_a_win_counts_as_decided_once_the_iteration_looks_that_far() -> None:
    assert not settled([WIN - 9], depth=2, horizon=0)
    assert settled([WIN - 9], depth=9, horizon=1)
    assert settled([-(WIN - 3)], depth=4, horizon=1)
    assert settled([0], depth=2, horizon=0) and not settled([0], depth=2, horizon=1)


def cells(rules: Rules, *where: tuple[int, int]) -> int:
    """A bitboard of (column, row) cells, both from 0 at the bottom left."""
    return sum(1 << (column * (rules.height + 1) + row) for column, row in where)


@pytest.mark.parametrize("core", CORES, ids=lambda core: core.__name__.rsplit(".", 1)[-1])
def test_a_threat_lasts_on_its_own_rows_only(core: Any) -> None:
    # three in a row with the fourth cell open and not yet playable: on the
    # third row Red's threat holds to the end of a filled grid (zugzwang), on
    # the second it comes to nothing; Yellow's own rows are the even ones
    rules = rules_named("classic")
    spec = model_spec(rules)
    assert spec.parity > 0
    plain = dataclasses.replace(spec, parity=0)

    def bonus(row: int, side: int) -> int:
        three = cells(rules, (0, row), (1, row), (2, row))
        b0, b1 = (three, 0) if side == 0 else (0, three)
        state = (b0, b1, side, 0, -1, 0, 0)
        return int(core.evaluate(spec, state) - core.evaluate(plain, state))

    # the only lasting threat: it holds the zugzwang too
    lasting = (1 + ZUGZWANG) * spec.parity
    assert bonus(2, side=0) == lasting and bonus(1, side=0) == 0
    assert bonus(1, side=1) == lasting and bonus(2, side=1) == 0


@pytest.mark.parametrize("name", ["popout", "pop10", "five+popout"])
def test_pops_break_the_parity(name: str) -> None:
    assert model_spec(rules_named(name)).parity == 0
    assert model_spec(rules_named("five")).parity > 0
    assert model_spec(rules_named("five", (9, 5))).parity == 0  # odd columns: no zugzwang rule


def result_of(scores: dict[int, int], best: int) -> SearchResult:
    return SearchResult(to_move(best), {to_move(m): v for m, v in scores.items()}, 5, False, 9)


def test_a_stopped_iteration_that_refutes_the_move_changes_it() -> None:
    before = result_of({3: 40, 2: 10, 4: 5}, best=3)
    # deeper, the old best (tried first) fell to -200 and the next move holds 30
    after = improved(before, [3, 2, 4], [-200, 30], depth=6)
    assert after.move == to_move(2) and after.scores[to_move(2)] == 30 and not after.exact
    assert improved(before, [3, 2, 4], [50, 30], depth=6) == before  # the old move still best
    assert improved(before, [3, 2, 4], [-200], depth=6) == before  # nothing to compare with
    # a win claimed from beyond the iteration's depth (the table, round a cycle) is not taken
    assert improved(before, [3, 2, 4], [-200, WIN - 9], depth=6) == before
    assert improved(before, [3, 2, 4], [-200, WIN - 5], depth=6).move == to_move(2)


@pytest.mark.parametrize("core", ["python", pytest.param("compiled", marks=needs_compiled)])
def test_a_circle_back_to_the_games_past_is_judged_a_draw(core: str) -> None:
    # after 4 3 5 6 p5, Yellow's p6 brings back the position after 4 3: no
    # rule ends the game there, but going round makes no progress
    rules = rules_named("popout")
    game = new_game(rules)
    for move in ["4", "3", "5", "6", "p5"]:
        game.play(move)
    back, other = Move.pop(6), Move.drop(3)
    for depth in (1, 3):
        search = FastSearch(rules, core=core, slots=1 << 12)  # type: ignore[arg-type]
        result = search.search(game, max_depth=depth, all_moves=True)
        assert result.scores[back] == 0 and result.scores[other] != 0 and not result.exact
    # the judgement, not the rule: with the repetition rule its own count decides
    assert model_spec(rules).cycles
    assert not model_spec(dataclasses.replace(rules, repetition=3)).cycles
    assert not model_spec(rules_named("five")).cycles  # no pops: no circles


@pytest.mark.parametrize("core", CORES, ids=lambda core: core.__name__.rsplit(".", 1)[-1])
def test_the_lowest_lasting_threat_in_a_column_decides_it(core: Any) -> None:
    # 5-in-a-Row as it ended in a game full strength lost as Red: its threat
    # on the third row of column 4 counted, but Yellow's on the second row,
    # below it, was what the filled grid gave, and Red had to drop under it
    rules = rules_named("five")
    spec = model_spec(rules)
    lasting = (1 + ZUGZWANG) * spec.parity
    game = new_game(rules)
    record = "5 5 5 3 5 5 5 3 3 3 3 8 8 8 7 7 7 8 8 8 3 7 6 6 6 7 7 6 2 2 2 2 2 6 6 2"
    for move in record.split():
        game.play(move)
    state = state_of(game)  # Red to move: column 4 is the only one left
    plain = dataclasses.replace(spec, parity=0)
    judged = core.evaluate(spec, state) - core.evaluate(plain, state)
    assert judged == -lasting
    # without Yellow's discs that made the threat below, the column is Red's
    yellow = state[1] & ~cells(rules, (0, 1), (1, 1), (2, 1))
    without = (state[0], yellow, 0, 0, -1, 0, 0)
    assert core.evaluate(spec, without) - core.evaluate(plain, without) == lasting
