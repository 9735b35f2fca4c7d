"""What the finished outcome tests proved about each move of one Classic position.

The outcome search tests one child at a time; a search stopped by its budget
loses only the test it was running. Every finished test bounds the outcome
(1 win, 0 draw, -1 loss, for the player making the move) of one move, and
those bounds outlive the stop: a move proven lost is never played, one proven
to keep at least a draw is played before any move no test has reached.

>>> proofs = Proofs()
>>> proofs.prove(4, low=0)  # 4 keeps at least a draw
>>> proofs.prove(3, high=-1)  # 3 loses
>>> proofs.safe([3, 4, 5]), proofs.unrefuted([3, 4, 5])
([4], [4, 5])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Proofs:
    """Bounds on each move's outcome for the mover, from finished tests."""

    low: dict[int, int] = field(default_factory=dict)
    high: dict[int, int] = field(default_factory=dict)

    def prove(self, column: int, low: int = -1, high: int = 1) -> None:
        """Narrow ``column``'s outcome to ``[low, high]`` (on top of what is known)."""
        self.low[column] = max(low, self.low.get(column, -1))
        self.high[column] = min(high, self.high.get(column, 1))

    def at_least(self, column: int) -> int:
        """The outcome ``column`` is proven to keep at least (-1: nothing proven)."""
        return self.low.get(column, -1)

    def at_most(self, column: int) -> int:
        """The outcome ``column`` is proven to keep at most (1: nothing proven)."""
        return self.high.get(column, 1)

    def safe(self, columns: Iterable[int]) -> list[int]:
        """The ``columns`` proven to keep at least a draw, in their order."""
        return [c for c in columns if self.at_least(c) >= 0]

    def unrefuted(self, columns: Iterable[int]) -> list[int]:
        """The ``columns`` not proven lost, in their order."""
        return [c for c in columns if self.at_most(c) >= 0]


@dataclass
class ScoreBounds:
    """Bounds on each move's exact score for the mover, from finished tests,
    and so the best move proven so far: what a stopped exact-score search
    still knows. ``order`` ranks moves whose proven scores tie.

    >>> bounds = ScoreBounds([4, 3, 5], {4: 1, 3: -3, 5: -3}, {4: 9, 3: 9, 5: 9})
    >>> bounds.prove(3, low=4)  # 3 wins by at least 4
    >>> bounds.prove(4, high=2)  # 4 wins by at most 2
    >>> bounds.best(), bounds.ceiling(), bounds.open(5)
    ((3, 4), 9, [3, 5])
    """

    order: list[int]
    low: dict[int, int]
    high: dict[int, int]

    def prove(self, column: int, low: int | None = None, high: int | None = None) -> None:
        """Narrow ``column``'s score to at least ``low`` and at most ``high``."""
        if low is not None:
            self.low[column] = max(low, self.low[column])
        if high is not None:
            self.high[column] = min(high, self.high[column])

    def best(self) -> tuple[int, int]:
        """The move with the highest proven score, and that score."""
        column = max(self.order, key=lambda c: (self.low[c], -self.order.index(c)))
        return column, self.low[column]

    def ceiling(self) -> int:
        """The highest score any move may still have."""
        return max(self.high[c] for c in self.order)

    def exact(self) -> bool:
        """Whether :meth:`best` is proven to be the best score of all."""
        return self.best()[1] >= self.ceiling()

    def open(self, score: int) -> list[int]:
        """The moves that may still reach ``score``, the best proven first."""
        reach = [c for c in self.order if self.high[c] >= score]
        return sorted(reach, key=lambda c: -self.low[c])
