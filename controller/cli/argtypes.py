"""Command-line parsing shared by every ``popref`` command: one line of error
with exit status 2, as for any other bad input, the ``--rules`` type (and the
option itself for the commands that run the daemon), and standard input that
reads any bytes.

>>> parser = OneLineParser(prog="popref simulate")
>>> _ = parser.add_argument("--rules", type=rules_name)
>>> parser.parse_args(["--rules", "Pop10"]).rules
'pop10'
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import NoReturn, TextIO

from engine import RULES_NAMES, RulesError, rules_named


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line naming the option, not
    argparse's usage block (``--help`` still shows the usage)."""

    def error(self, message: str) -> NoReturn:
        message = message.removeprefix("argument ")
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def rules_name(text: str) -> str:
    """``--rules``: a rules name, as ``popref replay`` reads it."""
    try:
        return rules_named(text).name
    except RulesError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def config_file(text: str) -> Path:
    """``--config FILE``: a path; an empty one (``--config=``) would be the
    current directory, and its error would name ``.`` instead of the option.

    >>> config_file("")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: needs the path of a TOML file, e.g. --config /etc/popref/config.toml
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "needs the path of a TOML file, e.g. --config /etc/popref/config.toml"
        )
    return Path(text)


def add_new_game_rules(parser: argparse.ArgumentParser) -> None:
    """``--rules NAME``: the rules of a new game, for ``popref run`` and
    ``popref simulate`` (a game in progress keeps its own: they apply from the next)."""
    parser.add_argument(
        "--rules",
        type=rules_name,
        metavar="NAME",
        help=f"the rules of a new game: {', '.join(RULES_NAMES)}",
    )


def lenient_stdin() -> TextIO:
    """Standard input for typed lines: bytes that are not UTF-8 become U+FFFD
    (and so an unknown action or answer) instead of a UnicodeDecodeError."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")
    return sys.stdin
