"""A token bucket: how often a side may have something journalled."""

from __future__ import annotations


class Rate:
    """A token bucket on the loop's clock: :meth:`take` is true at most
    ``per_second`` times a second on average, ``burst`` at once.

    >>> rate = Rate(2.0, 3)
    >>> [rate.take(0.0) for _ in range(4)], rate.take(0.5), rate.take(0.5)
    ([True, True, True, False], True, False)
    """

    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second, self.burst = per_second, burst
        self._tokens = float(burst)
        self._at: float | None = None

    def take(self, now: float) -> bool:
        if self._at is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._at) * self.per_second)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True
