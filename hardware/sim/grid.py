"""A simulated physical grid: discs, gravity, beams, the slider and the button.

:class:`SimGrid` knows only physical facts. Player actions (``drop``,
``pop``, ``open_slider``, ...) are scheduled on a timeline of wire changes,
with durations drawn from :class:`Physics` by a seeded ``random.Random``;
:meth:`SimGrid.run_until` applies them in time order through any
:class:`~hardware.sim.seam.SensorWires`, setting a :class:`FakeClock` to each
change's time first so the daemon's pin callbacks see the right time.

>>> from hardware.clock import FakeClock
>>> from engine.colour import Colour
>>> clock = FakeClock()
>>> backend, sim, lights = build_simulated_gpio(7, 6, clock)
>>> backend.open(lambda: None)
>>> sim.drop(4, Colour.RED)
>>> sim.run_until(1.0)
>>> backend.poll(clock())
[DiscEntered(column=4, at=0.0, colour=None)]
>>> sim.rows()[-1]
'...R...'
>>> backend.close()
"""

from __future__ import annotations

import heapq
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from engine.colour import Colour, picture
from engine.sentence import Sentence
from hardware.clock import Clock, FakeClock
from hardware.gpio_backend import GpioBackend
from hardware.pinmap import PinMap
from hardware.sim.gpio import MockWires, PinLightReader
from hardware.sim.mockpins import clocked_mock_factory
from hardware.sim.seam import Beam, SensorWires

Span = tuple[float, float]
# popref simulate keeps the grid's discs in the state directory between runs;
# 16 columns of 16 discs are under 400 bytes
SAVED_GRID = "sim-grid.json"
SAVED_GRID_LIMIT = 1 << 16


@dataclass(frozen=True, slots=True)
class Physics:
    """Physical timings in seconds (ranges are drawn uniformly) and faults.

    ``bounce``: longest burst of contact bounce or IR chatter at each beam
    edge (0: clean edges); ``switch_bounce`` the same for slider and button.
    ``missed_edges``: chance that an edge changes the level without the pin
    reporting it. ``gap``: least clear time between two discs in one beam
    (a disc cannot enter a beam the one before it still fills).

    >>> Physics.clean().entry_beam
    (0.04, 0.04)
    """

    entry_beam: Span = (0.020, 0.060)
    fall: Span = (0.15, 0.25)
    pop: Span = (0.10, 0.40)
    exit_beam: Span = (0.020, 0.050)
    slider: Span = (0.30, 0.50)
    gap: float = 0.020
    bounce: float = 0.0
    switch_bounce: float = 0.0
    missed_edges: float = 0.0

    @classmethod
    def clean(cls) -> Physics:
        """Fixed mid-range timings, no bounce, no faults."""
        return cls(
            entry_beam=(0.04, 0.04),
            fall=(0.2, 0.2),
            pop=(0.25, 0.25),
            exit_beam=(0.03, 0.03),
            slider=(0.4, 0.4),
        )

    @classmethod
    def rough(cls) -> Physics:
        """The full ranges with 5 ms bounce on every edge."""
        return cls(bounce=0.005, switch_bounce=0.005)


class SimGridError(ValueError):
    """A physically impossible action: dropping into a full column, popping
    an empty one. ``sentence`` says why, for the simulator's prompt to say it
    in its own language."""

    def __init__(self, sentence: Sentence) -> None:
        super().__init__(sentence)
        self.sentence = sentence


@runtime_checkable
class LossyWires(SensorWires, Protocol):
    """Wires that can change a beam's level without reporting the edge."""

    def beam(self, beam: Beam, column: int, blocked: bool, *, silent: bool = False) -> None: ...


