"""Full strength outside the book: does the move it finds in time keep the result?

Positions a person sets up, hints and ``popref bestmove`` are rarely in the
book, so the move comes from what the solver finishes within the budget. This
plays full strength (a fresh opponent a position, as after a restart) on
``--positions`` positions sampled (seeded) from the Connect Four test sets,
and on the random openings of issue 24 (``2 1``, ``6 7``, ``3 7``: wins for
the mover; ``5 4``: a draw), twice: at ``--movetime`` ms and at
``--prove-time`` ms, the reference. Each move at ``--movetime`` is scored
with the solver without limits. The two figures of issue 24:

(a) moves at ``--movetime`` that *change the result* (the position's outcome,
    win, draw or loss, is lost) among the positions where the reference
    proves a move that keeps the result; the positions it does not prove do
    not count against (a) and are listed;
(b) the share of moves *short of the best score* (the test set's exact score)
    at ``--movetime``. An opening is checked for its outcome only (its exact
    scores would cost hours).

``--against CHECKOUT`` runs another checkout's full strength beside this one
on the same positions, in turn, each build in a process of its own
(``bench/outsideplayer.py``), so one run compares them under one load.
Make the old checkout with ``git archive REV | tar -x -C DIR`` and copy
the compiled cores (``engine/solver/*.so``) of that revision into it.
The unlimited solves are kept in ``--cache`` (outside the repository) so a
rerun costs only the new moves. Run from the repository root; ``--clock
cpu`` gives each move its budget in CPU time, as on an idle core::

    nice .venv/bin/python bench/outside.py [--movetime 250] [--prove-time 1000]
        [--positions 60] [--seed 1] [--clock cpu|wall] [--sets DIR] [--cache FILE]
        [--against CHECKOUT] [--each] [--helper]

``--helper`` gives this checkout's full strength its second thread
(``controller/computer/helper.py``); with ``--against .`` the same checkout
without it runs beside. It needs ``--clock wall`` and a core to spare.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.outsideplayer import clock_named
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED
from engine.solver.position import Position

ROOT = Path(__file__).resolve().parent.parent

SPEED_POSITION = "277215132"  # Test_L1_R3: won; its outcome solve is about 4.1 M positions
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
class Played:
    """One build's move in one position at one budget, as its process answered."""

    column: int
    source: str
    proven: bool  # the build says the move keeps the position's outcome
    exact: bool
    depth: int
    cpu: float  # seconds

    @classmethod
    def parse(cls, answer: str) -> Played:
        column, source, proven, exact, depth, cpu = answer.split()
        return cls(int(column), source, proven == "1", exact == "1", int(depth), float(cpu) / 1e3)


@dataclass(frozen=True)
class Verdict:
    """One build's moves in one case and what the quick one is worth."""

    case: Case
    quick: Played  # at --movetime
    reference: Played  # at --prove-time
    outcome: int  # the position's, for the mover: 1, 0, -1
    after: int  # the quick move's outcome
    short: bool  # the quick move is below the position's exact score

    @property
    def changed(self) -> bool:
        return self.after < self.outcome


