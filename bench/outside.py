"""Full strength outside the book: does the move it finds in time keep the result?

Positions a person sets up, hints and ``popref bestmove`` are rarely in the
book, so the move comes from what the solver finishes within the budget. This
plays full strength (a fresh opponent a position, as after a restart) at
``--movetime`` ms on ``--positions`` positions sampled (seeded) from the
Connect Four test sets, and on the random openings of issue 24 (``2 1``,
``6 7``, ``3 7``: wins for the mover; ``5 4``: a draw), then scores each move
with the solver without limits: it *changes the result* when the position's
outcome (win, draw, loss) is lost, and is *short* when its exact score is
below the position's (the test set's). An opening is checked for its outcome
only (its exact scores would cost hours). The unlimited solves are kept in
``--cache`` (outside the repository) so a rerun costs only the new moves.
Run from the repository root; ``--clock cpu`` gives each move its budget in
CPU time, as on an idle core::

    .venv/bin/python bench/outside.py [--movetime 250] [--positions 120] [--seed 1]
                                      [--clock cpu|wall] [--sets DIR] [--cache FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.matches import CLOCKS, past
from engine import Game, new_game, rules_named
from engine.solver.classic import COMPILED, ClassicSolver, Position
from engine.solver.limits import Limits, search_seconds
from engine.solver.opponent import Opponent

OPENINGS = ["21", "67", "37", "54"]  # issue 24: full strength lost each at 250 ms and 1 s
SETS = ["Test_L1_R1", "Test_L1_R2", "Test_L1_R3", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1"]
SHARED_SETS = Path("/work/shared/data/connect4-testsets")
SAMPLE_SETS = Path(__file__).resolve().parent.parent / "tests/data/connect4-testsets"
CACHE = Path.home() / ".cache/popref/outside-scores.json"


@dataclass(frozen=True)
class Case:
    """A position (column digits) and its exact score, None where only its outcome is known."""

    moves: str
    score: int | None
    origin: str


@dataclass(frozen=True)
class Verdict:
    """Full strength's move in one case and what it is worth."""

    case: Case
    column: int
    source: str
    exact: bool
    depth: int
    outcome: int  # the position's, for the mover: 1, 0, -1
    after: int  # the move's outcome
    short: bool  # below the position's exact score


class Scores:
    """Unlimited solves of positions, kept in a JSON file between runs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.solver = ClassicSolver()
        self.known: dict[str, int] = json.loads(path.read_text()) if path.exists() else {}

    def _cached(self, kind: str, moves: str, solve: Callable[[], int]) -> int:
        key = f"{kind}:{moves}"
        if key not in self.known:
            self.known[key] = int(solve())
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists():  # another run may have added solves meanwhile
                self.known = {**json.loads(self.path.read_text()), **self.known}
            spare = self.path.with_suffix(f".{os.getpid()}")
            spare.write_text(json.dumps(self.known, sort_keys=True))
            spare.replace(self.path)  # at once: another run never reads half a file
        return self.known[key]

    def outcome(self, moves: str) -> int:
        """The outcome of the position for its mover."""
        position = _position(moves)
        return self._cached("outcome", moves, lambda: self.solver.outcome(position))

    def reaches(self, moves: str, score: int) -> int:
        """1 if the position's exact score for its mover is ``score`` or more, else 0."""
        position = _position(moves)
        return self._cached(
            f"at_least{score}", moves, lambda: int(self.solver.at_least(position, score))
        )


def _position(moves: str) -> Position:
    return Position.from_columns(7, 6, [int(c) for c in moves])


def cases(sets: Path, count: int, seed: int) -> list[Case]:
    """``count`` positions sampled evenly from the sets, then the openings."""
    rng = random.Random(seed)
    found = [name for name in SETS if (sets / name).exists()]
    chosen: list[Case] = []
    for index, name in enumerate(found):
        lines = (sets / name).read_text().split("\n")
        rows = [line.split() for line in lines if line.strip()]
        share = count // len(found) + (index < count % len(found))
        for moves, score in rng.sample(rows, min(share, len(rows))):
            chosen.append(Case(moves, int(score), name))
    return chosen + [Case(moves, None, "opening") for moves in OPENINGS]