class SimGrid:
    """Columns of discs with gravity, driving sensor wires.

    ``columns_content()`` is what is physically in the grid now (bottom up);
    actions are checked against what it will hold once everything scheduled
    has happened.
    """

    def __init__(
        self,
        columns: int,
        rows: int,
        wires: SensorWires,
        clock: Clock,
        physics: Physics | None = None,
        seed: int = 0,
    ) -> None:
        self.columns = columns
        self.rows_count = rows
        self.wires = wires
        self.clock = clock
        self.physics = physics or Physics()
        self.rng = random.Random(seed)
        self._content: list[list[Colour]] = [[] for _ in range(columns)]
        self._planned: list[list[Colour]] = [[] for _ in range(columns)]
        self._falling: list[list[Colour]] = [[] for _ in range(columns)]  # entered, not landed
        self._slider_open = False
        self._free: dict[tuple[Beam, int], float] = {}
        self._landed: dict[int, float] = {}  # per column: when its last falling disc lands
        self._timeline: list[tuple[float, int, Callable[..., object], tuple[object, ...]]] = []
        self._seq = 0

    # -- the timeline -----------------------------------------------------

    def _at(self, t: float, action: Callable[..., object], *args: object) -> None:
        heapq.heappush(self._timeline, (t, self._seq, action, args))
        self._seq += 1

    def next_time(self) -> float | None:
        """When the next scheduled change happens, or ``None``."""
        return self._timeline[0][0] if self._timeline else None

    def run_until(self, t: float) -> None:
        """Apply every change scheduled up to ``t``, in time order."""
        while self._timeline and self._timeline[0][0] <= t:
            when, _, action, args = heapq.heappop(self._timeline)
            if isinstance(self.clock, FakeClock) and when > self.clock():
                self.clock.set(when)
            action(*args)
        if isinstance(self.clock, FakeClock) and t > self.clock():
            self.clock.set(t)

    def settle(self) -> None:
        """Run until nothing more is scheduled."""
        while (t := self.next_time()) is not None:
            self.run_until(t)

    def _now(self, at: float | None) -> float:
        return self.clock() if at is None else at

    def _draw(self, span: Span) -> float:
        return self.rng.uniform(*span)

    # -- wires, with bounce and missed edges --------------------------------

    def _beam_edge(self, beam: Beam, column: int, blocked: bool) -> None:
        missed = self.rng.random() < self.physics.missed_edges
        if missed and isinstance(self.wires, LossyWires):
            self.wires.beam(beam, column, blocked, silent=True)
        else:
            self.wires.beam(beam, column, blocked)

    def _bursts(self, start: float, end: float, window: float) -> list[tuple[float, bool]]:
        """Edges of a pulse from ``start`` to ``end`` with bounce bursts of up
        to ``window`` seconds after its rise and before its fall."""
        edges = [(start, True)]
        if window > 0:
            for base, sign in ((start, 1), (end, -1)):
                times = self._bounce_times(window)
                if sign < 0:
                    times = [base - x for x in reversed(times)]
                else:
                    times = [base + x for x in times]
                edges += [(tm, i % 2 == 1) for i, tm in enumerate(times)]
        edges.append((end, False))
        return sorted(edges, key=lambda e: e[0])

    def _bounce_times(self, window: float) -> list[float]:
        """An even number of offsets within ``window``: off-on pairs."""
        return sorted(self.rng.uniform(0, window) for _ in range(2 * self.rng.randint(1, 3)))

    def _pulse(self, beam: Beam, column: int, start: float, duration: float) -> None:
        window = min(self.physics.bounce, duration / 4)
        for t, blocked in self._bursts(start, start + duration, window):
            self._at(t, self._beam_edge, beam, column, blocked)
        self._free[(beam, column)] = start + duration + self.physics.gap

    def _switch(self, setter: Callable[[bool], None], t: float, active: bool) -> None:
        window = self.physics.switch_bounce
        if window > 0:
            for i, x in enumerate(self._bounce_times(window)):
                # bounce after the first contact: alternately off and on again
                self._at(t + x, setter, active if i % 2 else not active)
        self._at(t, setter, active)

    def _beam_start(self, beam: Beam, column: int, t: float) -> float:
        return max(t, self._free.get((beam, column), t))

    def _check_column(self, column: int) -> int:
        if not 1 <= column <= self.columns:
            raise SimGridError(
                Sentence(
                    "there is no column {column}; columns are 1 to {columns}",
                    column=column,
                    columns=self.columns,
                )
            )
        return column - 1

    # -- player actions ---------------------------------------------------

    def drop(self, column: int, colour: Colour, at: float | None = None) -> None:
        """A disc of ``colour`` dropped into ``column`` at ``at`` (default now)."""
        i = self._check_column(column)
        if not self._slider_open and len(self._planned[i]) >= self.rows_count:
            raise SimGridError(Sentence("column {column} is full", column=column))
        start = self._beam_start(Beam.ENTRY, column, self._now(at))
        self._at(start, self.wires.disc_colour, column, colour)
        self._pulse(Beam.ENTRY, column, start, self._draw(self.physics.entry_beam))
        # A column is one disc wide: a disc cannot land beneath one that
        # entered before it, however quickly it falls (ties keep their order).
        landing = max(start + self._draw(self.physics.fall), self._landed.get(i, start))
        self._landed[i] = landing
        if self._slider_open:
            # straight through the open slider and out of the bottom
            out = self._beam_start(Beam.EXIT, column, landing)
            self._pulse(Beam.EXIT, column, out, self._draw(self.physics.exit_beam))
        else:
            self._planned[i].append(colour)
            self._falling[i].append(colour)
            self._at(landing, self._land, i)

    def _land(self, i: int) -> None:
        self._content[i].append(self._falling[i].pop(0))

    def pop(self, column: int, at: float | None = None) -> Colour:
        """Push the bottom disc of ``column`` out; returns its colour."""
        i = self._check_column(column)
        if not self._planned[i]:
            raise SimGridError(Sentence("column {column} has no disc to pop", column=column))
        colour = self._planned[i].pop(0)
        start = self._beam_start(Beam.EXIT, column, self._now(at))
        push = self._draw(self.physics.pop)
        beam = min(self._draw(self.physics.exit_beam), push)
        self._pulse(Beam.EXIT, column, start + push - beam, beam)
        self._at(start + push, self._content[i].pop, 0)
        return colour

    def open_slider(self, at: float | None = None) -> None:
        """Open the release slider: every disc falls out within ``slider`` s."""
        t = self._now(at)
        self._slider_open = True
        self._switch(self.wires.slider, t, True)
        for i, discs in enumerate(self._planned):
            column = i + 1
            total = self._draw(self.physics.slider)
            spacing = total / (len(discs) + 1)
            for k in range(len(discs)):
                start = self._beam_start(Beam.EXIT, column, t + spacing * (k + 1))
                beam = min(
                    self._draw(self.physics.exit_beam), max(spacing - self.physics.gap, 0.005)
                )
                self._pulse(Beam.EXIT, column, start, beam)
                self._at(start + beam, self._content[i].pop, 0)
            self._planned[i] = []

    def close_slider(self, at: float | None = None) -> None:
        """Close the slider: the grid holds discs again."""
        self._slider_open = False
        self._switch(self.wires.slider, self._now(at), False)

    def press_button(self, at: float | None = None, duration: float = 0.2) -> None:
        """Press the mode button for ``duration`` seconds (a short press)."""
        t = self._now(at)
        self._switch(self.wires.button, t, True)
        self._switch(self.wires.button, t + duration, False)

    def hold_button(self, at: float | None = None, duration: float = 2.5) -> None:
        """Hold the mode button down for ``duration`` seconds."""
        self.press_button(at, duration)

    # -- faults -----------------------------------------------------------

    def stick_beam(
        self, beam: Beam, column: int, at: float | None = None, duration: float | None = None
    ) -> None:
        """Block a beam (a disc jammed in it, a dirty lens) for ``duration``
        seconds, or until :meth:`unstick_beam`."""
        self._check_column(column)
        t = self._now(at)
        self._at(t, self._beam_edge, beam, column, True)
        if duration is not None:
            self._at(t + duration, self._beam_edge, beam, column, False)

    def unstick_beam(self, beam: Beam, column: int, at: float | None = None) -> None:
        self._at(self._now(at), self._beam_edge, beam, column, False)

    # -- what is in the grid ----------------------------------------------

    def load(self, columns: Sequence[Sequence[Colour]]) -> None:
        """Put discs in the grid at once, bottom up per column, without any
        sensor seeing them: discs that were already there (a restart)."""
        if len(columns) != self.columns or any(len(c) > self.rows_count for c in columns):
            raise SimGridError(
                Sentence(
                    "cannot load {count} columns into a {columns} x {rows} grid",
                    count=len(columns),
                    columns=self.columns,
                    rows=self.rows_count,
                )
            )
        self._content = [list(c) for c in columns]
        self._planned = [list(c) for c in columns]
        self._falling = [[] for _ in columns]

    @property
    def slider_open(self) -> bool:
        return self._slider_open

    def columns_content(self) -> tuple[tuple[Colour, ...], ...]:
        """Each column's discs now, bottom up."""
        return tuple(tuple(c) for c in self._content)

    def rows(self, falling: bool = False) -> list[str]:
        """The grid now, top row first, ``.``/``R``/``Y``; with ``falling``,
        a disc still falling is counted where it lands (it is in its column
        already, and the referee has taken it from the entry beam)."""
        columns = self._content
        if falling:
            columns = [c + f for c, f in zip(self._content, self._falling, strict=True)]
        return picture(columns, self.rows_count)


