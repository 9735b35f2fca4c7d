"""Full strength in Classic 7x6: the time of every move, and that it keeps the value.

Plays ``--games`` seeded games at full strength (book, then the exact
solver, within ``--movetime`` ms a move) against varied opponents: a random
mover, the simple opponent of bench/matches.py (wins, blocks, else a random
safe move), and the computer's own levels 1-9; full strength plays Red in
even games and Yellow in odd ones. It prints the time per move (p50, p99,
p100, of the wall time and of the CPU time, which is what an idle core
would take; goal: p100 within 250 ms on this machine), where the moves
came from (book, solver, outcome, search) with their worst times, the
slowest moves, and then checks the moves offline with the exact solver
(no clock): every
move must keep the position's outcome (win/draw/loss), and a move that
claims an exact score must have it. Moves from ply ``--check-from`` on are
all checked, exact scores too; earlier ones (slow to solve) for their
outcome on a seeded sample of ``--check``. Run from the repository root,
best on an idle machine; on a busy one ``--clock cpu`` gives each move its
budget in CPU time, as an idle core would::

    .venv/bin/python bench/movetime.py [--games 200] [--movetime 250] [--check 60]
                                       [--clock wall|cpu]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.matches import CLOCKS, past, simple_move
from engine import Game, Move, new_game, rules_named
from engine.solver.book import packaged_book
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED
from engine.solver.limits import Limits, search_seconds
from engine.solver.opponent import MAX_LEVEL, Opponent
from engine.solver.position import Position

GOAL = 0.250  # seconds: every move of a game on this machine (issue 12)
OPPONENTS = ["random", "simple", *(f"level {n}" for n in range(1, MAX_LEVEL))]


@dataclass
class Played:
    """One move of full strength: where, how long, what it claimed."""

    moves: str  # the position before it, as column digits
    ply: int
    seconds: float
    cpu: float  # the process's CPU seconds: the wall time on an idle core
    source: str
    column: int
    score: int
    exact: bool
    opponent: str


def other_player(name: str, seed: int) -> Callable[[Game], Move]:
    """The move function of an opponent, seeded."""
    rng = random.Random(seed)
    if name == "random":
        return lambda game: rng.choice(list(game.legal_moves()))
    if name == "simple":
        return lambda game: simple_move(game, rng)
    level = Opponent(rules_named("classic"), int(name.split()[1]), seed)
    return lambda game: level.choose(game).move


def play(number: int, seed: int, movetime: float, clock: Callable[[], float]) -> list[Played]:
    """One game; full strength's moves."""
    rules = rules_named("classic")
    name = OPPONENTS[number // 2 % len(OPPONENTS)]
    other = other_player(name, seed * 100_003 + number)
    strong = Opponent(rules)  # one per game, as the referee keeps it
    strong_turn = number % 2  # 0: Red
    game = new_game(rules)
    played = []
    while not game.is_over():
        if len(game.moves) % 2 != strong_turn:
            game.play(other(game))
            continue
        before = "".join(str(m.column) for m in game.moves)
        start, cpu = time.perf_counter(), time.process_time()
        stop = past(clock() + search_seconds(movetime), clock)
        choice = strong.choose(game, Limits(should_stop=stop))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        score = choice.scores.get(choice.move, 0)
        move = choice.move
        played.append(
            Played(before, len(game.moves), seconds, cpu, choice.source, move.column, score,
                   choice.exact, name)
        )  # fmt: skip
        game.play(choice.move)
    return played


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def report_times(played: list[Played], games: int, movetime: float) -> None:
    print(f"{games} games, {len(played)} moves at full strength ({movetime * 1e3:.0f} ms a move)")
    for label, times in (("wall", [p.seconds for p in played]), ("cpu", [p.cpu for p in played])):
        over = sum(t > GOAL for t in times)
        print(f"  {label:4} p50 {ms(percentile(times, 0.5))}, p99 {ms(percentile(times, 0.99))}, "
              f"p100 {ms(max(times))}; over {GOAL * 1e3:.0f} ms: {over}")  # fmt: skip
    for source in ("book", "solver", "outcome", "search"):
        mine = [p for p in played if p.source == source]
        if mine:
            worst = max(mine, key=lambda p: p.seconds)
            p99 = percentile([p.seconds for p in mine], 0.99)
            print(f"  {source:8} {len(mine):6} moves, p99 {ms(p99)}, "
                  f"max {ms(worst.seconds)} (ply {worst.ply})")  # fmt: skip
    by_ply: dict[int, list[float]] = {}
    for p in played:
        by_ply.setdefault(p.ply, []).append(p.seconds)
    worst_plies = ", ".join(f"{ply}: {ms(max(t))}" for ply, t in sorted(by_ply.items()) if ply < 20)
    print(f"  worst per ply: {worst_plies}")
    print("  slowest moves:")
    for p in sorted(played, key=lambda p: -p.seconds)[:8]:
        print(
            f"    {ms(p.seconds):>9} (cpu {ms(p.cpu):>9}) ply {p.ply:2} {p.source:8} "
            f"vs {p.opponent:8} after '{p.moves}'"
        )


def check(played: list[Played], sample: int, check_from: int, seed: int) -> None:
    """Every checked move keeps the outcome; exact claims hold."""
    solver = ClassicSolver()
    early = [p for p in played if p.ply < check_from]
    chosen = [p for p in played if p.ply >= check_from]
    chosen += random.Random(seed).sample(early, min(sample, len(early)))
    unique = {(p.moves, p.column): p for p in chosen}
    kept = exact_claims = exact_kept = 0
    started = time.perf_counter()
    for p in unique.values():
        position = Position.from_columns(7, 6, [int(c) for c in p.moves])
        outcome = solver.outcome(position)
        if position.wins_with(p.column):
            after_outcome, after_score = 1, solver.win_score(position)
        else:
            child = position.play(p.column)
            if child.moves == 42:
                after_outcome = after_score = 0
            else:
                after_outcome = -solver.outcome(child)
                # the exact score only where it is cheap: an early one can take minutes
                after_score = -solver.solve(child) if p.exact and p.ply >= check_from else 0
        kept += after_outcome == outcome
        if after_outcome != outcome:
            print(f"  LOST VALUE: after '{p.moves}' column {p.column} ({p.source})")
        if p.exact and p.source in ("book", "solver") and p.ply >= check_from:
            exact_claims += 1
            exact_kept += after_score == p.score
            if after_score != p.score:
                print(f"  WRONG SCORE: after '{p.moves}' column {p.column}: {after_score} "
                      f"not {p.score} ({p.source})")  # fmt: skip
    print(
        f"checked {len(unique)} distinct moves (all from ply {check_from}, {sample} sampled "
        f"before, for the outcome only) in {time.perf_counter() - started:.0f} s: the outcome "
        f"kept in {kept}/{len(unique)}, the exact score in {exact_kept}/{exact_claims} that "
        "claim one"
    )


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--movetime", type=int, default=250, help="ms a move (the deadline)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", type=int, default=60, help="early moves checked (sample)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="the clock of the budget (cpu: as on an idle core)")  # fmt: skip
    parser.add_argument("--check-from", type=int, default=14, help="check every move from ply")
    args = parser.parse_args()
    book = packaged_book(7, 6)
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    size, depth = (len(book), book.depth) if book else (0, 0)
    print(f"compiled core: {COMPILED}; book: {size} positions, {depth} plies complete; "
          f"load average {load} on {os.cpu_count()} cores")  # fmt: skip
    played: list[Played] = []
    for number in range(args.games):
        clock = CLOCKS[args.clock]
        played += play(number, args.seed, args.movetime / 1000, clock)
        if (number + 1) % 10 == 0:
            print(f"... {number + 1} games", file=sys.stderr, flush=True)
    report_times(played, args.games, args.movetime / 1000)
    if args.check or args.check_from < 42:
        check(played, args.check, args.check_from, args.seed)


if __name__ == "__main__":
    main()
