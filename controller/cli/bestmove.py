"""``popref bestmove``: the computer's move for positions read from standard input.

One position a line (see :mod:`controller.cli.positions`); for each it prints the
move the computer plays, as soon as the line is read, and flushes, so another
program can play a whole game through one running process. ``--level``
chooses the strength (the engine's levels, from one a child can beat to full
strength, the default); ``--seed`` makes
the lower levels' choices reproducible; ``--movetime`` bounds the thinking
(full strength only: lower levels look a fixed depth ahead). A move not
proven to keep the result (the exact solve did not finish in time) gets an
info line on standard error, in the locale's language. Bad input: one line
naming the input line, exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from controller.cli.positions import PositionInputError, lines, read_position
from controller.cli.solve import add_common, rules_from, warn_if_slow
from controller.computer.helper import outcome_move_here
from controller.i18n.text import _t, from_locale
from engine.move import Move
from engine.solver.cores import COMPILED
from engine.solver.limits import Limits, search_seconds
from engine.solver.opponent import MAX_LEVEL, MIN_LEVEL, Opponent

HELP = "print the computer's move for positions read from standard input"
PROG = "popref bestmove"
DEFAULT_MOVETIME = 1000  # ms: the budget on a Raspberry Pi 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``popref bestmove``'s options on ``parser``."""
    add_common(parser)
    parser.add_argument(
        "--level",
        type=int,
        default=MAX_LEVEL,
        metavar="N",
        help=f"strength, {MIN_LEVEL} (a child can beat it) to {MAX_LEVEL} (full strength, "
        "the default)",
    )
    parser.add_argument(
        "--movetime",
        type=int,
        default=DEFAULT_MOVETIME,
        metavar="MS",
        help=f"thinking time per move in milliseconds (default {DEFAULT_MOVETIME})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the lower levels' choices")


def run(args: argparse.Namespace) -> int:
    """Answer every line and return the exit status (2 for bad input)."""
    rules = rules_from(args, PROG)
    if rules is None:
        return 2
    if not MIN_LEVEL <= args.level <= MAX_LEVEL:
        print(f"{PROG}: --level {args.level}: levels are {MIN_LEVEL} to {MAX_LEVEL}",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.movetime < 1:
        print(f"{PROG}: --movetime {args.movetime}: give at least 1 ms", file=sys.stderr)
        return 2
    if args.core == "compiled" and not COMPILED:
        print(f"{PROG}: --core compiled: the compiled core is not installed", file=sys.stderr)
        return 2
    warn_if_slow(rules, args.core, PROG)
    # no board shares this process's machine: a helper wherever there are two cores
    helped = outcome_move_here(board=False)
    opponent = Opponent(
        rules, level=args.level, seed=args.seed, core=args.core, outcome_move=helped
    )
    if opponent.book_problem is not None:
        print(f"{PROG}: {opponent.book_problem}", file=sys.stderr)
    try:
        for number, line in lines(sys.stdin):
            deadline = time.monotonic() + search_seconds(args.movetime / 1000)
            _text, game = read_position(line, rules, number)
            choice = opponent.choose(game, Limits(should_stop=_past(deadline)))
            print(choice.move, flush=True)
            if args.level == MAX_LEVEL and not choice.proven:  # lower levels never are
                print(f"{PROG}: line {number}: {_unproven(choice.move)}", file=sys.stderr)
    except PositionInputError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    return 0


def _unproven(move: Move) -> str:
    """The info line's sentence, in the locale's language."""
    sentence = _t(
        "Move {move} is not proven: the time ran out before the search showed "
        "that it keeps the result.",
        move=str(move),
    )
    return sentence.render(from_locale(os.environ))


def _past(deadline: float) -> Callable[[], bool]:
    return lambda: time.monotonic() >= deadline
