"""Pop Out: how deep the fast search looks, and how fast the outcome search proves.

On seeded Pop Out 7x6 positions (``bench/solver.py``'s, from the opening
to the late game): the depth the anytime search completes within
``--movetime`` ms of CPU (``search_seconds`` of it, as full strength) and
its positions per CPU second. Then the outcome search from the standard
start and after each of the first ``--plies`` moves of a principal line:
whether it proves the outcome within each budget of ``--budgets`` (seconds
of CPU), and at what depth. Run from the repository root::

    .venv/bin/python bench/popout.py [--positions 12] [--movetime 250]
        [--budgets 0.25,1,60] [--plies 6]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.matches import past
from bench.solver import other_positions
from engine import Game, new_game, rules_named
from engine.solver.fastsearch import FastSearch
from engine.solver.limits import Limits, search_seconds
from engine.solver.outcome import prove

FALLBACK_NODES = 1_000_000


def depths(games: list[Game], movetime: float) -> None:
    """The depth each position's search completes in ``movetime`` CPU seconds."""
    reached, rates = [], []
    for game in games:
        search = FastSearch(game.rules)
        start = time.process_time()
        deadline = start + search_seconds(movetime)
        result = search.search(game, Limits(past(deadline, time.process_time)))
        spent = time.process_time() - start
        reached.append(result.depth)
        rates.append(search.nodes / max(spent, 1e-9))
    print(f"anytime search at {movetime * 1000:.0f} ms of CPU, {len(games)} positions:")
    print(f"  depth reached: {sorted(reached)} (median {sorted(reached)[len(reached) // 2]})")
    print(f"  positions a CPU second: median {sorted(rates)[len(rates) // 2]:,.0f}")


def proofs(budgets: list[float], plies: int) -> None:
    """The outcome search from the start and along its own line."""
    game = new_game(rules_named("popout"))
    for _ply in range(plies + 1):
        line = " ".join(str(m) for m in game.moves) or "(start)"
        for budget in budgets:
            search = FastSearch(game.rules)
            start = time.process_time()
            found = prove(search, game, Limits(past(start + budget, time.process_time)))
            spent = time.process_time() - start
            print(
                f"  {line:24} {budget:6.2f} s: {found.describe():28} "
                f"{search.nodes:>13,} positions, {spent:7.2f} s"
            )
        # unproven: the anytime search's move, within a budget (without one
        # it would deepen until it solved the game)
        fallback = FastSearch(game.rules).search(game, Limits(max_nodes=FALLBACK_NODES))
        game.play(found.move or fallback.move)
        if game.is_over():
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--movetime", type=int, default=250)
    parser.add_argument("--budgets", default="0.25,1,60")
    parser.add_argument("--plies", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("depth", "outcome"))
    args = parser.parse_args()
    if args.only != "outcome":
        depths(other_positions("popout", args.positions, args.seed), args.movetime / 1000)
    if args.only != "depth":
        print("outcome search (Red to move at even plies):")
        proofs([float(b) for b in args.budgets.split(",")], args.plies)


if __name__ == "__main__":
    main()
