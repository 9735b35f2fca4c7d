"""The soak's counters and the table it prints.

>>> tally = Tally()
>>> tally.games["classic"] += 1
>>> tally.inject("illegal-drop", detected=True, repaired=True)
>>> print(tally.table().splitlines()[0])
games per rules preset
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Tally:
    """Everything counted during one soak.

    ``injected``/``detected``/``repaired`` are keyed by the kind of mistake or
    fault. ``divergences`` and ``crashes`` must end at 0; ``problems`` keeps
    one line per failure so a red run says what went wrong.
    """

    games: Counter[str] = field(default_factory=Counter)
    links: Counter[str] = field(default_factory=Counter)  # games per link: gpio, serial
    finished: Counter[str] = field(default_factory=Counter)
    archived: Counter[str] = field(default_factory=Counter)
    injected: Counter[str] = field(default_factory=Counter)
    detected: Counter[str] = field(default_factory=Counter)
    repaired: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    actions: int = 0
    checks: int = 0
    divergences: int = 0
    undetected: int = 0
    false_alarms: int = 0
    light_mismatches: int = 0
    crashes: int = 0
    torn_by_kill: int = 0
    lights_back: float = 0.0  # the longest wait for the strip after a serial fault, s
    # the remote seat: games with a friend, the friend's moves made on the
    # grid, its requests (and those sent again after no answer), the
    # board's refusals by code, and requests never answered (must be 0)
    remote_games: int = 0
    remote_moves: int = 0
    requests: int = 0
    resent: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    lost: int = 0
    # how a kill while the friend's request travelled came out: "journalled"
    # (it waited after the restart) or "asked again" (it died with the daemon)
    in_flight: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def inject(self, kind: str, *, detected: bool, repaired: bool) -> None:
        self.injected[kind] += 1
        self.detected[kind] += detected
        self.repaired[kind] += repaired

    def fail(self, counter: str, line: str) -> None:
        """Count one failure of ``counter`` (an attribute) and keep its story."""
        setattr(self, counter, getattr(self, counter) + 1)
        self.problems.append(f"{counter}: {line}")

    def merge(self, other: Tally) -> None:
        for name in (
            "games",
            "links",
            "finished",
            "archived",
            "injected",
            "detected",
            "repaired",
            "refused",
            "in_flight",
        ):
            getattr(self, name).update(getattr(other, name))
        for name in (
            "moves",
            "actions",
            "checks",
            "divergences",
            "undetected",
            "false_alarms",
            "light_mismatches",
            "crashes",
            "torn_by_kill",
            "remote_games",
            "remote_moves",
            "requests",
            "resent",
            "lost",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.lights_back = max(self.lights_back, other.lights_back)
        self.problems += other.problems

    @property
    def missing_archives(self) -> int:
        return sum(max(0, self.finished[k] - self.archived[k]) for k in self.finished)

    @property
    def clean(self) -> bool:
        """Whether the run proved what it must: nothing diverged, crashed,
        went unnoticed or was lost."""
        return not (
            self.divergences
            or self.crashes
            or self.undetected
            or self.false_alarms
            or self.light_mismatches
            or self.missing_archives
            or self.lost
        )

    def presets(self) -> list[str]:
        """The games per rules preset: played, finished, and archived."""
        lines = [
            "games per rules preset",
            f"  {'preset':<14}{'games':>7}{'finished':>10}{'archived':>10}",
        ]
        for preset in sorted(self.games):
            lines.append(
                f"  {preset:<14}{self.games[preset]:>7}{self.finished[preset]:>10}"
                f"{self.archived[preset]:>10}"
            )
        return lines

    def table(self) -> str:
        lines = self.presets()
        if self.links:
            lines.append(
                "  by link: "
                + ", ".join(f"{link} {self.links[link]}" for link in sorted(self.links))
            )
        lines += [
            "mistakes and faults by kind",
            f"  {'kind':<22}{'injected':>9}{'detected':>10}{'repaired':>10}",
        ]
        for kind in sorted(self.injected):
            lines.append(
                f"  {kind:<22}{self.injected[kind]:>9}{self.detected[kind]:>10}"
                f"{self.repaired[kind]:>10}"
            )
        lines += [
            "totals",
            f"  actions {self.actions}, accepted moves {self.moves}, settled checks {self.checks}",
            f"  restarts whose saved grid was one action off the journal: {self.torn_by_kill}",
            f"  longest wait for the lights after a serial fault: {self.lights_back:.2f} s",
        ]
        if self.remote_games:
            refused = ", ".join(f"{code} {n}" for code, n in sorted(self.refused.items()))
            lines += [
                f"  with a friend on the broker: {self.remote_games} games, "
                f"{self.remote_moves} remote moves, {self.requests} requests "
                f"({self.resent} sent again after no answer), refused: {refused or 'none'}",
                "  killed while the friend's request travelled: "
                + (", ".join(f"{k} {n}" for k, n in sorted(self.in_flight.items())) or "none"),
                f"  remote requests lost {self.lost} (must be 0)",
            ]
        lines += [
            f"  divergences {self.divergences} (must be 0)",
            f"  crashes {self.crashes} (must be 0)",
            f"  undetected visible mistakes {self.undetected} (must be 0)",
            f"  false alarms {self.false_alarms} (must be 0)",
            f"  lights not matching the display {self.light_mismatches} (must be 0)",
            f"  finished games missing from the archive {self.missing_archives} (must be 0)",
        ]
        lines += [f"  ! {p}" for p in self.problems[:20]]
        return "\n".join(lines)
