"""How sharply the lower levels choose, on sample positions of every game.

Each level 1-9 searches a fixed depth and node budget and picks by a
softmax over its moves' scores at a temperature in the evaluation's units
(``LEVELS`` in ``engine/solver/opponent.py``). On ``--positions`` seeded
positions per game (random moves from the start, 2 to 40 plies), this
prints per level the mean chance that it plays its best-scored move.
``--save FILE`` writes the scores; ``--like FILE`` also prints,
for each level, the temperature that gives on these scores the mean chance
of the best move that FILE's scores gave at FILE's temperatures: how the
levels were re-tuned when the evaluation changed (run the script in the old
checkout with ``--save``, then in the new one with ``--like``). Run from the
repository root::

    .venv/bin/python bench/levels.py [--positions 40] [--save FILE] [--like FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import RULES_NAMES, Game, new_game, rules_named
from engine.solver.limits import Limits
from engine.solver.opponent import LEVELS
from engine.solver.search import GameSearch

Scores = dict[str, list[list[int]]]  # level -> per position, its moves' scores


def positions(count: int) -> list[Game]:
    """``count`` seeded positions of every game, going on."""
    found: list[Game] = []
    for name in RULES_NAMES:
        rng = random.Random(f"levels/{name}")
        while sum(game.rules.name == name for game in found) < count:
            game = new_game(rules_named(name))
            for _ in range(rng.randrange(2, 41)):
                if game.is_over():
                    break
                game.play(rng.choice(list(game.legal_moves())))
            if not game.is_over():
                found.append(game)
    return found


def level_scores(games: list[Game]) -> Scores:
    """Every level's scores of every move, as it searches them when it chooses."""
    scores: Scores = {}
    for level, (depth, _temperature, nodes) in LEVELS.items():
        rows = []
        for game in games:
            search = GameSearch(game.rules)  # an empty table, as a level's choice has
            result = search.search(game, Limits(max_nodes=nodes), max_depth=depth, all_moves=True)
            rows.append([result.scores[move] for move in game.legal_moves()])
        scores[str(level)] = rows
    return scores


def chances(row: list[int], temperature: float) -> list[float]:
    best = max(row)
    weights = [math.exp((value - best) / temperature) for value in row]
    total = sum(weights)
    return [weight / total for weight in weights]


def sharpness(rows: list[list[int]], temperature: float) -> float:
    """The mean chance of the best-scored move."""
    total = 0.0
    for row in rows:
        top = max(row)
        total += sum(c for v, c in zip(row, chances(row, temperature), strict=True) if v == top)
    return total / len(rows)


def matching(rows: list[list[int]], wanted: float) -> float:
    """The temperature whose mean chance of the best move on ``rows`` is ``wanted``."""
    low, high = 0.01, 10_000.0
    for _ in range(60):  # the chance falls as the temperature rises
        middle = math.sqrt(low * high)
        if sharpness(rows, middle) > wanted:
            low = middle
        else:
            high = middle
    return math.sqrt(low * high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40, help="positions per game")
    parser.add_argument("--save", metavar="FILE", help="write the scores and temperatures")
    parser.add_argument("--like", metavar="FILE", help="match the sharpness of a saved run")
    args = parser.parse_args()
    games = positions(args.positions)
    scores = level_scores(games)
    old = json.loads(Path(args.like).read_text()) if args.like else None
    print(f"{len(games)} positions ({args.positions} a game); chances are means over them")
    for level, (depth, temperature, nodes) in LEVELS.items():
        rows = scores[str(level)]
        line = (
            f"level {level}: depth {depth}, {nodes:5} nodes, temperature {temperature:6.2f}: "
            f"best move {sharpness(rows, temperature):6.1%}"
        )
        if old is not None:
            was = sharpness(old["scores"][str(level)], old["temperatures"][str(level)])
            line += f"; the saved run's {was:6.1%} here at temperature {matching(rows, was):.2f}"
        print(line, flush=True)
    if args.save:
        temperatures = {str(level): spec[1] for level, spec in LEVELS.items()}
        Path(args.save).write_text(json.dumps({"scores": scores, "temperatures": temperatures}))


if __name__ == "__main__":
    main()
