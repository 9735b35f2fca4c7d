"""Random playouts per second through the engine's public API, per preset.

Classic 7x6 also runs OpenSpiel's ``connect_four`` (C++ behind pybind11),
driven the same way in the same run, and prints the ratio. Run from the
repository root::

    .venv/bin/python bench/engine.py [--seconds 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine

# Pop Out and Pop 10 random games can wander; a cap keeps one playout bounded
MAX_PLIES = 2000


def popref_playouts(name: str, rng: random.Random) -> Callable[[], int]:
    """One random playout of ``name`` through the public API; returns plies."""

    def playout() -> int:
        game = engine.new_game(name)
        plies = 0
        while not game.is_over() and plies < MAX_PLIES:
            game.play(rng.choice(game.legal_moves()))
            plies += 1
        return plies

    return playout


def openspiel_playouts(rng: random.Random) -> Callable[[], int] | None:
    """The same loop over OpenSpiel's connect_four, or None without OpenSpiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    spiel_game = pyspiel.load_game("connect_four")

    def playout() -> int:
        state = spiel_game.new_initial_state()
        plies = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        return plies

    return playout


def measure(playout: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Playouts per second and mean plies per playout over ``seconds``."""
    count = plies = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        plies += playout()
        count += 1
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start), plies / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'rules':<14}{'playouts/s':>12}{'plies/playout':>15}{'moves/s':>12}")
    rates: dict[str, float] = {}
    for name in engine.RULES_NAMES:
        rate, plies = measure(popref_playouts(name, random.Random(args.seed)), args.seconds)
        rates[name] = rate
        print(f"{name:<14}{rate:>12,.0f}{plies:>15.1f}{rate * plies:>12,.0f}")
    spiel = openspiel_playouts(random.Random(args.seed))
    if spiel is None:
        print("OpenSpiel (open-spiel) is not installed: no reference ratio")
        return 0
    # interleave the two so that machine load affects both alike
    ours = theirs = 0.0
    rounds = 3
    for _ in range(rounds):
        ours += measure(popref_playouts("classic", random.Random(args.seed)), args.seconds)[0]
        theirs += measure(spiel, args.seconds)[0]
    ours, theirs = ours / rounds, theirs / rounds
    print(f"{'openspiel c4':<14}{theirs:>12,.0f}")
    print(
        f"classic 7x6 vs OpenSpiel connect_four: {ours:,.0f} / {theirs:,.0f} = {ours / theirs:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