def judge(case: Case, column: int, scores: Scores) -> tuple[int, int, bool]:
    """The position's outcome, the move's outcome, and whether it is short of the best."""
    position = _position(case.moves)
    outcome = scores.outcome(case.moves) if case.score is None else _sign(case.score)
    if position.wins_with(column):
        return outcome, 1, False
    child = case.moves + str(column)
    if position.moves + 1 == 42:
        return outcome, 0, case.score is not None and case.score > 0
    after = -scores.outcome(child)
    if case.score is None:
        return outcome, after, False
    # short: the child's score is above -best, i.e. at least -best + 1
    return outcome, after, bool(scores.reaches(child, -case.score + 1))


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def play(case: Case, movetime: float, clock_name: str) -> tuple[int, str, bool, int, float]:
    """Full strength's move, from a fresh opponent; its source, exactness, depth, CPU time."""
    rules = rules_named("classic")
    game: Game = new_game(rules)
    for digit in case.moves:
        game.play(digit)
    opponent = Opponent(rules)
    clock = CLOCKS[clock_name]
    cpu = time.process_time()
    stop = past(clock() + search_seconds(movetime), clock)
    choice = opponent.choose(game, Limits(should_stop=stop))
    return choice.move.column, choice.source, choice.exact, choice.depth, time.process_time() - cpu


def report(verdicts: list[Verdict], movetime: int) -> None:
    changed = [v for v in verdicts if v.after < v.outcome]
    scored = [v for v in verdicts if v.case.score is not None]
    short = [v for v in scored if v.short]
    sources = Counter(v.source for v in verdicts)
    print(f"{len(verdicts)} positions at {movetime} ms: moves from "
          + ", ".join(f"{k} {n}" for k, n in sorted(sources.items())))  # fmt: skip
    print(f"  changed the result: {len(changed)}; short of the best score: {len(short)} of "
          f"{len(scored)} ({100 * len(short) / max(1, len(scored)):.1f}%)")  # fmt: skip
    by_set = Counter(v.case.origin for v in short)
    if by_set:
        print("  short by set: " + ", ".join(f"{k} {n}" for k, n in sorted(by_set.items())))
    for v in changed:
        print(f"  CHANGED: '{v.case.moves}' ({v.case.origin}) column {v.column}: outcome "
              f"{v.outcome} -> {v.after} (source {v.source}, depth {v.depth}, "
              f"exact {v.exact})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=int, default=250, help="ms a move (the deadline)")
    parser.add_argument("--positions", type=int, default=120, help="sampled from the test sets")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="the clock of the budget (cpu: as on an idle core)")  # fmt: skip
    default_sets = SHARED_SETS if SHARED_SETS.exists() else SAMPLE_SETS
    parser.add_argument("--sets", type=Path, default=default_sets, help="the test sets' folder")
    parser.add_argument("--cache", type=Path, default=CACHE, help="the unlimited solves")
    args = parser.parse_args()
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"compiled core: {COMPILED}; load average {load} on {os.cpu_count()} cores; "
          f"sets {args.sets}")  # fmt: skip
    scores = Scores(args.cache)
    verdicts = []
    worst = 0.0
    for number, case in enumerate(cases(args.sets, args.positions, args.seed), 1):
        column, source, exact, depth, cpu = play(case, args.movetime / 1000, args.clock)
        worst = max(worst, cpu)
        outcome, after, short = judge(case, column, scores)
        verdicts.append(Verdict(case, column, source, exact, depth, outcome, after, short))
        if number % 20 == 0:
            print(f"... {number} positions", file=sys.stderr, flush=True)
    report(verdicts, args.movetime)
    print(f"  worst CPU time of a move: {worst * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
