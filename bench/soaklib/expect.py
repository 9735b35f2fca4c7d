"""What one action on a soak table should lead to."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import Move


@dataclass
class Expect:
    """The mistake the referee should report (if any) and the moves it
    should accept."""

    mistake: str | None = None
    moves: list[Move] = field(default_factory=list)
