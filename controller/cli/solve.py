"""``popref solve``: the exact score of positions read from standard input.

One position a line (see :mod:`controller.cli.positions`); per line it prints the
position and its score for the player to move. Classic on a board that fits
the exact solver uses the convention of the Connect Four test sets, so a test
set file comes back line for line: 0 a draw, a win ``22 - n`` on 7x6 where
``n`` counts the winner's discs when it wins as early as it can (in general
``(cells + 1 - moves) // 2`` for a win with the next disc, one less per later
pair of moves), a loss the same, negative. Every other game: ``N`` means the
player to move wins at the latest ``N`` moves (of either player) from now,
``-N`` that it loses after ``N`` moves, 0 a draw. ``--all`` prints
``move:score`` for every legal move instead (the score for the player to
move, after that move). Bad input: one line naming the input line, exit 2.

Classic positions whose exact score the opening book holds are answered
from it (the first plies would take the solver minutes); a long solve
prints its progress to standard error (:mod:`controller.cli.progress`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from controller.cli.positions import PositionInputError, lines, quoted, read_position
from controller.cli.progress import Progress
from engine import RULES_NAMES, Game, Move, Rules, RulesError, parse_size, rules_named
from engine.solver.book import REBUILD, Book, BookError, packaged_book
from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED
from engine.solver.fastsearch import COMPILED as FAST_COMPILED
from engine.solver.fastsearch import FastSearch, fits
from engine.solver.limits import Limits, SearchStopped, search_seconds
from engine.solver.opponent import classic_fits, classic_position
from engine.solver.search import WIN, GameSearch

HELP = "print the exact score of positions read from standard input"
PROG = "popref solve"
CORES = ("auto", "compiled", "python")


def add_common(parser: argparse.ArgumentParser) -> None:
    """The options ``solve`` and ``bestmove`` share."""
    parser.add_argument(
        "--rules", default="classic", metavar="NAME", help=f"{', '.join(RULES_NAMES)}"
    )
    parser.add_argument(
        "--size", metavar="WxH", help="board size, edge strips included (default: the game's)"
    )
    parser.add_argument(
        "--core", choices=CORES, default="auto", help="the Classic solver core (for tests)"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``popref solve``'s options on ``parser``."""
    add_common(parser)
    parser.add_argument("--all", action="store_true", help="print the score of every legal move")
    parser.add_argument(
        "--movetime",
        type=int,
        metavar="MS",
        help="give up on a position (exit 2) after MS milliseconds (default: never, "
        "except Classic which is always solved)",
    )


def rules_from(args: argparse.Namespace, prog: str) -> Rules | None:
    """The rules the options name, or None after printing the error."""
    try:
        size = parse_size(args.size) if args.size is not None else None
        return rules_named(args.rules, size)
    except RulesError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return None


def warn_if_slow(rules: Rules, core: str, prog: str) -> None:
    """The log line for a game whose compiled core is missing."""
    missing = not COMPILED if classic_fits(rules) else fits(rules) and not FAST_COMPILED
    if core != "python" and missing:
        print(f"{prog}: the compiled solver core is not installed; using the pure-Python core "
              "(same answers, much slower): reinstall popref with a C compiler",
              file=sys.stderr)  # fmt: skip


def run(args: argparse.Namespace, clock: Callable[[], float] = time.monotonic) -> int:
    """Solve every line and return the exit status (2 for bad input);
    ``clock`` times the progress lines of a long Classic solve."""
    rules = rules_from(args, PROG)
    if rules is None:
        return 2
    warn_if_slow(rules, args.core, PROG)
    if args.core == "compiled" and not COMPILED:
        print(f"{PROG}: --core compiled: the compiled core is not installed", file=sys.stderr)
        return 2
    score: Callable[[Game, int], str]
    if classic_fits(rules):
        solver = ClassicSolver(rules.width, rules.height, core=args.core)
        progress = Progress(solver, clock, sys.stderr, PROG)
        score = _classic(solver, _book(rules), progress, args.all)
    else:
        # the fast search where the board fits its 64-bit model, else through engine.Game
        search = FastSearch(rules, core=args.core) if fits(rules) else GameSearch(rules)
        score = _general(search, args.all, args.movetime)
    try:
        for number, line in lines(sys.stdin):
            text, game = read_position(line, rules, number)
            print(f"{text} {score(game, number)}", flush=True)
    except PositionInputError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    return 0


def _book(rules: Rules) -> Book | None:
    """The shipped book, or None after saying why it cannot be used."""
    try:
        return packaged_book(rules.width, rules.height)
    except BookError as error:
        print(f"{PROG}: solving without the opening book ({error}): {REBUILD}", file=sys.stderr)
        return None


def _classic(
    solver: ClassicSolver, book: Book | None, progress: Progress, every: bool
) -> Callable[[Game, int], str]:
    # the book's exact scores are the solver's own (it was built by it); an
    # entry that holds only the outcome is solved
    known = book.exact_score if book is not None else None

    def score(game: Game, number: int) -> str:
        position = classic_position(game)
        if not every:
            progress.start(f"line {number}", after_move=False)
            found = known(position) if known is not None else None
            return str(solver.solve(position, progress.should_stop) if found is None else found)
        scores = []
        for column in range(1, position.width + 1):
            if position.can_play(column):
                progress.start(f"line {number}, move {column}", after_move=True)
                value = solver.move_score(position, column, progress.should_stop, known)
                scores.append(f"{column}:{value}")
        return " ".join(scores)

    return score


def _general(
    search: FastSearch | GameSearch, every: bool, movetime: int | None
) -> Callable[[Game, int], str]:
    def score(game: Game, number: int) -> str:
        limits = Limits()
        if movetime is not None:
            deadline = time.monotonic() + search_seconds(movetime / 1000)
            limits = Limits(should_stop=lambda: time.monotonic() >= deadline)
        try:
            result = search.search(game, limits, all_moves=every, max_depth=10_000, solve=True)
        except SearchStopped:
            result = None
        if result is None or not result.exact:
            raise PositionInputError(
                f"line {number} ({quoted(' '.join(str(m) for m in game.moves) or '-')}): "
                f"not solved within {movetime} ms; allow more with --movetime"
            )
        if not every:
            return str(plies_score(result.scores[result.move]))
        return " ".join(f"{move}:{plies_score(v)}" for move, v in _in_order(game, result.scores))

    return score


def _in_order(game: Game, scores: dict[Move, int]) -> list[tuple[Move, int]]:
    return [(move, scores[move]) for move in game.legal_moves()]


def plies_score(value: int) -> int:
    """A search value as ``N`` (win in N moves), ``-N`` or 0 (draw)."""
    if value >= WIN // 2:
        return WIN - value
    if value <= -WIN // 2:
        return -(WIN + value)
    return 0
