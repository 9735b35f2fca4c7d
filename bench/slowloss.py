"""Full strength in lost positions of the games with pops: does it hold out longest?

A lost game is still played: the longer the loser holds out, the longer a
person (or a program with a horizon) must find the win. This takes the
positions of game records (``bench/matches.py --each --records`` output, or
one game's moves a line), keeps those its solve proves lost for the side
to move (within ``--cap`` positions, so the long ones of a game's first
plies drop out), finds every move's reply's quickest win (tests of "a win
within d plies", engine/solver/distance.py: exact, where a proof's first
win is only a bound) and plays full strength on each at ``--nodes``
positions (1 M is about 250 ms here, deterministic). It prints how often
full strength's move holds out longest and how many plies it gives up in
all (the slowest move's plies to the end, less its own).

By default full strength is a fresh opponent at each position. With
``--warm red|yellow`` it plays as in a match: one opponent a game, which
chooses at every position of that colour from the third ply on (its
tables filled by its earlier moves), and only that colour's lost
positions count. Run from the repository root::

    .venv/bin/python bench/slowloss.py RECORDS... [--rules popout] [--nodes 1000000]
        [--cap 30000000] [--until 60] [--cache FILE] [--warm COLOUR] [--each]

The solves are kept in ``--cache`` (outside the repository): a rerun, or
another checkout's, costs only full strength's moves.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.cli.solve import plies_score
from engine import Game, Move, new_game, parse_moves
from engine.solver.distance import quickest_win
from engine.solver.fastsearch import FastSearch
from engine.solver.limits import Limits
from engine.solver.opponent import Opponent
from engine.solver.outcome import prove
from engine.solver.search import WIN

CACHE = Path.home() / ".cache/popref/slowloss.json"


def records(paths: list[Path]) -> Iterator[list[Move]]:
    """Each line of the files that is a whole game's moves (or its start)."""
    for path in paths:
        for line in path.read_text().splitlines():
            try:
                moves = parse_moves(line)
            except ValueError:  # not moves: the report's other lines
                continue
            if moves:
                yield moves


class Solves:
    """Plies to the end for the side to move (positive won: the quickest
    win's, exact; negative lost, 0 drawn: only the sign is used; None not
    proven within the cap), kept in a file."""

    def __init__(self, rules: str, cap: int, path: Path) -> None:
        self.rules, self.cap, self.path = rules, cap, path
        self.known: dict[str, int | None] = json.loads(path.read_text()) if path.exists() else {}
        self.search = FastSearch(new_game(rules).rules)

    def __call__(self, game: Game) -> int | None:
        key = f"{self.rules} {self.cap} exact " + record(game)
        if key not in self.known:
            self.search.clear()
            value = prove(self.search, game, Limits(max_nodes=self.cap)).value
            if value is not None and value > 0:  # a proof's plies bound the win's
                self.search.clear()
                quickest = quickest_win(self.search, game, Limits(max_nodes=self.cap))
                value = None if quickest is None else WIN - quickest[1]
            self.known[key] = None if value is None else plies_score(value)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.known))
        return self.known[key]

    def held(self, game: Game, move: Move) -> int | None:
        """Plies to the end after ``move`` from a lost position (1: it ends the game)."""
        after = game.after(move)
        if after.is_over():
            return 1
        won = self(after)
        return None if won is None or won <= 0 else won + 1


def record(game: Game) -> str:
    return " ".join(str(move) for move in game.moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", type=Path, nargs="+")
    parser.add_argument("--rules", default="popout")
    parser.add_argument("--nodes", type=int, default=1_000_000, help="full strength's budget")
    parser.add_argument("--cap", type=int, default=30_000_000, help="each solve's positions")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument(
        "--until",
        type=int,
        default=60,
        metavar="PLIES",
        help="positions up to this ply (a long game is a drawn one)",
    )
    parser.add_argument("--each", action="store_true", help="a line per lost position")
    parser.add_argument(
        "--warm",
        choices=["red", "yellow"],
        help="one opponent a game, choosing at every position of this colour, as in a match",
    )
    args = parser.parse_args()
    solves = Solves(args.rules, args.cap, args.cache)
    budget = Limits(max_nodes=args.nodes)
    seen: set[str] = set()
    count = kept = given = unproven = 0
    started = time.process_time()
    for game_moves in records(args.records):
        game = new_game(args.rules)
        warm = Opponent(game.rules) if args.warm else None
        for move in game_moves[: min(len(game_moves) - 1, args.until)]:
            game.play(move)
            key = record(game)
            ours = args.warm is None or (len(game.moves) >= 2 and game.to_move == args.warm)
            if not ours:
                continue
            # warm: every move of the colour's is chosen, as its match chose it
            played = warm.choose(game, budget).move if warm is not None else None
            if key in seen:
                continue
            seen.add(key)
            value = solves(game)
            if value is None or value >= 0:
                continue
            held = {m: solves.held(game, m) for m in game.legal_moves()}
            proven = {m: h for m, h in held.items() if h is not None}
            if len(proven) < len(held):
                unproven += 1
                continue
            played = played or Opponent(game.rules).choose(game, budget).move
            slowest, own = max(proven.values()), proven[played]
            count += 1
            kept += own == slowest
            given += slowest - own
            if args.each:
                print(f"{key:44s} lost in {slowest:3d}; {played!s:4s} holds {own:3d}")
    if not count:
        sys.exit("no lost position proven within --cap: give longer games or a larger cap")
    print(
        f"{args.rules}, {args.nodes:,} positions a move: {count} lost positions "
        f"({unproven} left out, a reply not proven within the cap); the slowest loss "
        f"played in {kept} ({kept / count:.0%}); plies given up {given} in all, "
        f"{given / count:.2f} a position; {time.process_time() - started:.0f} s CPU"
    )


if __name__ == "__main__":
    main()
