"""Build Pop Out 7x6's opening table (engine/solver/openings_data.py).

From the start: the outcome search proves Red's winning move; then every
reply of Yellow's is a position for Red again, proven the same way. A
position whose proof takes more than ``--enough`` positions (about what
full strength's outcome search gets in a move at 250 ms of CPU) gets an
entry and its replies are followed, up to ``--plies``; the rest are left
to the search in play (cheap: a fresh search of the usual table size
proves Red's win within ``--enough``, which tests/test_openings.py checks
again). Node budgets, not time, and fixed table sizes: the same table on
every run and machine. Each position is proven in the smaller of its two
mirror images (a search is not symmetric). Run from the repository root
(about 25 minutes of CPU here, half of them on the four openings it
leaves out)::

    .venv/bin/python bench/popout_openings.py [--plies 18] [--enough 500000]

It prints each position proven and, at the end, the positions past
``--plies`` still dearer than ``--enough`` (the table's edge).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Colour, rules_named
from engine.solver.fastsearch import FastSearch, state_of
from engine.solver.limits import Limits
from engine.solver.openings import canonical, in_table_form, roots
from engine.solver.outcome import WON, prove
from engine.solver.proven import code
from engine.solver.search import WIN

OUT = Path(__file__).resolve().parent.parent / "engine" / "solver" / "openings_data.py"
SLOTS = 1 << 22  # 96 MB: the start's proof takes about 2 billion positions
HEADER = '''"""Pop Out 7x6's proven opening moves for Red (engine/solver/openings.py).

Written by bench/popout_openings.py {args}; do not edit.
Each entry: Red's discs, Yellow's (the smaller mirror image), Red's move
(column - 1, plus 32 for a pop) and the plies it wins within.
"""

OPENINGS: tuple[tuple[int, int, int, int], ...] = (
'''


def build(
    plies: int, enough: int, most: int, root_most: int
) -> tuple[dict[tuple[int, int], tuple[int, int]], list[str], list[str]]:
    """The table, the lines past ``plies`` that were still dear, and the
    roots after two plies where Red's win was not proven within
    ``root_most`` positions (elsewhere ``most``)."""
    rules = rules_named("popout")
    table: dict[tuple[int, int], tuple[int, int]] = {}
    seen: set[tuple[int, int]] = set()
    edge: list[str] = []
    unproven: list[str] = []
    waiting = roots()
    root_lines = {" ".join(str(m) for m in game.moves) for game in waiting}
    while waiting:
        game = in_table_form(waiting.pop(0))
        red, yellow, _flipped = canonical(*state_of(game)[:2])
        if (red, yellow) in seen:
            continue
        seen.add((red, yellow))
        line = " ".join(str(m) for m in game.moves) or "(start)"
        start = time.process_time()
        # as full strength would in play: a fresh search of the usual size
        found = prove(FastSearch(rules), game, Limits(max_nodes=enough))
        if found.value is not None and found.value >= WON:
            print(f"{line:28} {found.describe():16} within {enough:,} positions", flush=True)
            continue
        if len(game.moves) >= plies:
            print(f"{line:28} past the table's edge and dearer", flush=True)
            edge.append(line)
            continue
        search = FastSearch(rules, slots=SLOTS)
        budget = root_most if line in root_lines and game.moves else most
        found = prove(search, game, Limits(max_nodes=budget))
        print(f"{line:28} {found.describe():16} {found.move!s:4} {search.nodes:>14,} positions "
              f"{time.process_time() - start:8.1f} s", flush=True)  # fmt: skip
        if found.move is None or found.value is None or found.value < WON:
            if line in root_lines:
                unproven.append(f"{line}: {found.describe()}")  # a random opening's loss
                continue
            raise SystemExit(f"{line}: Red's win not proven ({found.describe()})")
        table[(red, yellow)] = (code(found.move), WIN - found.value)
        after = game.copy()
        after.play(found.move)
        for reply in after.legal_moves():
            next_game = after.copy()
            next_game.play(reply)
            if next_game.result is None:
                waiting.append(next_game)
            elif next_game.result is not Colour.RED:
                raise SystemExit(f"{line} {found.move} {reply}: not Red's win ({next_game.result})")
    return table, edge, unproven


def write(table: dict[tuple[int, int], tuple[int, int]], args: str) -> None:
    rows = [f"    (0x{r:X}, 0x{y:X}, {m}, {p}),\n" for (r, y), (m, p) in sorted(table.items())]
    OUT.write_text(HEADER.format(args=args) + "".join(rows) + ")\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=18, help="entries for positions up to here")
    parser.add_argument("--enough", type=int, default=500_000,
                        help="a proof within this many positions needs no entry")  # fmt: skip
    parser.add_argument("--most", type=int, default=4_000_000_000,
                        help="positions a proof may take")  # fmt: skip
    parser.add_argument("--root-most", type=int, default=3_000_000_000,
                        help="the same after two plies: else the root is left out")  # fmt: skip
    args = parser.parse_args()
    table, edge, unproven = build(args.plies, args.enough, args.most, args.root_most)
    write(table, f"--plies {args.plies} --enough {args.enough} --root-most {args.root_most}")
    print(f"{len(table)} entries in {OUT}; past ply {args.plies} still dearer: {len(edge)}")
    for line in edge:
        print(f"  {line}")
    print(f"roots left out, Red's win not proven: {len(unproven)}")
    for line in unproven:
        print(f"  {line}")


__all__ = ["build"]

if __name__ == "__main__":
    main()
