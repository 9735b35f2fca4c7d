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
