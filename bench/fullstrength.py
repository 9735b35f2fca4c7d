"""Full strength of a popref checkout, over a pipe: what ``matches.py --against`` plays.

Run as ``python bench/fullstrength.py CHECKOUT`` (the checkout's own
``engine`` is imported, its compiled cores built in place). Each input line
is ``RULES WxH MS MOVES...``: the reply is full strength's move in that
game, within MS milliseconds of this process's CPU time. ``RULES WxH new``
starts a new game (fresh tables). An empty line ends it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any


def cpu_past(seconds: float) -> Callable[[], bool]:
    """A stop check that turns true ``seconds`` of this process's CPU time from now."""
    deadline = time.process_time() + seconds
    return lambda: time.process_time() >= deadline


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    from engine import new_game, parse_size, rules_named
    from engine.solver import fastsearch
    from engine.solver.limits import Limits
    from engine.solver.opponent import Opponent

    if not fastsearch.COMPILED:
        print(
            f"fullstrength.py: {sys.argv[1]}: no compiled search core: pure Python", file=sys.stderr
        )
    strong: Any = None
    for line in sys.stdin:
        if not line.strip():
            break
        name, size, ms, *moves = line.split()
        rules = rules_named(name, parse_size(size))
        if moves == ["new"]:
            strong = Opponent(rules)
            print("ok", flush=True)
            continue
        game = new_game(rules)
        for move in moves:
            game.play(move)
        choice = strong.choose(game, Limits(should_stop=cpu_past(int(ms) / 1000)))
        print(choice.move, flush=True)


if __name__ == "__main__":
    main()
