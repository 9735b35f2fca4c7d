"""What ``bench/linked.py`` counts beyond the soak's tally, and the latency
it measures: a move journalled on grid A to B's having it.

>>> tally = LinkedTally()
>>> tally.fail("journal_divergences", "game 1")
>>> tally.clean
False
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench.soaklib.tally import Tally
from controller.remote.message import Message
from controller.simulator.simulation import Simulation


@dataclass
class LinkedTally(Tally):
    """The soak's tally, and: games whose two sides ended with different
    moves (A's record, A's people's game, B's view), moves compared, and
    the times a person would have had to step in (a link that did not come
    back by itself). All three failures must stay 0."""

    journal_divergences: int = 0
    manual: int = 0
    # by preset, games played to their result (the rest stopped at MOST_PLIES)
    ended: Counter[str] = field(default_factory=Counter)
    unplayed: int = 0  # moves the harness's own people could not make (not popref's fault)
    moves_compared: int = 0
    followed: int = 0  # finished games whose next game B followed on the same link
    follows_checked: bool = False  # only a joined grid in this process is asked to
    # by event: seconds from the fault's end to both grids linked again
    heals: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    @property
    def clean(self) -> bool:
        return super().clean and not (self.journal_divergences or self.manual)

    def presets(self) -> list[str]:
        """The games per rules preset and how many reached their result (the
        grids archive a game when the slider empties it, which this harness
        leaves out: the soak counts archives)."""
        lines = ["games per rules preset", f"  {'preset':<14}{'games':>7}{'to result':>11}"]
        for preset in sorted(self.games):
            lines.append(f"  {preset:<14}{self.games[preset]:>7}{self.ended[preset]:>11}")
        return lines

    def table(self) -> str:
        return "\n".join(
            [
                super().table(),
                f"  moves compared between A's record, A's game and B's view: "
                f"{self.moves_compared}",
                f"  games whose two sides differ {self.journal_divergences} (must be 0)",
                f"  manual steps {self.manual} (must be 0)",
                "  longest heal after the fault ended: "
                + (
                    ", ".join(f"{e} {max(t):.1f} s" for e, t in sorted(self.heals.items()))
                    or "none"
                ),
                f"  games played to their result {self.ended.total()}, "
                + (
                    f"whose next game the joining grid followed on the same link {self.followed}"
                    if self.follows_checked
                    else "their next games not played (only the default side plays them)"
                ),
                f"  games cut short: a move the harness's people could not make {self.unplayed}",
            ]
        )


@dataclass
class Latency:
    """Seconds from a move journalled on A (the referee has played it) to
    B's taking the board's message about it, by whether the network was
    quiet or noisy (:attr:`noisy` is set for each game)."""

    quiet: list[float] = field(default_factory=list)
    noisy_times: list[float] = field(default_factory=list)
    noisy: bool = False
    # --processes: from A's own object for the move (A's lights showing it)
    # to B's, by network; the simulated grid's work to make a disc fall
    # (milliseconds of Python on mock pins, no part of a real drop) is before it
    lights_quiet: list[float] = field(default_factory=list)
    lights_noisy: list[float] = field(default_factory=list)
    _journalled: dict[int, float] = field(default_factory=dict)

    def watch(self, sim: Simulation) -> None:
        """Time the moves ``sim`` journals (a new grid: a new game's count)."""
        self._journalled.clear()
        daemon = sim.daemon
        append = daemon.journal.append

        def timed(record: dict[str, Any]) -> None:
            append(record)
            ply = len(daemon.referee.game.moves)
            if ply and ply not in self._journalled:
                self._journalled[ply] = time.monotonic()

        daemon.journal.append = timed  # type: ignore[method-assign]

    def message(self, message: Message, arrived: float) -> None:
        """The other side took ``message`` at ``arrived``."""
        if message.kind != "move":
            return
        ply = message.fields().get("ply")
        sent = self._journalled.pop(ply, None) if isinstance(ply, int) else None
        if sent is not None:
            self.add(arrived - sent)

    def add(self, seconds: float) -> None:
        """One move's latency, in this game's kind of network."""
        (self.noisy_times if self.noisy else self.quiet).append(seconds)

    def add_lights(self, seconds: float) -> None:
        """One move's time from A's lights to B's, in this game's kind of network."""
        (self.lights_noisy if self.noisy else self.lights_quiet).append(seconds)
