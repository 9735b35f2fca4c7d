"""The one evaluation: how every search judges a position it cannot see to the end.

The fast search (its pure twin ``_pysearch.py`` builds on this class; the
compiled ``_search.c`` has the same ``evaluate``, kept equal by the tests
that run both cores side by side), the search through :class:`~engine.Game`
(boards past 64 bits) and the lower levels, whose softmax temperatures are
in its units, all judge with it:

- open lines: each run of ``line`` cells holding discs of one side only
  counts :attr:`~engine.solver.model.ModelSpec.weights` by its number of
  discs (a threat, a disc short of a line, counts double);
- where only drops fill the grid, the parity of the threats
  (:meth:`Evaluation.lasting_threats`): zugzwang decides a filled grid;
- in Pop 10 the points, the discs in the bottom row ready to score and the
  race to the target;
- clamped to :data:`EVAL_CAP`, far from any proven result (``WIN // 2``).

Scores are for the player to move.

>>> from engine import rules_named
>>> from engine.solver.model import model_spec
>>> judge = Evaluation(model_spec(rules_named("classic")))
>>> judge.evaluate(0, 0, 0, 0, 0)
0
>>> centre = 1 << (3 * 7)  # Red's disc at the bottom of column 4, Yellow to move
>>> judge.evaluate(centre, 0, 1, 0, 0)
-7
"""

from __future__ import annotations

from engine import bitboard
from engine.solver.model import ModelSpec

EVAL_CAP = 40_000  # a judgement stays below WIN // 2: it never passes for a proven result
ZUGZWANG = 4  # lasting threats of one side only: that many times a lasting threat
POINT, READY, NEAR_TARGET = 400, 120, 300  # Pop 10: a point, a disc ready to score, a point short


class Evaluation:
    """The judgement of positions of one game (see the module)."""

    def __init__(self, spec: ModelSpec) -> None:
        self.line = spec.line
        self.height = spec.height
        self.stride = stride = spec.height + 1
        self.dirs = (1, stride, stride + 1, stride - 1)
        self.order = spec.order
        self.playable = spec.playable
        self.playable_bottom = spec.playable_bottom
        self.windows = spec.windows
        self.weights = spec.weights
        self.red_rows = spec.red_rows
        self.parity = spec.parity
        self.pop10 = spec.pop10
        self.target = spec.target
        self.column = {c: ((1 << spec.height) - 1) << (c * stride) for c in spec.order}

    def line_cells(self, b: int) -> int:
        """The discs of ``b`` that are part of a line."""
        return bitboard.line_cells(b, self.line, self.dirs)

    def winning_cells(self, b: int, occupied: int) -> int:
        """Empty playable cells that would complete a line for ``b``: cells
        with ``a`` of its discs just before them and ``k - 1 - a`` just after."""
        k = self.line
        cells = 0
        for d in self.dirs:
            before = [-1]  # before[a]: the a cells before are b's (-1: every bit)
            for a in range(1, k):
                before.append(before[-1] & b << a * d)
            after = -1  # the j cells after are b's
            for j in range(k):
                if j:
                    after &= b >> j * d
                cells |= after & before[k - 1 - j]
        return cells & self.playable & ~occupied

    def lasting_threats(self, red: int, yellow: int) -> int:
        """Red's view of the threats that last until the grid fills.

        In each column the lowest threat on its owner's rows (odd for Red,
        even for Yellow) decides who gets the column's zugzwang; a threat
        on the other's rows is blocked in time. A column of Red's beats
        Yellow's claim to the even rows; without one, a column of Yellow's
        wins the filled grid for Yellow.
        """
        occupied = red | yellow
        red_good = self.winning_cells(red, occupied) & self.red_rows
        yellow_good = self.winning_cells(yellow, occupied) & self.playable & ~self.red_rows
        lasting = red_good | yellow_good
        columns = [0, 0]
        for c in self.order:
            cells = lasting & self.column[c]
            if cells:
                columns[not cells & -cells & red_good] += 1
        score = self.parity * (columns[0] - columns[1])
        if columns[0] or columns[1]:
            score += ZUGZWANG * self.parity * (1 if columns[0] else -1)
        return score

    def evaluate(self, red: int, yellow: int, side: int, red_score: int, yellow_score: int) -> int:
        """The judgement for the player to move (``side``: 0 Red, 1 Yellow)."""
        mine, theirs = (yellow, red) if side else (red, yellow)
        weights = self.weights
        score = 0
        for w in self.windows:
            a, c = mine & w, theirs & w
            if a and not c:
                score += weights[a.bit_count()]
            elif c and not a:
                score -= weights[c.bit_count()]
        if self.parity:
            for_red = self.lasting_threats(red, yellow)
            score += -for_red if side else for_red
        if self.pop10:
            own, other = (yellow_score, red_score) if side else (red_score, yellow_score)
            score += POINT * (own - other)
            bottom = self.playable_bottom
            ready = (self.line_cells(mine) & bottom).bit_count()
            against = (self.line_cells(theirs) & bottom).bit_count()
            score += READY * (ready - against)
            if self.target - own <= 1:
                score += NEAR_TARGET
            if self.target - other <= 1:
                score -= NEAR_TARGET
        return max(-EVAL_CAP, min(EVAL_CAP, score))
