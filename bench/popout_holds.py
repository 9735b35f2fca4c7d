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
Red's first move and after each of the winner's entries (the winner's
quickest win after it, by tests of distance: engine/solver/distance.py;
the entries' own plies are a proof's first win, a bound, which stands only
where the move's proof does not finish), and keeps the longest hold. Node
budgets and a fresh table of fixed size for each proof: the same table
on every run and machine. Run from the repository root (36 minutes on
two cores, 61 minutes of CPU)::

    .venv/bin/python bench/popout_holds.py [--proof 50000000] [--other-proof 5000000]
        [--slots-log2 20] [--processes N]

It prints each position and, at the end, the positions left out (a proof
did not finish within ``--proof``: full strength proves them in play, as
before). The walk follows the opening table's entries: rebuild this table
whenever that one changes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import new_game, rules_named
from engine.solver.fastsearch import FastSearch, state_of, to_move
from engine.solver.holdout import holds_of, longest
from engine.solver.limits import Limits
from engine.solver.openings import Entries, Key, after_each, in_table_form, key, opening_move, rows
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


def build(
    proof: int, other_proof: int, slots: int, processes: int, limit: int | None = None
) -> tuple[Entries, list[str]]:
    """The longest hold in every position the opening table reaches that
    is lost for the side to move (:func:`walk`), and the lines of the
    positions after an entry's move not proven lost, each move's proof on
    a fresh table of ``slots``, in ``processes`` at once (the same table
    whatever their number). ``limit``: only this many positions (a trial)."""
    tasks = [(line, cap, slots) for line, cap in walk(proof, other_proof)][:limit]
    holds: Entries = {}
    unproven: list[str] = []
    with multiprocessing.Pool(processes) as pool:
        for line, cap, found, nodes, took in pool.imap(prove_holds, tasks, chunksize=4):
            spent = f"{nodes:>12,} positions {took:6.1f} s"
            if found is None:
                print(f"{line:28} not lost, or not proven  {spent}", flush=True)
                if cap == proof:
                    unproven.append(line)
                continue
            position, move_code, plies = found
            holds[position] = (move_code, plies)
            print(f"{line:28} {to_move(move_code)!s:4} holds {plies:3}   {spent}", flush=True)
    return holds, unproven


def walk(proof: int, other_proof: int) -> list[tuple[str, int]]:
    """The positions to prove, in the table's image, and each move's cap:
    after Red's first move, and after each of the winner's moves where the
    opening table has an entry (the entry's move: ``proof`` positions; any
    other, which may win too: ``other_proof``), then on through every move
    that leads to an entry."""
    rules = rules_named("popout")
    start = new_game(rules)
    waiting = [(start, proof)] + [(after, proof) for _move, after in after_each(start)]
    caps: dict[Key, tuple[str, int]] = {}
    winners: set[Key] = set()  # the entries' positions: nothing to prove
    while waiting:
        game, cap = waiting.pop(0)
        game = in_table_form(game)
        position, _flipped = key(state_of(game))
        if position in winners:
            continue
        if position in caps:
            line, was = caps[position]
            caps[position] = (line, max(cap, was))
            continue
        entry = opening_move(rules, state_of(game))
        if entry is not None:
            winners.add(position)
            waiting += [
                (after, proof if move == entry[0] else other_proof)
                for move, after in after_each(game)
                if after.result is None
            ]
            continue
        caps[position] = (" ".join(str(move) for move in game.moves), cap)
        waiting += [
            (after, proof)
            for _move, after in after_each(game)
            if after.result is None and opening_move(rules, state_of(after)) is not None
        ]
    return list(caps.values())


def prove_holds(
    task: tuple[str, int, int],
) -> tuple[str, int, tuple[Key, int, int] | None, int, float]:
    """One position's longest hold (its key, the move's code, the plies),
    or None where it is not proven lost; the positions and CPU seconds
    spent."""
    line, cap, slots = task
    game = new_game(rules_named("popout"))
    for move in line.split():
        game.play(move)
    began = time.process_time()
    search = _search(slots)
    before = search.nodes

    def fresh() -> FastSearch:
        search.clear()
        return search

    each = holds_of(fresh, game, Limits(), cap, cap * len(after_each(game)), entries_too=True)
    took = time.process_time() - began
    nodes = search.nodes - before
    if each is None:
        return line, cap, None, nodes, took
    best, plies = longest(each)
    return line, cap, (key(state_of(game))[0], code(best), plies), nodes, took


@cache
def _search(slots: int) -> FastSearch:
    """A process's search, emptied before each proof (a fresh table)."""
    return FastSearch(rules_named("popout"), slots=slots)


def write(holds: Entries, args: str) -> None:
    OUT.write_text(HEADER.format(args=args) + rows(holds) + ")\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proof", type=int, default=50_000_000,
                        help="positions each move's proof may take")  # fmt: skip
    parser.add_argument("--other-proof", type=int, default=5_000_000,
                        help="the same after the winner's other moves")  # fmt: skip
    parser.add_argument("--slots-log2", type=int, default=20,
                        help="each proof's table holds 2**this entries")  # fmt: skip
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                        help="proofs run side by side (the table is the same)")  # fmt: skip
    parser.add_argument("--limit", type=int, help="a trial: this many positions, nothing written")
    args = parser.parse_args()
    holds, unproven = build(
        args.proof, args.other_proof, 1 << args.slots_log2, args.processes, args.limit
    )
    if args.limit is None:
        write(
            holds,
            f"--proof {args.proof} --other-proof {args.other_proof}\n"
            f"--slots-log2 {args.slots_log2}",
        )
    print(f"{len(holds)} holds{'' if args.limit else f' in {OUT}'}; "
          f"not lost or not proven: {len(unproven)}")  # fmt: skip
    for line in unproven:
        print(f"  {line}")


__all__ = ["build", "prove_holds", "walk"]

if __name__ == "__main__":
    main()
