"""Full strength of a popref checkout on one Classic position, over a pipe.

What ``bench/outside.py`` asks each checkout it compares, so every build
runs in a process of its own (its own ``engine`` imported, its compiled
cores built in place) on that process's clock. Run as ``python
bench/outsideplayer.py CHECKOUT CLOCK [helper]`` (CLOCK: ``cpu`` or
``wall``; ``helper``: the solver's helper thread). Each
input line is ``MS MOVES`` (MOVES: column digits, no spaces): the reply is
``COLUMN SOURCE PROVEN EXACT DEPTH CPU_MS`` for a fresh full-strength
opponent (as after a restart) given MS milliseconds (less the checkout's
own ``search_seconds`` margin). An empty line ends it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from importlib import import_module
from importlib.util import find_spec
from typing import Any


def clock_named(name: str) -> Callable[[], float]:
    return time.process_time if name == "cpu" else time.perf_counter


def past(clock: Callable[[], float], seconds: float) -> Callable[[], bool]:
    """A stop check that turns true ``seconds`` on ``clock`` from now."""
    deadline = clock() + seconds
    return lambda: clock() >= deadline


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    from engine import new_game, rules_named
    from engine.solver.limits import Limits
    from engine.solver.opponent import Opponent

    try:
        from engine.solver.limits import search_seconds
    except ImportError:  # a checkout from before the margin: the whole budget

        def search_seconds(budget: float) -> float:
            return budget

    # a checkout from before the cores had a module of their own kept them in classic
    cores = "engine.solver.cores" if find_spec("engine.solver.cores") else "engine.solver.classic"
    if not import_module(cores).COMPILED:
        print(f"outsideplayer.py: {sys.argv[1]}: no compiled solver core", file=sys.stderr)
    clock = clock_named(sys.argv[2])
    rules = rules_named("classic")
    print("ok", flush=True)
    for line in sys.stdin:
        if not line.strip():
            break
        ms, moves = line.split()
        game = new_game(rules)
        for digit in moves:
            game.play(digit)
        # only when asked: a checkout from before the helper has no such option
        helped: dict[str, Any] = {}
        if sys.argv[3:] == ["helper"]:
            from controller.computer.helper import outcome_move_helped

            helped["outcome_move"] = outcome_move_helped
        opponent: Any = Opponent(rules, **helped)
        cpu = time.process_time()
        choice = opponent.choose(
            game, Limits(should_stop=past(clock, search_seconds(int(ms) / 1000)))
        )
        cpu = time.process_time() - cpu
        proven = getattr(choice, "proven", choice.exact or choice.source != "search")
        print(
            f"{choice.move.column} {choice.source} {int(proven)} {int(choice.exact)} "
            f"{choice.depth} {cpu * 1e3:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