def saved_grid(columns: Sequence[Sequence[Colour]]) -> bytes:
    """The discs in the grid, bottom up per column, as the simulator keeps
    them between runs (a physical grid keeps its discs when popref stops).

    >>> grid_from_saved(saved_grid([[Colour.RED, Colour.YELLOW], []]))
    [[<Colour.RED: 'red'>, <Colour.YELLOW: 'yellow'>], []]
    """
    return json.dumps({"columns": ["".join(d.letter for d in c) for c in columns]}).encode()


def grid_from_saved(data: bytes) -> list[list[Colour]]:
    """The discs :func:`saved_grid` wrote; ``ValueError`` with a short reason
    for anything else.

    >>> grid_from_saved(b'{"columns": ["RX"]}')
    Traceback (most recent call last):
    ...
    ValueError: "columns" is not a list of strings of R and Y
    """
    if len(data) > SAVED_GRID_LIMIT:
        raise ValueError(f"larger than {SAVED_GRID_LIMIT} bytes")
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise ValueError("not JSON text") from None
    columns = document.get("columns") if isinstance(document, dict) else None
    if not isinstance(columns, list) or not all(
        isinstance(column, str) and not column.strip("RY") for column in columns
    ):
        raise ValueError('"columns" is not a list of strings of R and Y')
    return [[Colour.from_letter(disc) for disc in column] for column in columns]


def build_simulated_gpio(
    columns: int,
    rows: int,
    clock: Clock,
    pinmap: PinMap | None = None,
    physics: Physics | None = None,
    seed: int = 0,
    colour_sensing: bool = False,
) -> tuple[GpioBackend, SimGrid, PinLightReader]:
    """A whole simulated GPIO board: the backend the daemon uses, the grid
    that drives its mock pins, and a reader of what its lights show.

    Without ``pinmap`` the board has every sensor (colour bits too with
    ``colour_sensing``), a light per column, turn lights, a buzzer and servo
    score dials, as far as they fit (:meth:`PinMap.simulated`).
    """
    pins = pinmap or PinMap.simulated(columns, colour_sensing)
    factory = clocked_mock_factory(clock, pins.board_revision)
    wires = MockWires(pins, factory)
    backend = GpioBackend(pins, factory, clock, rows=rows)
    grid = SimGrid(columns, rows, wires, clock, physics, seed)
    return backend, grid, PinLightReader(pins, factory, clock)
