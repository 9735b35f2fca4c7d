"""``popref book``: build the Classic opening book with popref's own solver.

``popref book`` solves every position the computer can meet in the first
moves, and beyond them every one the solver would not answer within a node
budget (see :mod:`engine.solver.bookbuild`), and writes the book file. It
may take hours: every solved position is appended to a progress file first,
so an interrupted build (Ctrl-C, a reboot) resumes where it stopped, and the
book file is rewritten every minute and on exit; a build also resumes from
the book file alone. The same options always give the same file.
``--stamp`` rewrites a book file of an older format (no digest) in the
current one without solving anything: the same entries, a digest added.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from engine import RulesError, parse_size
from engine.solver.book import Book, BookError
from engine.solver.bookbuild import Plan, Record, book_entries, build, discs, plies
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED
from engine.solver.position import fits

HELP = "build the Classic opening book (resumable, reproducible)"
PROG = "popref book"
DEFAULT_SLOTS = 33_554_393  # a prime: about 300 MB of table for the long solves
REWRITE_SECONDS = 60


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``popref book``'s options on ``parser``."""
    parser.add_argument("--size", default="7x6", metavar="WxH", help="board size (default 7x6)")
    default = Plan()
    parser.add_argument(
        "--depth",
        type=int,
        default=default.depth,
        help=f"hold every position before move DEPTH (default {default.depth})",
    )
    parser.add_argument(
        "--exact",
        type=int,
        default=default.exact,
        help=f"exact scores before move EXACT, the outcome later (default {default.exact})",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=default.nodes,
        help="after DEPTH, hold the positions whose outcome solve needs more than NODES "
        f"positions (default {default.nodes:,})",
    )
    parser.add_argument(
        "--until", type=int, default=default.until, metavar="PLY",
        help="build no plies from PLY on (default: to the end)",
    )  # fmt: skip
    parser.add_argument(
        "--every", type=int, default=default.every, metavar="PLY",
        help="before PLY, every position however reached, for hints between people "
        f"(default {default.every})",
    )  # fmt: skip
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="the book file (default: engine/solver/book-WxH.bin under the current directory)",
    )
    parser.add_argument(
        "--progress",
        metavar="FILE",
        help="the resumable record of solved positions (default: the book file + .progress)",
    )
    parser.add_argument(
        "--slots", type=int, default=DEFAULT_SLOTS, help="transposition table slots (8 bytes each)"
    )
    parser.add_argument("--count", action="store_true", help="only count the positions per ply")
    parser.add_argument(
        "--stamp",
        action="store_true",
        help="only rewrite the book file in the current format (its digest), solving nothing",
    )


