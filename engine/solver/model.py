"""The parameters of one game as the searches see it: a named structure.

:class:`ModelSpec` is what the fast search's two cores (``_search.c`` and
its twin ``_pysearch.py``) read, field by field and by name, and what the
one evaluation (:mod:`engine.solver.evaluation`) judges with, for every
search: the fast one and the one through :class:`~engine.Game` (boards past
64 bits, the lower levels). :func:`model_spec` builds it from the rules.

>>> from engine import rules_named
>>> spec = model_spec(rules_named("five"))  # 9 columns: the strips 0 and 8 are not played
>>> spec.line, spec.order, spec.weights, spec.cycles
(5, (4, 3, 5, 2, 6, 1, 7), (0, 1, 4, 16, 128, 0), False)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.bitboard import Layout
from engine.rules import Rules


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One game's board, rules and judgement, as the search cores read them.

    Bitboards (``playable``, ``playable_bottom``, ``windows``, ``red_rows``)
    are in :mod:`engine.bitboard`'s layout; columns in ``order`` are 0-based.
    """

    width: int
    height: int
    line: int  # discs in a row that make a line
    pops: bool  # Pop Out's pops
    pop10: bool
    repetition: int  # the N-th repetition of a position is a draw; 0: off
    popper_wins: bool  # who wins when a pop completes lines for both
    target: int  # Pop 10's points
    order: tuple[int, ...]  # the playable columns, centre first: the search's move order
    playable: int  # the cells discs may be dropped into (not 5-in-a-Row's strips)
    playable_bottom: int  # their bottom row
    windows: tuple[int, ...]  # every run of ``line`` cells
    weights: tuple[int, ...]  # an open window's worth by its number of discs
    cycles: bool  # without the rule, a position met again is judged a draw
    red_rows: int  # the odd rows (from 1 at the bottom): where Red's threats last
    parity: int  # a lasting threat's bonus; 0 where the grid does not fill by drops alone


@cache
def model_spec(rules: Rules) -> ModelSpec:
    """The model of a game under ``rules``."""
    stride = rules.height + 1
    centre = (rules.width - 1) / 2
    columns = [c - 1 for c in rules.playable_columns]
    order = sorted(columns, key=lambda c: (abs(c - centre), c))
    playable = sum(((1 << rules.height) - 1) << (c * stride) for c in columns)
    bottom = sum(1 << (c * stride) for c in columns)
    k = rules.line
    weights = [0] + [4 ** (min(n, 7) - 1) for n in range(1, k + 1)]
    weights[k - 1] *= 2  # one disc short of a line: a threat
    if not rules.pop10:
        weights[k] = 0  # a line ends the game before any judgement
    red_rows, parity = parity_of(rules, playable, weights[k - 1])
    return ModelSpec(
        width=rules.width,
        height=rules.height,
        line=k,
        pops=rules.pops,
        pop10=rules.pop10,
        repetition=rules.repetition or 0,
        popper_wins=rules.both_lines == "popper",
        target=rules.target,
        order=tuple(order),
        playable=playable,
        playable_bottom=bottom,
        windows=tuple(windows_of(rules)),
        weights=tuple(weights),
        cycles=cycles(rules),
        red_rows=red_rows,
        parity=parity,
    )


def windows_of(rules: Rules) -> list[int]:
    """Every run of ``line`` cells on the board, as a bit mask."""
    layout = Layout.of(rules.width, rules.height)
    k = rules.line
    masks = []
    for column in range(rules.width):
        for row in range(rules.height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_c, end_r = column + dc * (k - 1), row + dr * (k - 1)
                if 0 <= end_c < rules.width and 0 <= end_r < rules.height:
                    masks.append(sum(layout.bit(column + dc * i, row + dr * i) for i in range(k)))
    return masks


def cycles(rules: Rules) -> bool:
    """Whether the searches judge a position met again as a draw, without the rule.

    Pops let a game go round in circles (in Pop 10's pop phase, a full grid
    lets a player only pop and return into the same column, for ever). A
    circle makes no progress: a draw (0), full strength leaves it when it is
    ahead and seeks it when it is behind, instead of going round until
    someone stops the game. On the search path the draw is exact (infinite
    play wins for nobody, and a forced win never needs a circle); back to a
    position of the game's past it is a judgement, never exact. With the
    repetition rule on, the rule's own count decides instead.
    """
    return (rules.pops or rules.pop10) and not rules.repetition


def parity_of(rules: Rules, playable: int, threat: int) -> tuple[int, int]:
    """Red's rows (the odd ones, counted from 1 at the bottom) and a threat's bonus there.

    Where every disc is dropped and the columns are of even height, a game
    that fills the grid ends in zugzwang: the player who must drop under the
    other's winning cell loses, and who must is decided by parity. Red can
    hold a threat on an odd row, Yellow one on an even row, to the end (the
    classic rule of Connect Four theory); a threat on the wrong row usually
    comes to nothing. Pops and Pop 10's returns break the parity: no bonus.
    """
    if rules.pops or rules.pop10 or rules.height % 2:
        return 0, 0
    stride = rules.height + 1
    rows = sum(1 << (c * stride + r) for c in range(rules.width) for r in range(0, rules.height, 2))
    return rows & playable, threat
