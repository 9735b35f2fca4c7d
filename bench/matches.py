"""Full strength against a simple opponent and against its own lower levels.

The simple opponent wins when it can, else blocks an immediate win of the
other side, else plays a random move that does not hand over a win at once
(seeded, so games vary but repeat). Every game, both colours: the win rate
of full strength and its time per move. Goals: at least 95% won against the
simple opponent in every game, and no Classic game lost as Red. A move's
wall time includes waiting for a CPU on a loaded machine; its CPU time does
not. Run from the repository root::

    .venv/bin/python bench/matches.py [--games 10] [--movetime 250] [--levels 1,5,9]
        [--rules popout,pop10] [--size 6x5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import RULES_NAMES, Colour, Game, Move, Rules, new_game, parse_size, rules_named
from engine.solver.limits import Limits
from engine.solver.opponent import Opponent

MAX_PLIES = 300  # Pop Out and Pop 10 can go on; a capped game counts as a draw


def wins_at_once(game: Game, move: Move) -> bool:
    mover = game.to_move
    after = game.copy()
    after.play(move)
    return after.result == mover


def simple_move(game: Game, rng: random.Random) -> Move:
    """Win, else block, else a random move that does not lose at once."""
    moves = list(game.legal_moves())
    for move in moves:
        if wins_at_once(game, move):
            return move
    safe = []
    for move in moves:
        after = game.copy()
        after.play(move)
        if after.is_over() or not any(wins_at_once(after, m) for m in after.legal_moves()):
            safe.append(move)
    return rng.choice(safe or moves)


@dataclass
class Tally:
    won: int = 0
    drawn: int = 0
    lost: int = 0
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # the same in CPU time: load-proof

    def line(self) -> str:
        games = self.won + self.drawn + self.lost
        rate = 100 * self.won / games if games else 0.0
        mean = sum(self.times) / len(self.times) if self.times else 0.0
        worst = max(self.times, default=0.0)
        cpu = max(self.cpu, default=0.0)
        return (
            f"{self.won:3}/{self.drawn:2}/{self.lost:2} won {rate:5.1f}%  "
            f"move mean {mean * 1e3:6.1f} ms, max {worst * 1e3:6.1f} ms (CPU {cpu * 1e3:6.1f} ms)"
        )


def past(deadline: float) -> Callable[[], bool]:
    """A stop check that turns true at ``deadline`` (``time.perf_counter``)."""
    return lambda: time.perf_counter() >= deadline


def play_game(rules: Rules, strong_colour: Colour, other: Opponent | None, seed: str,
              movetime: float, tally: Tally) -> None:  # fmt: skip
    strong = Opponent(rules)
    rng = random.Random(seed)
    game = new_game(rules)
    while not game.is_over() and len(game.moves) < MAX_PLIES:
        if game.to_move == strong_colour:
            start, cpu = time.perf_counter(), time.process_time()
            limits = Limits(should_stop=past(start + movetime))
            move = strong.choose(game, limits).move
            tally.times.append(time.perf_counter() - start)
            tally.cpu.append(time.process_time() - cpu)
        elif other is None:
            move = simple_move(game, rng)
        else:
            move = other.choose(game).move
        game.play(move)
    if game.result == strong_colour:
        tally.won += 1
    elif game.result is None or game.result == "draw":
        tally.drawn += 1
    else:
        tally.lost += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per colour and opponent")
    parser.add_argument("--movetime", type=int, default=250, help="full strength's ms per move")
    parser.add_argument("--levels", default="1,5,9", help="lower levels to play against")
    parser.add_argument("--rules", default=",".join(RULES_NAMES))
    parser.add_argument("--size", type=parse_size, help="WxH, edge strips included")
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",") if level]
    print(f"full strength, {args.movetime} ms a move; W/D/L from full strength's side")
    for name in args.rules.split(","):
        rules = rules_named(name, args.size)
        title = f"{name} {rules.width}x{rules.height}"
        for label, level in [("simple", None), *((f"level {n}", n) for n in levels)]:
            for colour in Colour:
                tally = Tally()
                for number in range(args.games):
                    other = None if level is None else Opponent(rules, level, number)
                    seed = f"{name}/{label}/{colour.value}/{number}"
                    play_game(rules, colour, other, seed, args.movetime / 1000, tally)
                print(f"{title:16} vs {label:8} as {colour.title:6}: {tally.line()}", flush=True)


if __name__ == "__main__":
    main()