def run(args: argparse.Namespace) -> int:
    """Build (or count) and return the exit status (2 for bad options)."""
    try:
        width, height = parse_size(args.size)
    except RulesError as error:
        print(f"{PROG}: --size: {error}", file=sys.stderr)
        return 2
    if not fits(width, height) or not 1 <= args.depth <= width * height:
        print(f"{PROG}: a {width}x{height} book of depth {args.depth} is not possible: "
              "the board must fit 64 bits and the depth its cells", file=sys.stderr)  # fmt: skip
        return 2
    if min(args.exact, args.nodes, args.until, args.every) < 0:
        print(f"{PROG}: --exact, --nodes, --until and --every take a number of 0 or more",
              file=sys.stderr)  # fmt: skip
        return 2
    plan = Plan(args.depth, args.exact, args.nodes, until=args.until, every=args.every)
    output = Path(args.output or f"engine/solver/book-{width}x{height}.bin")
    progress = Path(args.progress or f"{output}.progress")
    if args.stamp:
        return _stamp(output, width, height)
    try:
        records = _read_book(output, width, height)
        records.update(_read_progress(progress))
    except (ValueError, BookError) as error:
        print(f"{PROG}: {error}; delete it to start over", file=sys.stderr)
        return 2
    if args.count:
        return _count(width, height, plan, records)
    if not COMPILED:
        print(f"{PROG}: the compiled solver core is missing: this will be very slow",
              file=sys.stderr)  # fmt: skip
    solver = ClassicSolver(width, height, slots=args.slots)
    started = written = time.monotonic()
    done = 0
    last_ply = -1
    complete = 0

    def write() -> None:
        _write(output, Book.from_entries(width, height, complete, book_entries(plan, records)))

    def on_solved(key: int, record: Record) -> None:
        nonlocal done, last_ply, complete, written
        score, column, exact, ply, nodes = record
        with progress.open("a") as log:
            log.write(f"{key} {score} {column} {ply} {int(exact)} {nodes}\n")
            log.flush()
            os.fsync(log.fileno())
        done += 1
        if ply != last_ply:
            complete = ply  # plies are solved in order: every earlier one is done
            last_ply = ply
        if time.monotonic() - written >= REWRITE_SECONDS:
            write()  # the book file alone is enough to resume from (e.g. a fresh clone)
            written = time.monotonic()
        minutes = (time.monotonic() - started) / 60
        print(f"ply {ply}: {len(records)} solved, {done} new, {nodes:,} nodes, "
              f"{minutes:.1f} min", file=sys.stderr, flush=True)  # fmt: skip

    try:
        complete = build(solver, width, height, plan, records, on_solved)
    except KeyboardInterrupt:
        write()
        print(f"{PROG}: interrupted; run it again to resume", file=sys.stderr)
        return 130
    write()
    held = len(book_entries(plan, records))
    print(f"{PROG}: {output}: {held} positions, {complete} plies complete")
    return 0


def _count(width: int, height: int, plan: Plan, records: dict[int, Record]) -> int:
    for ply, positions in plies(width, height, plan, records):
        known = [records[p.key()] for p in positions if p.key() in records]
        have = sum(1 for record in known if plan.fits(record))
        held = sum(1 for record in known if plan.fits(record) and plan.holds(record))
        print(f"ply {ply}: {len(positions)} positions, {have} solved, {held} in the book")
        if have < len(positions):
            break  # the next plies follow book moves not solved yet
    return 0


def _stamp(path: Path, width: int, height: int) -> int:
    """Rewrite the book file at ``path`` in the current format: its entries unchanged."""
    try:
        book = _open_book(path, width, height)
    except (OSError, BookError) as error:
        print(f"{PROG}: --stamp: {error}", file=sys.stderr)
        return 2
    _write(path, book)
    print(f"{PROG}: {path}: {len(book)} positions, {book.depth} plies complete, stamped")
    return 0


def _open_book(path: Path, width: int, height: int) -> Book:
    """The book file at ``path``, of any format, for a board of this size."""
    book = Book.from_bytes(path.read_bytes(), undigested=True)
    if (book.width, book.height) != (width, height):
        raise BookError(f"{path} is a {book.width}x{book.height} book, not {width}x{height}")
    return book


def _read_book(path: Path, width: int, height: int) -> dict[int, Record]:
    """The entries of an earlier build's book file: a build resumes from it too."""
    if not path.exists():
        return {}
    book = _open_book(path, width, height)
    return {
        key: Record(*entry, discs(key, width, height), -1) for key, entry in book.entries().items()
    }


def _read_progress(path: Path) -> dict[int, Record]:
    """Every record of the progress file (lines of 4 fields are an older exact build's)."""
    records: dict[int, Record] = {}
    if not path.exists():
        return records
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if len(fields) not in (4, 6) or not all(f.lstrip("-").isdigit() for f in fields):
            if number == len(lines):
                break  # a line cut short by a crash: solve it again
            raise ValueError(f"{path}: line {number} is not 'key score column ply exact nodes'")
        key, score, column, ply, exact, nodes = [*map(int, fields), 1, -1][:6]
        records[key] = Record(score, column, bool(exact), ply, nodes)
    return records


def _write(path: Path, book: Book) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_bytes(book.to_bytes())
    os.replace(temporary, path)
