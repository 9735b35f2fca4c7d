"""The messages a remote seat ignored, counted by why: added from the
broker's network thread, said in the log from the loop at most once a
minute, so a flood of forgeries costs the log one line.

>>> dropped = Dropped()
>>> for why in ("flood", "replayed", "flood"):
...     dropped.add(why)
>>> print(dropped.report(0.0))
The remote seat ignored 3 messages (flood 2, replayed 1).
>>> dropped.add("foreign")
>>> dropped.report(30.0) is None  # within the minute: counted on
True
>>> print(dropped.report(60.0))
The remote seat ignored 1 message (foreign 1).
"""

from __future__ import annotations

import threading
from collections import Counter

from controller.i18n.text import Text, _n

REPORT = 60.0  # seconds between two sentences


class Dropped:
    """The count, by why, of the messages ignored since the last sentence."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._next: float | None = None  # the loop's clock: no sentence before it

    def add(self, why: str) -> None:
        """One more message ignored for ``why`` (any thread)."""
        with self._lock:
            self._counts[why] += 1

    def report(self, now: float) -> Text | None:
        """The sentence that counts them, when any were ignored and the last
        one was said a minute ago or more (the loop's clock ``now``); None
        otherwise."""
        if self._next is not None and now < self._next:
            return None
        with self._lock:
            counts, self._counts = self._counts, Counter()
        if not counts:
            return None
        self._next = now + REPORT
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items()))
        return _n(
            "The remote seat ignored {n} message ({kinds}).",
            "The remote seat ignored {n} messages ({kinds}).",
            sum(counts.values()),
            kinds=kinds,
        )
