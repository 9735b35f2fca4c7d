"""The ``popref`` command: one entry point, one small module per subcommand.

Each subcommand module exports ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int``. Modules keep heavy imports (gpiozero, pyserial) inside
``run`` so that ``popref replay`` never loads them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from controller.argtypes import OneLineParser

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("controller.simulate_cmd", "play on a simulated grid, by hand or by script"),
    "run": ("controller.run_cmd", "run the referee daemon on the configured board"),
    "replay": ("controller.replay_cmd", "play moves through the rules engine and print the result"),
    "games": ("controller.games_cmd", "list finished games, or print one"),
    "check-wiring": ("controller.wiring_cmd", "check a freshly built board's sensors and lights"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="popref",
        description="Referee for a pop-out Connect Four grid.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command_parser)
        command_parser.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, or one line of error (controller.argtypes)
        return done.code if isinstance(done.code, int) else 2
    try:
        status: int = args._module.run(args)
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
