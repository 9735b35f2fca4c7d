"""The rule options as one frozen value, the presets, and their combinations.

A preset is a :class:`Rules` value; a combination such as ``five+popout`` is
derived from two presets. Other options are changed with
:func:`dataclasses.replace`, which validates the result:

>>> import dataclasses
>>> rules = dataclasses.replace(rules_named("popout"), repetition=3)
>>> rules.repetition, rules.playable_columns
(3, (1, 2, 3, 4, 5, 6, 7))
>>> rules_named("five").playable_columns
(2, 3, 4, 5, 6, 7, 8)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from engine.errors import RulesError
from engine.sentence import Sentence

MIN_SIDE = 4
MAX_SIDE = 20
BOTH_LINES = ("popper", "opponent")
# the house rule on repetition: a draw on the N-th occurrence, N within these
# (1 would end every game at once; more than 100 is never met in a game)
REPETITION = (2, 100)


@dataclass(frozen=True)
class Rules:
    """Everything that makes one game differ from another.

    ``width`` and ``height`` count the whole board, edge strips included.
    ``line`` is k; ``pops`` allows Pop Out pops; ``pop10`` plays Pop 10;
    ``strips`` adds the 5-in-a-Row edge strips; ``repetition`` (None: off)
    draws on the N-th occurrence of a position with the same player to move;
    ``both_lines`` says who wins when a pop completes lines for both;
    ``target`` is the number of points that wins Pop 10.

    >>> Rules("custom", width=8, height=7, pops=True).title
    'Pop Out'
    """

    name: str = "classic"
    width: int = 7
    height: int = 6
    line: int = 4
    pops: bool = False
    pop10: bool = False
    strips: bool = False
    repetition: int | None = None
    both_lines: Literal["popper", "opponent"] = "popper"
    target: int = 10

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise RulesError(problem)

    def _problem(self) -> str | None:
        for name in ("width", "height", "line", "target"):
            if type(getattr(self, name)) is not int:
                return f"{name} must be a whole number, not {getattr(self, name)!r}"
        (low, high), (lowest, highest) = self.size_bounds
        if not low <= self.width <= high:
            strips = " with its two edge strips" if self.strips else ""
            return f"a board{strips} must be {low} to {high} columns wide, not {self.width}"
        if not lowest <= self.height <= highest:
            return f"a board must be {lowest} to {highest} rows high, not {self.height}"
        if not 3 <= self.line <= max(self.width, self.height):
            return (
                f"a line must be 3 to {max(self.width, self.height)} discs long "
                f"on a {self.width}x{self.height} board, not {self.line}"
            )
        if self.pops and self.pop10:
            return "Pop Out pops and Pop 10 cannot be combined; choose one"
        if self.repetition is not None and (
            type(self.repetition) is not int or self.repetition < 2
        ):
            return f"repetition must be None (off) or a count of 2 or more, not {self.repetition!r}"
        if self.both_lines not in BOTH_LINES:
            return f"both_lines must be 'popper' or 'opponent', not {self.both_lines!r}"
        if self.target < 1:
            return f"the Pop 10 target must be at least 1 point, not {self.target}"
        return None

    @property
    def size_bounds(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The widths and the heights a board of these rules may have, each
        as ``(least, most)``; widths count the edge strips. The one
        statement of the board sizes the engine plays (``GET /api/rules``
        gives them to the pages).

        >>> FIVE.size_bounds
        ((6, 22), (4, 20))
        """
        strips = 2 if self.strips else 0
        return (MIN_SIDE + strips, MAX_SIDE + strips), (MIN_SIDE, MAX_SIDE)

    @cached_property
    def playable_columns(self) -> tuple[int, ...]:
        """The 1-based columns a disc may be dropped into (strips excluded)."""
        if self.strips:
            return tuple(range(2, self.width))
        return tuple(range(1, self.width + 1))

    @property
    def title(self) -> Sentence:
        """The game's name for players, derived from the options: the one
        name every message and light uses, in each reader's language
        (5-in-a-Row, a game of the rules sheet, is named apart from other
        lines: a language may name it by its number).

        >>> rules_named("five+popout").title
        '5-in-a-Row Pop Out'
        """
        if self.line == 5:
            if self.pop10:
                return Sentence("5-in-a-Row Pop 10")
            return Sentence("5-in-a-Row Pop Out") if self.pops else Sentence("5-in-a-Row")
        if self.strips or self.line != 4:
            if self.pop10:
                return Sentence("{line}-in-a-Row Pop 10", line=self.line)
            if self.pops:
                return Sentence("{line}-in-a-Row Pop Out", line=self.line)
            return Sentence("{line}-in-a-Row", line=self.line)
        if self.pop10:
            return Sentence("Pop 10")
        return Sentence("Pop Out") if self.pops else Sentence("Classic")

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the whole board."""
        return (self.width, self.height)


CLASSIC = Rules("classic")
POPOUT = Rules("popout", pops=True)
POP10 = Rules("pop10", pop10=True)
FIVE = Rules("five", width=9, line=5, strips=True)


def combine(base: Rules, variant: Rules) -> Rules:
    """``base`` played with the pop rules of ``variant``: five + popout.

    >>> combine(FIVE, POP10).name
    'five+pop10'
    """
    return dataclasses.replace(
        base, name=f"{base.name}+{variant.name}", pops=variant.pops, pop10=variant.pop10
    )


PRESETS: dict[str, Rules] = {
    rules.name: rules
    for rules in (CLASSIC, POPOUT, POP10, FIVE, combine(FIVE, POPOUT), combine(FIVE, POP10))
}
RULES_NAMES: tuple[str, ...] = tuple(PRESETS)


def rules_named(name: str, size: tuple[int, int] | None = None) -> Rules:
    """The preset called ``name``, on a board of ``size`` (strips included).

    >>> rules_named("five+popout", (11, 7)).playable_columns
    (2, 3, 4, 5, 6, 7, 8, 9, 10)
    """
    preset = PRESETS.get(name.strip().lower()) if isinstance(name, str) else None
    if preset is None:
        raise RulesError(f"unknown rules {name!r}: choose one of {', '.join(RULES_NAMES)}")
    if size is None:
        return preset
    try:
        width, height = size
    except (TypeError, ValueError):
        raise RulesError(f"a size is (width, height), not {size!r}") from None
    return dataclasses.replace(preset, width=width, height=height)


def parse_size(text: str) -> tuple[int, int]:
    """Read ``WxH``, e.g. ``7x6``.

    >>> parse_size("9x6")
    (9, 6)
    """
    width, sep, height = text.strip().lower().partition("x")
    # isascii: str.isdigit() also takes '²', which int() refuses
    if not (sep and f"{width}{height}".isascii() and width.isdigit() and height.isdigit()):
        raise RulesError(f"bad size {text!r}: write WIDTHxHEIGHT, for example 7x6")
    if len(width) > 9 or len(height) > 9:  # and int() refuses 4300 digits
        raise RulesError(f"bad size {text[:12]!r}...: no board is that large")
    return int(width), int(height)
