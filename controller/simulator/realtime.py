"""Simulated time that follows the real clock while a person (or a
harness) has not yet given the next line: the interactive terminal and
``popref simulate --script -`` wait for a line and for the daemon's next
deadline at once, and let that much time pass on the simulated grid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from controller.simulator.simulation import Simulation

# the shortest wait for a deadline: one a rounding error away is waited for,
# not spun on (simulated and real time add up their seconds separately)
SOONEST = 0.001


class Typed(Protocol):
    """Where the lines come from."""

    def get(self, timeout: float | None) -> str | None:
        """The next line (``""`` at the end of input), or ``None`` when
        ``timeout`` seconds pass first or :meth:`wake` is called."""
        ...

    def wake(self) -> None:
        """End a :meth:`get` that is waiting, from any thread."""
        ...


class RealTime:
    """Waits for the next line of ``lines`` while simulated time keeps up
    with ``clock``, one deadline at a time; :meth:`passed` is told each time
    it has caught up (a subclass shows what changed)."""

    def __init__(self, simulation: Simulation, lines: Typed, clock: Callable[[], float]) -> None:
        self.simulation, self.lines, self.clock = simulation, lines, clock
        self.synced = clock()  # the real time simulated time has caught up with

    def next_line(self) -> str:
        """The next line (``""`` at the end of input)."""
        while True:
            with self.simulation.lock:
                due = self.simulation.daemon.next_deadline()
                now = self.simulation.clock()
            timeout = None if due is None else max(due - now, SOONEST)
            started = self.clock()
            line = self.lines.get(timeout)
            waited = self.clock() - started
            # a wait that ran its full length has reached its deadline (to
            # within the rounding of the two clocks' sums)
            full = timeout is not None and waited >= timeout - SOONEST
            reached = due if line is None and full else None
            with self.simulation.lock:
                self.passed(reached, typed=line is not None)
            if line is not None:
                return line

    def passed(self, reached: float | None, typed: bool) -> None:
        """Real time has passed (up to ``reached``, simulated, at least),
        then a line came if ``typed``. The simulation is locked."""
        self.catch_up(reached)

    def catch_up(self, reached: float | None) -> None:
        """Let the real time since the last catch-up pass on the simulated
        grid, up to ``reached`` (simulated) at least. The simulation is locked."""
        now = self.clock()
        until = self.simulation.clock() + max(0.0, now - self.synced)
        self.simulation.advance_to(until if reached is None else max(until, reached))
        self.synced = now
