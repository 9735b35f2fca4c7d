"""The Classic solver against the C++ reference, and full strength's move times.

Per test set: mean and worst time per position (the exact score, table kept
between positions as the reference solver does), without and with the
opening book, positions searched per second, and the ratio of the mean to
the reference's. Then ``--games`` games at full strength against varied
opponents (every level, both colours): the worst and 99th-percentile time
per move. Then every other game: positions searched per second by the fast
search's compiled core and its pure-Python twin side by side (and by the
search through ``engine.Game`` that boards past 64 bits use), on the same
seeded positions with the same node budget per core. Last, the peak memory.
Run from the repository root::

    .venv/bin/python bench/solver.py [--limit 200] [--hard-limit 10] [--games 100]
    .venv/bin/python bench/solver.py --only other [--positions 12]

The test sets are read from ``../shared/data/connect4-testsets`` beside the
checkout (or ``--testsets DIR``), else from the samples in tests/data.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.matches import past
from engine import RULES_NAMES, Game, new_game, rules_named
from engine.solver.book import Book, packaged_book
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED
from engine.solver.fastsearch import COMPILED as FAST_COMPILED
from engine.solver.fastsearch import FastSearch
from engine.solver.limits import Limits, search_seconds
from engine.solver.opponent import MAX_LEVEL, Opponent
from engine.solver.position import Position
from engine.solver.search import GameSearch

ROOT = Path(__file__).resolve().parent.parent
# name, file, the C++ solver's mean time per position in seconds (the README)
SETS = [
    ("End-Easy", "Test_L3_R1", 10e-6),
    ("Middle-Easy", "Test_L2_R1", 64e-6),
    ("Middle-Medium", "Test_L2_R2", 6.4e-3),
    ("Begin-Easy", "Test_L1_R1", 0.47e-3),
    ("Begin-Medium", "Test_L1_R2", 172e-3),
    ("Begin-Hard", "Test_L1_R3", 9.0),
]


def testsets_folder(given: str | None) -> Path:
    for candidate in (given, ROOT.parent / "shared" / "data" / "connect4-testsets"):
        if candidate and (Path(candidate) / "Test_L1_R3").exists():
            return Path(candidate)
    return ROOT / "tests" / "data" / "connect4-testsets"


def solve_set(
    lines: list[str], core: str, book: Book | None
) -> tuple[float, float, int, float, int]:
    """Mean and worst seconds, nodes, total seconds, wrong answers."""
    solver = ClassicSolver(core=core)  # type: ignore[arg-type]
    times = []
    wrong = 0
    for line in lines:
        moves, expected = line.split()
        position = Position.from_columns(7, 6, [int(c) for c in moves])
        start = time.perf_counter()
        known = book.lookup(position) if book is not None else None
        # a book entry that holds only the outcome does not answer the exact score
        score = known.score if known is not None and known.exact else solver.solve(position)
        times.append(time.perf_counter() - start)
        wrong += score != int(expected)
    total = sum(times)
    return total / len(times), max(times), solver.nodes, total, wrong


def bench_sets(args: argparse.Namespace) -> None:
    folder = testsets_folder(args.testsets)
    book = packaged_book(7, 6)
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"test sets: {folder}; load average {load} on {os.cpu_count()} cores")
    size, depth = (len(book), book.depth) if book else (0, 0)
    print(f"core: {args.core} (compiled: {COMPILED}); book: {size} positions, depth {depth}")
    header = f"{'set':14} {'n':>5} {'mean':>10} {'worst':>10} {'x C++':>7}"
    print(f"{header} {'book mean':>10} {'book worst':>10} {'positions/s':>12} wrong")
    for name, file, reference in SETS:
        lines = (folder / file).read_text().splitlines()
        limit = args.hard_limit if file == "Test_L1_R3" else args.limit
        lines = lines[:limit]
        mean, worst, nodes, total, wrong = solve_set(lines, args.core, None)
        with_book = "-", "-"
        if book is not None:
            book_mean, book_worst, _n, _t, book_wrong = solve_set(lines, args.core, book)
            with_book = fmt(book_mean), fmt(book_worst)
            wrong += book_wrong
        print(
            f"{name:14} {len(lines):5} {fmt(mean):>10} {fmt(worst):>10} "
            f"{mean / reference:7.2f} {with_book[0]:>10} {with_book[1]:>10} "
            f"{nodes / total:12,.0f} {wrong}"
        )


def bench_games(args: argparse.Namespace) -> None:
    """Full strength (book, then solver) against every level, both colours."""
    rules = rules_named("classic")
    strong = Opponent(rules)
    budget = args.movetime / 1000
    times: list[float] = []
    sources: dict[str, int] = {}
    rng = random.Random(args.seed)
    for number in range(args.games):
        level = number % MAX_LEVEL or 1  # 1..9, and a random mover for "10"
        other = Opponent(rules, level=level, seed=number) if number % MAX_LEVEL else None
        strong_colour = number % 2
        game = new_game(rules)
        while not game.is_over():
            if len(game.moves) % 2 == strong_colour:
                deadline = time.perf_counter() + search_seconds(budget)
                start = time.perf_counter()
                stop = Limits(should_stop=past(deadline))
                choice = strong.choose(game, stop)
                times.append(time.perf_counter() - start)
                sources[choice.source] = sources.get(choice.source, 0) + 1
                game.play(choice.move)
            elif other is None:
                game.play(rng.choice(game.legal_moves()))
            else:
                game.play(other.choose(game).move)
    times.sort()
    p99 = times[int(len(times) * 0.99)]
    print(
        f"games: {args.games} (full strength against levels 1-9 and random, both colours), "
        f"{len(times)} moves: mean {fmt(sum(times) / len(times))}, p99 {fmt(p99)}, "
        f"p100 {fmt(times[-1])} (goal 250 ms); moves from {sources}"
    )


def other_positions(name: str, count: int, seed: int) -> list[Game]:
    """Seeded random positions from the opening to the late game."""
    rules = rules_named(name)
    rng = random.Random(f"{seed}/{name}")
    found = []
    longest = 90 if rules.pop10 else 30
    for number in range(count):
        game = new_game(rules)
        plies = 2 + number * longest // max(count, 1)
        while not game.is_over() and len(game.moves) < plies:
            game.play(rng.choice(list(game.legal_moves())))
        while game.is_over():
            game.undo()
        found.append(game)
    return found


def rate(games: list[Game], make: Callable[[], FastSearch | GameSearch], nodes: int) -> float:
    """Positions per CPU second (the machine may be shared) searching each
    game with a fresh search."""
    total_nodes, total_time = 0, 0.0
    for game in games:
        search = make()
        start = time.process_time()
        search.search(game, Limits(max_nodes=nodes))
        total_time += time.process_time() - start
        total_nodes += search.nodes
    return total_nodes / total_time


def bench_other(args: argparse.Namespace) -> None:
    """Every game but Classic: the fast search's two cores and the engine path."""
    print(
        f"other games: {args.positions} positions each; node budget a position: compiled "
        f"{args.fast_nodes:,}, pure and engine {args.slow_nodes:,} (compiled: {FAST_COMPILED})"
    )
    print("positions per CPU second:")
    print(f"{'game':12} {'compiled':>12} {'pure':>10} {'engine':>10} {'x pure':>7}")
    for name in RULES_NAMES:
        if name == "classic":
            continue
        rules = rules_named(name)
        games = other_positions(name, args.positions, args.seed)
        fast = 0.0
        if FAST_COMPILED:
            fast = rate(games, partial(FastSearch, rules, core="compiled"), args.fast_nodes)
        pure = rate(games, partial(FastSearch, rules, core="python"), args.slow_nodes)
        engine = rate(games, partial(GameSearch, rules), args.slow_nodes)
        print(f"{name:12} {fast:12,.0f} {pure:10,.0f} {engine:10,.0f} {fast / pure:7.1f}")


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--testsets", help="folder of the test sets")
    parser.add_argument("--limit", type=int, default=1000, help="positions per set")
    parser.add_argument("--hard-limit", type=int, default=20, help="Begin-Hard positions")
    parser.add_argument("--core", choices=("compiled", "python"), default="compiled")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--movetime", type=int, default=250, help="ms per move in the games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("classic", "other"), help="one part of the bench")
    parser.add_argument("--positions", type=int, default=12, help="per game, other games")
    parser.add_argument("--fast-nodes", type=int, default=1_000_000)
    parser.add_argument("--slow-nodes", type=int, default=20_000)
    args = parser.parse_args()
    if args.only != "other":
        bench_sets(args)
        if args.games:
            bench_games(args)
    if args.only != "classic":
        bench_other(args)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak:.0f} MB")


if __name__ == "__main__":
    main()
