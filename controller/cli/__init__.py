"""The ``popref`` command: one entry point, one small module per subcommand.

Each subcommand module exports ``add_arguments(parser)`` and ``run(args) ->
int``; its one line of help is here, in :data:`COMMANDS`. Only the chosen
subcommand's module is imported, so ``popref replay`` never loads the
simulator, gpiozero or pyserial.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from controller.cli.argtypes import OneLineParser

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": (
        "controller.cli.simulate",
        "play on a simulated grid in the terminal, or run a script of physical actions",
    ),
    "run": ("controller.cli.run", "run the referee daemon on the configured board"),
    "play": (
        "controller.cli.play",
        "play as the remote player of an invitation link, moves from standard input",
    ),
    "remote-page": (
        "controller.cli.remote_page",
        "write the remote page into a directory, for a broker's own web server",
    ),
    "replay": ("controller.cli.replay", "play moves through the rules engine and print the result"),
    "games": ("controller.cli.games", "list the finished games, or print one game's record"),
    "check-wiring": (
        "controller.cli.wiring",
        "check a new board's wiring: light each output, ask for each sensor",
    ),
    "solve": ("controller.cli.solve", "print the exact score of positions read from stdin"),
    "bestmove": ("controller.cli.bestmove", "print the computer's move for positions from stdin"),
    "book": ("controller.cli.book", "build the Classic opening book (resumable, reproducible)"),
    "install": (
        "controller.cli.install",
        "install the service on this Raspberry Pi: user, configuration, unit; start it",
    ),
    "uninstall": (
        "controller.cli.uninstall",
        "remove what popref install did (the saved games stay unless --purge)",
    ),
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line for ``argv``: every subcommand's name and help, and
    the arguments of the one ``argv`` chooses (of all of them without
    ``argv``), importing only the modules it needs."""
    parser = OneLineParser(
        prog="popref",
        description="Referee for a pop-out Connect Four grid.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    # the top level has no options but -h: the first word is the subcommand
    chosen = next((a for a in argv if not a.startswith("-")), None) if argv is not None else None
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        command_parser.set_defaults(_module=module_name)
        if argv is None or name == chosen:
            importlib.import_module(module_name).add_arguments(command_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(arguments).parse_args(arguments)
    except SystemExit as done:  # --help, or one line of error (controller.cli.argtypes)
        return done.code if isinstance(done.code, int) else 2
    module = importlib.import_module(args._module)
    try:
        status: int = module.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()
    return status


def _reader_gone() -> int:
    """The reader of standard output closed it (``| head``): end quietly, as
    a command killed by SIGPIPE does, instead of a traceback at exit when
    Python flushes what is left for a pipe nobody reads."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 128 + signal.SIGPIPE
