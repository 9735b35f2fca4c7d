"""Command-line parsing shared by every ``popref`` command: one line of error
with exit status 2, as for any other bad input, and the ``--rules`` type.

>>> parser = OneLineParser(prog="popref simulate")
>>> _ = parser.add_argument("--rules", type=rules_name)
>>> parser.parse_args(["--rules", "Pop10"]).rules
'pop10'
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from engine import RulesError, rules_named


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
