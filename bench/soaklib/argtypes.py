"""The benches' own argument types (the product's are controller/cli/argtypes.py).

>>> whole_number("3")
3
"""

from __future__ import annotations

import argparse


def whole_number(text: str) -> int:
    """A whole number, 0 or more, for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; use 0 or more")
    return value
