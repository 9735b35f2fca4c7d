"""Build Pop Out 7x6's opening table (engine/solver/openings_data.py).

From the start: the outcome search proves Red's winning move; then every
reply of Yellow's is a position for Red again, proven the same way. A
position whose proof takes more than ``--enough`` positions (about what
full strength's outcome search gets in a move at 250 ms of CPU) gets an
entry and its replies are followed, up to ``--plies``; the rest are left
to the search in play (cheap: a fresh search of the usual table size
proves Red's win within ``--enough``, which tests/test_openings.py checks
again). A position after two plies that is Red's loss (``1 4``) gives way
to each of Red's replies: Yellow's wins, proven and followed the same way.
Node budgets, not time, and fixed table sizes: the same table on
every run and machine. Each position is proven in the smaller of its two
mirror images (a search is not symmetric). Run from the repository root
(about 30 minutes of CPU here and 3 GB of memory at its peak)::

    .venv/bin/python bench/popout_openings.py [--plies 18] [--enough 500000]
        [--most 4000000000] [--root-most 3000000000] [--slots-log2 26]
        [--keep [--roots LINE ...]]

It prints each position proven and, at the end, the positions past
``--plies`` still dearer than ``--enough`` (the table's edge). ``--keep``
takes the current table's entries as they are (each is a proof) and
searches only the positions it lacks: a larger ``--root-most`` then costs
only the roots left out before, and ``--roots '2 4'`` only the roots
named (the others keep their entries unwalked), so runs for different
roots can go side by side, each in a checkout of its own. The table's
header then names the run it kept and this one, the runs that reproduce
it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game, Move, rules_named
from engine.solver.fastsearch import FastSearch, state_of, to_move
from engine.solver.limits import Limits
from engine.solver.openings import Key, after_each, in_table_form, key, replies, roots, rows
from engine.solver.openings_data import OPENINGS
from engine.solver.outcome import WON, prove
from engine.solver.proven import code
from engine.solver.search import WIN

OUT = Path(__file__).resolve().parent.parent / "engine" / "solver" / "openings_data.py"
# 2**26 slots (3 GB at the peak): with 2**22 the proofs of `1 2` and `1 3`
# did not finish within 3 billion positions; with this they take 1.5-2.0
# billion, because fewer of their results are overwritten
SLOTS_LOG2 = 26
HEADER = '''"""Pop Out 7x6's proven opening moves (engine/solver/openings.py).

