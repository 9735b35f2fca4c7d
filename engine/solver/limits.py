"""How a caller bounds a search: a stop check, a node budget.

The engine has no clocks: a caller that wants a deadline passes a
``should_stop`` that reads its own clock (and may be set from another
thread, e.g. a :class:`threading.Event`'s ``is_set``).

>>> import threading
>>> stop = threading.Event()
>>> limits = Limits(should_stop=stop.is_set)
>>> limits.stopped(0)
False
>>> stop.set(); limits.stopped(0)
True
>>> Limits(max_nodes=10).stopped(11)
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class SearchStopped(Exception):
    """A search was asked to stop before it had an answer."""


@dataclass(frozen=True)
class Limits:
    """``should_stop`` is polled during the search; ``max_nodes`` caps its size."""

    should_stop: Callable[[], bool] | None = None
    max_nodes: int | None = None

    def stopped(self, nodes: int) -> bool:
        """Whether a search that has visited ``nodes`` positions must stop now."""
        if self.max_nodes is not None and nodes >= self.max_nodes:
            return True
        return self.should_stop is not None and bool(self.should_stop())


def search_seconds(budget: float) -> float:
    """How long a search may run for its move to be ready within ``budget`` seconds.

    A search sees a stop only every few thousand positions, then still makes
    its answer (a short look ahead where the exact solve ran out), and the
    daemon's search process must send it: 6% of the budget, 15 to 60 ms, is
    kept for that.

    >>> round(search_seconds(1.0), 3), round(search_seconds(0.25), 3), search_seconds(0.01)
    (0.94, 0.235, 0.0)
    """
    return max(0.0, budget - min(max(budget * 0.06, 0.015), 0.06))
