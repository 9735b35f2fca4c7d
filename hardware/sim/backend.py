"""The simulated grid as a backend, so the daemon sees only backends.

:class:`SimulatedBackend` is the real backend the simulated grid drives (the
GPIO backend on mock pins, or the serial backend talking to the simulated
sensor board) with the simulation's own timeline run before every poll: the
grid's wire changes, and the simulated board's main-loop passes, up to the
poll's time. Its deadlines include the timeline's, so a daemon loop on the
real clock wakes when a simulated disc reaches a beam.

>>> from hardware.clock import FakeClock
>>> from hardware.sim.grid import build_simulated_gpio
>>> from engine.colour import Colour
>>> clock = FakeClock()
>>> gpio, grid, lights = build_simulated_gpio(7, 6, clock)
>>> backend = SimulatedBackend(gpio, grid, grid)
>>> backend.open(lambda: None)
>>> grid.drop(4, Colour.RED)
>>> backend.next_deadline()
0.0
>>> backend.poll(1.0)
[DiscEntered(column=4, at=0.0, colour=None)]
>>> backend.close()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hardware.backend import Backend, Counting, Mark, Marked
from hardware.clock import Clock
from hardware.display import Display
from hardware.events import Event
from hardware.serial_config import SerialConfig
from hardware.sim.seam import LightReader

if TYPE_CHECKING:
    from hardware.sim.board import BoardTimeline
    from hardware.sim.grid import Physics, SimGrid


class Timeline(Protocol):
    """Something with its own schedule: the simulated grid
    (:class:`~hardware.sim.grid.SimGrid`), or the grid and the simulated
    sensor board together (:class:`~hardware.sim.board.BoardTimeline`)."""

    def next_time(self) -> float | None: ...

    def run_until(self, t: float) -> None: ...


class SimulatedBackend:
    """``inner`` (the backend on the simulated wires) with ``timeline`` run
    up to each poll. It passes on the sensor board's counter marks when
    ``inner`` keeps them (:class:`~hardware.backend.Counting`), and sees
    what ``grid`` holds (:class:`~hardware.backend.Seeing`)."""

    def __init__(
        self,
        inner: Backend,
        timeline: Timeline,
        grid: SimGrid,
        on_close: Callable[[], object] | None = None,
    ) -> None:
        self.inner = inner
        # asked once: a runtime Protocol check costs more than a poll of the
        # wires, and the loop polls many times a simulated drop
        self._counting = inner if isinstance(inner, Counting) else None
        self.timeline = timeline
        self.grid = grid
        self._on_close = on_close

    @property
    def columns(self) -> int:
        return self.inner.columns

    @property
    def rows(self) -> int:
        return self.inner.rows

    @property
    def senses_colour(self) -> bool:
        return self.inner.senses_colour

    def open(self, wake: Callable[[], None]) -> None:
        self.inner.open(wake)

    def poll(self, now: float) -> list[Event]:
        return [event for event, _ in self.poll_marked(now)]

    def poll_marked(self, now: float) -> list[Marked]:
        self.timeline.run_until(now)
        if self._counting is not None:
            return self._counting.poll_marked(now)
        return [(event, None) for event in self.inner.poll(now)]

    def resume(self, mark: Mark) -> None:
        # a mark from the sensor board means nothing to a GPIO board
        if self._counting is not None:
            self._counting.resume(mark)

    def next_deadline(self) -> float | None:
        times = (self.inner.next_deadline(), self.timeline.next_time())
        known = [t for t in times if t is not None]
        return min(known) if known else None

    def show(self, display: Display) -> None:
        self.inner.show(display)

    def contents(self) -> list[str]:
        # a falling disc counted as landed: a state published when the
        # referee takes the drop must not show the grid a disc behind it
        return self.grid.rows(falling=True)

    def close(self) -> None:
        self.inner.close()
        if self._on_close is not None:
            self._on_close()


@dataclass
class SimulatedTable:
    """A whole simulated table: the backend the daemon uses, the grid the
    players act on, what they see, and (over the serial link) the simulated
    sensor board, for its faults (unplug, reset, corrupted bytes)."""

    backend: SimulatedBackend
    grid: SimGrid
    lights: LightReader
    board: BoardTimeline | None = None


def build_simulated(
    columns: int,
    rows: int,
    clock: Clock,
    *,
    link: str = "gpio",
    physics: Physics | None = None,
    seed: int = 0,
    colour_sensing: bool = False,
    serial: SerialConfig | None = None,
) -> SimulatedTable:
    """The simulated table for ``[sim] link`` (``"gpio"``: gpiozero's mock
    pins; ``"serial"``: the real firmware on a pty). ``serial`` holds the
    host's ``[serial]`` settings (the simulated board names its own port)."""
    if link == "serial":
        from hardware.sim.board import build_simulated_serial

        # one timeline: the grid and the board's main loop together
        serial_backend, grid, strip, board = build_simulated_serial(
            columns, rows, clock, physics=physics, seed=seed, serial=serial
        )
        backend = SimulatedBackend(serial_backend, board, grid, on_close=board.close)
        return SimulatedTable(backend, grid, strip, board)
    from hardware.sim.grid import build_simulated_gpio

    gpio, grid, lights = build_simulated_gpio(
        columns, rows, clock, physics=physics, seed=seed, colour_sensing=colour_sensing
    )
    return SimulatedTable(SimulatedBackend(gpio, grid, grid), grid, lights)