Written by bench/popout_openings.py
{args}; do not edit.
Each entry: the side to move (0 Red, 1 Yellow), Red's discs, Yellow's (the
smaller mirror image), its winning move (column - 1, plus 32 for a pop) and
the plies it wins within.
"""

OPENINGS: tuple[tuple[int, int, int, int, int], ...] = (
'''


Table = dict[Key, tuple[int, int]]  # (side, Red's, Yellow's) -> (move code, plies)


def build(
    plies: int,
    enough: int,
    most: int,
    root_most: int,
    slots: int = 1 << SLOTS_LOG2,
    known: Table | None = None,
    starts: list[Game] | None = None,
) -> tuple[Table, list[str], list[str]]:
    """The table, the lines past ``plies`` that were still dear, and the
    roots where the win of the side to move was not proven within
    ``root_most`` positions (elsewhere ``most``). A root proven lost for
    the side to move gives way to its replies: roots of the other side's
    win. A position in ``known`` (an earlier table: each entry is a proof)
    keeps its entry unsearched, and a root whose every move is the other
    side's kept win is lost unsearched. ``starts``: where to begin, by default the
    start and every position after two plies (:func:`roots`)."""
    rules = rules_named("popout")
    table: Table = {}
    known = known or {}
    seen: set[Key] = set()
    edge: list[str] = []
    unproven: list[str] = []
    waiting = roots() if starts is None else list(starts)
    root_lines = {_line(in_table_form(game)) for game in waiting if game.moves}
    while waiting:
        game = in_table_form(waiting.pop(0))
        position, _flipped = key(state_of(game))
        if position in seen:
            continue
        seen.add(position)
        line = _line(game) or "(start)"
        if position in known:
            table[position] = known[position]
            kept = to_move(known[position][0])
            print(f"{line:28} kept: {kept}", flush=True)
            waiting += _replies(game, kept, line)
            continue
        lost = _lost_by(game, known) if line in root_lines else None
        if lost is not None:
            print(f"{line:28} lost: every reply is the other side's kept win", flush=True)
            waiting += lost
            continue
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
        search = FastSearch(rules, slots=slots)
        budget = root_most if line in root_lines else most
        found = prove(search, game, Limits(max_nodes=budget))
        print(f"{line:28} {found.describe():16} {found.move!s:4} {search.nodes:>14,} positions "
              f"{time.process_time() - start:8.1f} s", flush=True)  # fmt: skip
        if found.move is not None and found.value is not None and found.value >= WON:
            table[position] = (code(found.move), WIN - found.value)
            waiting += _replies(game, found.move, line)
        elif line not in root_lines:
            raise SystemExit(f"{line}: {_side(game)}'s win not proven ({found.describe()})")
        elif found.value is not None and found.value <= -WON:  # the other side's win, then
            after = replies(game)
            root_lines.update(_line(in_table_form(reply)) for reply in after)
            waiting += after
        else:
            unproven.append(f"{line}: {found.describe()}")
    return table, edge, unproven


def _lost_by(game: Game, known: Table) -> list[Game] | None:
    """The positions after each move in ``game`` if every one is the other
    side's win by an entry in ``known`` or at once (so ``game`` is lost
    without a search), else None."""
    assert game.to_move is not None
    winner = game.to_move.other
    after = []
    for _move, reply in after_each(game):
        if reply.result is None and key(state_of(in_table_form(reply)))[0] in known:
            after.append(reply)
        elif reply.result is not winner:
            return None
    return after


def _line(game: Game) -> str:
    return " ".join(str(move) for move in game.moves)


def _side(game: Game) -> str:
    assert game.to_move is not None
    return game.to_move.name.title()


def _replies(game: Game, move: Move, line: str) -> list[Game]:
    """The positions after the winner's ``move`` and each reply that does
    not end the game (a reply may end it only with the winner's win)."""
    after = game.after(move)
    found = after_each(after)
    for reply, next_game in found:
        if next_game.result not in (None, game.to_move):
            raise SystemExit(f"{line} {move} {reply}: not {_side(game)}'s win ({next_game.result})")
    return [next_game for _reply, next_game in found if next_game.result is None]


def chosen(lines: list[str]) -> list[Game]:
    """The start and the roots after two plies named in ``lines`` (either
    mirror image); one line that names no root is an error.

    >>> [_line(game) for game in chosen(["7 4"])]
    ['', '1 4']
    """
    start, *after_two = roots()
    found = {_line(game): in_table_form(game) for game in after_two}
    picked = []
    for line in lines:
        if line not in found:
            raise SystemExit(f"--roots: {line!r} is not a position after two plies that goes on")
        picked.append(found[line])
    return [start, *picked]


def packed(options: list[str], width: int = 70) -> str:
    """``options`` on lines of at most ``width`` characters, none split
    (the header's lines stay short enough for the linter).

    >>> print(packed(["--plies 18", "--keep", "--roots '1 4' '2 4'"], width=20))
    --plies 18 --keep
    --roots '1 4' '2 4'
    """
    lines = [options[0]]
    for option in options[1:]:
        if len(lines[-1]) + 1 + len(option) > width:
            lines.append(option)
        else:
            lines[-1] += " " + option
    return "\n".join(lines)


def written_with(runs: str, previous: str | None) -> str:
    r"""The header's account of how a table was made: ``runs``, this run's
    options, after ``previous``, the account in the table it kept (with
    ``--keep``), since a kept table is reproduced by both runs in turn.

    >>> written_with("--plies 18", None)
    '--plies 18'
    >>> written_with("--plies 18 --keep", "--plies 18")
    '--plies 18,\nthen --plies 18 --keep'
    """
    return runs if previous is None else f"{previous},\nthen {runs}"


def _account() -> str:
    """The account of runs in the current table's header."""
    before, after = HEADER.split("{args}")
    return OUT.read_text().removeprefix(before).partition(after.split("\n")[0])[0]


def write(table: Table, args: str) -> None:
    OUT.write_text(HEADER.format(args=args) + rows(table) + ")\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=18, help="entries for positions up to here")
    parser.add_argument("--enough", type=int, default=500_000,
                        help="a proof within this many positions needs no entry")  # fmt: skip
    parser.add_argument("--most", type=int, default=4_000_000_000,
                        help="positions a proof may take")  # fmt: skip
    parser.add_argument("--root-most", type=int, default=3_000_000_000,
                        help="the same after two plies: else the root is left out")  # fmt: skip
    parser.add_argument("--slots-log2", type=int, default=SLOTS_LOG2,
                        help="the proofs' table holds 2**this entries")  # fmt: skip
    parser.add_argument("--keep", action="store_true",
                        help="keep the current table's entries: search only the rest")  # fmt: skip
    parser.add_argument("--roots", nargs="+", metavar="LINE",
                        help="only these positions after two plies (and the start), as "
                             "'1 4'; with --keep, which keeps the others' entries")  # fmt: skip
    args = parser.parse_args()
    if args.roots and not args.keep:
        parser.error("--roots needs --keep: the other roots' entries come from the current table")
    known = {(s, r, y): (m, p) for s, r, y, m, p in OPENINGS} if args.keep else None
    starts = None if not args.roots else chosen(args.roots)
    table, edge, unproven = build(
        args.plies, args.enough, args.most, args.root_most, 1 << args.slots_log2, known, starts
    )
    if args.roots:  # the roots not searched keep their entries
        table = {**(known or {}), **table}
    options = [f"--plies {args.plies}", f"--enough {args.enough}", f"--most {args.most}",
               f"--root-most {args.root_most}", f"--slots-log2 {args.slots_log2}",
               *(["--keep"] if args.keep else []),
               *([" ".join(["--roots", *(f"'{line}'" for line in args.roots)])]
                 if args.roots else [])]  # fmt: skip
    write(table, written_with(packed(options), _account() if args.keep else None))
    print(f"{len(table)} entries in {OUT}; past ply {args.plies} still dearer: {len(edge)}")
    for line in edge:
        print(f"  {line}")
    print(f"roots left out, the win not proven: {len(unproven)}")
    for line in unproven:
        print(f"  {line}")


__all__ = ["build"]

if __name__ == "__main__":
    main()