class Player:
    """Full strength of one checkout in its own process (``bench/outsideplayer.py``)."""

    def __init__(self, checkout: Path, clock: str, helper: bool = False) -> None:
        script = Path(__file__).resolve().parent / "outsideplayer.py"
        self.name = f"{checkout} with the helper" if helper else str(checkout)
        self.process = subprocess.Popen(
            [sys.executable, str(script), str(checkout), clock, *(["helper"] if helper else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self._read()  # "ok": imported, so no import time is counted in a move

    def _read(self) -> str:
        assert self.process.stdout is not None
        answer = self.process.stdout.readline().strip()
        if not answer:
            raise SystemExit(f"outside.py: {self.name}: no answer (see above)")
        return answer

    def play(self, moves: str, ms: int) -> Played:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{ms} {moves}\n")
        self.process.stdin.flush()
        return Played.parse(self._read())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        self.process.wait()


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


def solver_speed(clock: Callable[[], float]) -> float:
    """Solver positions a second on ``clock`` (millions): the outcome of
    one fixed Begin-Hard position (4.1 M positions) from a fresh table.
    The figures at a fixed ``--movetime`` follow the host's speed (a miss
    in one run is a position that needs a little more than the budget
    bought): this says what it bought in this run, so runs compare."""
    solver = ClassicSolver()
    start = clock()
    solver.outcome_move(_position(SPEED_POSITION))
    return solver.nodes / max(clock() - start, 1e-9) / 1e6


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def report(name: str, verdicts: list[Verdict], movetime: int, prove_time: int) -> None:
    """The two figures of issue 24 for one build, and what lies behind them."""
    proven = [v for v in verdicts if v.reference.proven]
    unproven = [v for v in verdicts if not v.reference.proven]
    changed = [v for v in proven if v.changed]
    scored = [v for v in verdicts if v.case.score is not None]
    short = [v for v in scored if v.short]
    sources = Counter(v.quick.source for v in verdicts)
    print(f"{name}: {len(verdicts)} positions at {movetime} ms, moves from "
          + ", ".join(f"{k} {n}" for k, n in sorted(sources.items())))  # fmt: skip
    print(f"  (a) changed the result at {movetime} ms where {prove_time} ms proves a "
          f"result-keeping move: {len(changed)} of {len(proven)}")  # fmt: skip
    print(f"  (b) short of the best score at {movetime} ms: {len(short)} of {len(scored)} "
          f"({100 * len(short) / max(1, len(scored)):.1f}%)")  # fmt: skip
    by_set = Counter(v.case.origin for v in short)
    if by_set:
        print("      short by set: " + ", ".join(f"{k} {n}" for k, n in sorted(by_set.items())))
    for v in changed:
        print(f"  CHANGED: {_describe(v)}")
    for v in unproven:
        print(f"  not proven at {prove_time} ms: {_describe(v)}")
    worst = max((v.quick.cpu for v in verdicts), default=0.0)
    print(f"  worst CPU time of a move at {movetime} ms: {worst * 1e3:.1f} ms")


def _describe(v: Verdict) -> str:
    return (
        f"'{v.case.moves}' ({v.case.origin}) column {v.quick.column}: outcome {v.outcome} -> "
        f"{v.after}{' short' if v.short else ''} (source {v.quick.source}, depth "
        f"{v.quick.depth}); the reference plays {v.reference.column} ({v.reference.source})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=int, default=250, help="ms a move (the deadline)")
    parser.add_argument("--prove-time", type=int, default=1000,
                        help="ms a move of the reference search")  # fmt: skip
    parser.add_argument("--positions", type=int, default=60, help="sampled from the test sets")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                        help="the clock of the budget (cpu: as on an idle core)")  # fmt: skip
    default_sets = SHARED_SETS if SHARED_SETS.exists() else SAMPLE_SETS
    parser.add_argument("--sets", type=Path, default=default_sets, help="the test sets' folder")
    parser.add_argument("--cache", type=Path, default=CACHE, help="the unlimited solves")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="another checkout to run beside this one")  # fmt: skip
    parser.add_argument("--each", action="store_true", help="a line per position and build")
    parser.add_argument("--helper", action="store_true",
                        help="this checkout's solver with its second thread")  # fmt: skip
    args = parser.parse_args()
    if args.helper and args.clock != "wall":
        parser.error("--helper needs --clock wall: its second thread spends CPU time twice")
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"compiled core: {COMPILED}; load average {load} on {os.cpu_count()} cores; "
          f"sets {args.sets}; clock {args.clock}")  # fmt: skip
    speed = solver_speed(clock_named(args.clock))
    print(f"solver speed: {speed:.1f} M positions a second; {args.movetime} ms buys about "
          f"{speed * args.movetime / 1000:.1f} M, {args.prove_time} ms "
          f"{speed * args.prove_time / 1000:.1f} M")  # fmt: skip
    scores = Scores(args.cache)
    players = [Player(ROOT, args.clock, args.helper)]
    if args.against is not None:
        players.append(Player(args.against.resolve(), args.clock))
    verdicts: dict[str, list[Verdict]] = {p.name: [] for p in players}
    for number, case in enumerate(cases(args.sets, args.positions, args.seed), 1):
        for player in players:  # in turn, so every build meets the same load
            quick = player.play(case.moves, args.movetime)
            reference = player.play(case.moves, args.prove_time)
            outcome, after, short = judge(case, quick.column, scores)
            verdict = Verdict(case, quick, reference, outcome, after, short)
            verdicts[player.name].append(verdict)
            if args.each:
                print(f"  {player.name}: {_describe(verdict)}, reference proven "
                      f"{reference.proven}", flush=True)  # fmt: skip
        if number % 20 == 0:
            print(f"... {number} positions", file=sys.stderr, flush=True)
    for player in players:
        player.close()
        report(player.name, verdicts[player.name], args.movetime, args.prove_time)
    if len(players) > 1:  # a faster build's reference proves more: (a) on the same positions too
        common = {v.case.moves for vs in verdicts.values() for v in vs if v.reference.proven}
        print(f"(a) where any build's {args.prove_time} ms proves a result-keeping move "
              f"({len(common)} positions):")  # fmt: skip
        for name, found in verdicts.items():
            changed = [v.case.moves for v in found if v.case.moves in common and v.changed]
            listed = f" ({', '.join(changed)})" if changed else ""
            print(f"  {name}: {len(changed)} changed{listed}")
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"load average at the end {load}")


if __name__ == "__main__":
    main()
