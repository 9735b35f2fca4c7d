"""Build the table of Pop Out 7x6's longest holds (engine/solver/holds_data.py).

Where the side to move has lost in the opening table's reach
(engine/solver/openings_data.py: the winner's move in the first plies),
the move that holds out longest is the one after which the winner's
quickest win is slowest. Some of the moves lead to the table's entries
(each says how soon it wins); the others were left out of it because
their proofs are cheap, a few hundred thousand positions each, but all of
a position's proofs together can take more than a move's time, and then
full strength's judgement chose moves that lost up to ten plies sooner
than they had to. This walks every position the opening table reaches
(Red's first move anywhere, then the winner's entries and every reply of
the loser's that leads to one), proves each move of the loser's after
Red's first move and after each of the winner's entries, and keeps the
longest hold. Node budgets and a fresh table of fixed size for each
position: the same table on every run and machine. Run from the
repository root (minutes)::

    .venv/bin/python bench/popout_holds.py [--proof 50000000] [--slots-log2 22]

It prints each position and, at the end, the positions left out (a proof
did not finish within ``--proof``: full strength proves them in play, as
before).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import new_game, rules_named
from engine.solver.fastsearch import FastSearch, state_of
from engine.solver.holdout import holds_of, longest
from engine.solver.limits import Limits
from engine.solver.openings import Entries, Key, after_each, in_table_form, key, opening_move
from engine.solver.proven import code

OUT = Path(__file__).resolve().parent.parent / "engine" / "solver" / "holds_data.py"
HEADER = '''"""Pop Out 7x6's longest holds at the opening table's edge (engine/solver/holdout.py).

Written by bench/popout_holds.py {args}; do not edit.
Each entry: the side to move (0 Red, 1 Yellow), Red's discs, Yellow's (the
smaller mirror image), the move that holds out longest (column - 1, plus 32
for a pop) and the plies it holds (the winner's quickest win after it, plus
one).
"""

HOLDS: tuple[tuple[int, int, int, int, int], ...] = (
'''


def build(proof: int, slots: int, limit: int | None = None) -> tuple[Entries, list[str]]:
    """The longest hold in every position the opening table reaches that
    is lost for the side to move (after Red's first move, and after each
    of the winner's entries), and the lines of the positions not proven
    lost (each move's proof within ``proof`` positions). ``limit``: stop
    after this many positions (a trial)."""
    rules = rules_named("popout")
    start = new_game(rules)
    waiting = [start] + [after for _move, after in after_each(start)]
    seen: set[Key] = set()
    holds: Entries = {}
    unproven: list[str] = []
    while waiting and (limit is None or len(seen) < limit):
        game = in_table_form(waiting.pop(0))
        position, _flipped = key(state_of(game))
        if position in seen or game.result is not None:
            continue
        seen.add(position)
        line = " ".join(str(move) for move in game.moves) or "(start)"
        entry = opening_move(rules, state_of(game))
        if entry is not None:
            waiting.append(game.after(entry[0]))
            continue
        waiting += [
            after
            for _move, after in after_each(game)
            if after.result is None and opening_move(rules, state_of(after)) is not None
        ]
        began = time.process_time()
        search = FastSearch(rules, slots=slots)
        each = holds_of(search, game, Limits(), proof, proof * len(after_each(game)))
        took = f"{search.nodes:>12,} positions {time.process_time() - began:6.1f} s"
        if each is None:
            print(f"{line:28} not lost, or not proven  {took}", flush=True)
            unproven.append(line)
            continue
        move, plies = longest(each)
        holds[position] = (code(move), plies)
        print(f"{line:28} {move!s:4} holds {plies:3}   {took}", flush=True)
    return holds, unproven


def write(holds: Entries, args: str) -> None:
    rows = [
        f"    ({side}, 0x{r:X}, 0x{y:X}, {m}, {p}),\n"
        for (side, r, y), (m, p) in sorted(holds.items())
    ]
    OUT.write_text(HEADER.format(args=args) + "".join(rows) + ")\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proof", type=int, default=50_000_000,
                        help="positions each move's proof may take")  # fmt: skip
    parser.add_argument("--slots-log2", type=int, default=22,
                        help="each position's proofs share a table of 2**this entries")  # fmt: skip
    parser.add_argument("--limit", type=int, help="a trial: this many positions, nothing written")
    args = parser.parse_args()
    holds, unproven = build(args.proof, 1 << args.slots_log2, args.limit)
    if args.limit is None:
        write(holds, f"--proof {args.proof} --slots-log2 {args.slots_log2}")
    print(f"{len(holds)} holds{'' if args.limit else f' in {OUT}'}; "
          f"not lost or not proven: {len(unproven)}")  # fmt: skip
    for line in unproven:
        print(f"  {line}")


__all__ = ["build"]

if __name__ == "__main__":
    main()
