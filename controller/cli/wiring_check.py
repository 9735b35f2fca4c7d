"""The guided wiring check itself: prompts, the person who answers them, and
the report (``popref check-wiring`` in :mod:`controller.cli.wiring` builds
the backend and the person, real or simulated).
"""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from engine.colour import Colour

if TYPE_CHECKING:
    from hardware.backend import Backend
    from hardware.clock import Clock
    from hardware.display import Display
    from hardware.events import Event
    from hardware.pinmap import PinMap

GRACE = 0.1  # seconds to wait after Enter for a passage to settle
CONNECT_LIMIT = 10.0  # seconds a sensor board has to report before the check gives up
TEND_EVERY = 0.1  # at most this long between polls of a board that must hear the host
YES, NO = ("y", "yes"), ("n", "no")
YES_OR_NO = "Please answer y (yes) or n (no)."


@dataclass(frozen=True, slots=True)
class Prompt:
    """One question: ``text`` for a person, ``part`` names what is checked
    (``"light 3"``, ``"entry 3"``, ``"slider open"``). ``answers`` are the only
    answers understood (none: any line is), and ``reminder`` says them to a
    person who typed another."""

    part: str
    text: str
    answers: tuple[str, ...] = ()
    reminder: str = ""
    # Called while the person is thinking, when the board must go on
    # hearing from the host (the sensor board goes dark after 2 s without
    # it); returns the seconds until it wants calling again.
    idle: Callable[[], float] | None = field(default=None, compare=False)


class Person(Protocol):
    def ask(self, prompt: Prompt) -> str:
        """Show the prompt, do what it asks, return the typed answer: one of
        ``prompt.answers`` when it names any."""
        ...


class StreamPerson:
    """A person at a terminal."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin, self.stdout = stdin, stdout

    def ask(self, prompt: Prompt) -> str:
        answer = self._read(prompt)
        # an answer not understood is asked again, never guessed at: taken as
        # "no", a stray Enter or "j" listed a part that works as missing
        while prompt.answers and answer not in prompt.answers:
            self.stdout.write(f"  {prompt.reminder}\n")
            answer = self._read(prompt)
        return answer

    def _read(self, prompt: Prompt) -> str:
        self.stdout.write(prompt.text + " ")
        self.stdout.flush()
        line = self._line(prompt.idle)
        if not line:
            raise EOFError("no more answers")
        return line.strip().lower()

    def _line(self, idle: Callable[[], float] | None) -> str:
        """The next typed line; with ``idle``, read beside this thread, which
        calls ``idle`` until the line is there (the board stays on this one)."""
        if idle is None:
            return self.stdin.readline()
        typed: queue.SimpleQueue[str] = queue.SimpleQueue()
        threading.Thread(target=lambda: typed.put(self.stdin.readline()), daemon=True).start()
        while True:
            try:
                return typed.get(timeout=idle())
            except queue.Empty:
                continue


@dataclass(frozen=True, slots=True)
class Matcher:
    """The event a sensor prompt expects."""

    kinds: tuple[type, ...]
    column: int | None = None
    open: bool | None = None
    colour: Colour | None = None

    def __call__(self, event: Event) -> bool:
        return (
            isinstance(event, self.kinds)
            and (self.column is None or getattr(event, "column", None) == self.column)
            and (self.open is None or getattr(event, "open", None) == self.open)
            and (self.colour is None or getattr(event, "colour", None) is self.colour)
        )


@dataclass(frozen=True, slots=True)
class Parts:
    """What the check asks about on one board: its outputs and how its
    sensors report. ``counted``: a sensor board, whose beams count a disc
    once the beam clears and which reports no levels a hand could hold."""

    columns: int
    column_lights: bool = True
    turn_red: bool = False
    turn_yellow: bool = False
    score_red: bool = False
    score_yellow: bool = False
    buzzer: bool = False
    colour: bool = False
    counted: bool = False

    @classmethod
    def of_pins(cls, pins: PinMap, columns: int, colour: bool) -> Parts:
        """The outputs a GPIO pin map wires."""
        return cls(
            columns,
            column_lights=bool(pins.column_lights or pins.column_rgb),
            turn_red=pins.turn_red is not None,
            turn_yellow=pins.turn_yellow is not None,
            score_red=bool(pins.score_red_bar or pins.score_red_servo),
            score_yellow=bool(pins.score_yellow_bar or pins.score_yellow_servo),
            buzzer=pins.buzzer is not None,
            colour=colour,
        )

    @classmethod
    def sensor_board(cls, columns: int) -> Parts:
        """The sensor board's: its strip always has a light a column and the
        two turn lights; whether it has score bars, dials or a buzzer only
        its pinmap.py knows, so those are not asked about."""
        return cls(columns, turn_red=True, turn_yellow=True, counted=True)

    def outputs(self) -> list[str]:
        """The outputs' names, as the report names them, in the check's order."""
        names = [f"light {c}" for c in self._numbers()] if self.column_lights else []
        for name, has in (
            ("turn red", self.turn_red),
            ("turn yellow", self.turn_yellow),
            ("score red", self.score_red),
            ("score yellow", self.score_yellow),
            ("buzzer", self.buzzer),
        ):
            if has:
                names.append(name)
        return names

    def sensors(self) -> list[str]:
        """The sensors' names, as the report names them, in the check's order."""
        names = [f"entry {c}" for c in self._numbers()]
        if self.colour:
            names += [f"colour {c}" for c in self._numbers()]
        names += [f"exit {c}" for c in self._numbers()]
        return [*names, "slider open", "slider closed", "button"]

    def _numbers(self) -> range:
        return range(1, self.columns + 1)


@dataclass
class Report:
    worked: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"Worked ({len(self.worked)}): " + (", ".join(self.worked) or "nothing")]
        if self.missing:
            out.append(f"Missing ({len(self.missing)}):")
            out += [f"  {part}: {why}" for part, why in self.missing]
        else:
            out.append("Missing: nothing; the board is wired correctly.")
        return out


class WiringCheck:
    """Walks through every output and sensor of a board: a GPIO one (its
    parts from its pin map), or any backend with ``parts`` named.

    ``levels`` reads the inputs' levels now (a hand still in a beam counts);
    ``ready`` says when a sensor board has reported (the check waits for it,
    and a fault before then ends the check); ``tend`` polls the board while
    the person thinks, for a board that must go on hearing from the host;
    ``typed`` words each sensor step for a person who types what they do on
    the simulated grid (``--by-hand``) instead of doing it and pressing Enter.
    """

    def __init__(
        self,
        backend: Backend,
        person: Person,
        clock: Clock,
        wait: Callable[[float], None],
        *,
        parts: Parts | None = None,
        levels: Callable[[], Mapping[str, bool]] | None = None,
        ready: Callable[[], bool] | None = None,
        tend: bool = False,
        typed: bool = False,
    ) -> None:
        self.backend, self.person, self.clock, self.wait = backend, person, clock, wait
        if parts is None:  # a GPIO backend
            gpio: Any = backend
            parts = Parts.of_pins(gpio.pins, backend.columns, backend.senses_colour)
            levels = levels or gpio.inputs.levels
        self.parts = parts
        self.levels: Callable[[], Mapping[str, bool]] = levels or dict
        self.ready, self.tend, self.typed = ready, tend, typed
        self.report = Report()
        self._pending: list[Event] = []  # what polls while the person thought brought

    def run(self) -> Report:
        self.backend.open(lambda: None)
        try:
            self._connect()
            self._outputs()
            self._sensors()
        finally:
            self.backend.close()
        return self.report

    def _connect(self) -> None:
        """Wait for a sensor board's first report; its fault (silent, the
        MicroPython prompt, the wrong column count) ends the check."""
        from hardware.errors import HardwareError
        from hardware.events import SensorFault

        if self.ready is None:
            return
        end = self.clock() + CONNECT_LIMIT
        while True:
            for event in self.backend.poll(self.clock()):
                if isinstance(event, SensorFault):
                    raise HardwareError(event.message)
            if self.ready():
                return
            now = self.clock()
            if now >= end:
                raise HardwareError(
                    "the sensor board did not report within "
                    f"{CONNECT_LIMIT:.0f} s; check [serial] port and the board's USB cable"
                )
            deadline = self.backend.next_deadline()
            due = deadline if deadline is not None else now + TEND_EVERY
            self.wait(max(0.0, min(end, due) - now))

    def _ask(self, prompt: Prompt) -> str:
        if self.tend:
            prompt = dataclasses.replace(prompt, idle=self._tend)
        return self.person.ask(prompt)

    def _tend(self) -> float:
        """Poll the board (keeping what it reports), and say when next."""
        self._pending += self.backend.poll(self.clock())
        deadline = self.backend.next_deadline()
        if deadline is None:
            return TEND_EVERY
        return min(TEND_EVERY, max(0.0, deadline - self.clock()))

    def _forget(self) -> None:
        """Drop whatever the board reported up to now."""
        self.backend.poll(self.clock())
        self._pending.clear()

    # -- outputs ----------------------------------------------------------

    def _display(self, **kwargs: Any) -> Display:
        from hardware.display import Display

        kwargs.setdefault("columns", Display.dark(self.backend.columns).columns)
        return Display(**kwargs)

    def _light(
        self, part: str, question: str, display: Display, missed: str = "did not see it"
    ) -> None:
        self.backend.show(display)
        answer = self._ask(Prompt(part, f"{question} [y/n]", YES + NO, YES_OR_NO))
        self.backend.show(self._display())
        self._forget()
        if answer in YES:
            self.report.worked.append(part)
        else:
            self.report.missing.append((part, f"the person {missed}"))

    def _outputs(self) -> None:
        from hardware.display import Alert, ColumnLight, Lamp

        parts = self.parts
        dark = self._display()
        self.backend.show(dark)
        if parts.column_lights:
            for c in range(1, self.backend.columns + 1):
                lights = tuple(
                    ColumnLight(Lamp.DROP, Colour.RED) if i == c else ColumnLight()
                    for i in range(1, self.backend.columns + 1)
                )
                self._light(
                    f"light {c}",
                    f"Did the light for column {c} come on?",
                    self._display(columns=lights),
                )
        for colour, has in ((Colour.RED, parts.turn_red), (Colour.YELLOW, parts.turn_yellow)):
            if has:
                self._light(
                    f"turn {colour.value}",
                    f"Did {colour.title}'s turn light come on?",
                    self._display(turn=colour),
                )
        for colour, has in ((Colour.RED, parts.score_red), (Colour.YELLOW, parts.score_yellow)):
            if has:
                scores = (10, 0) if colour is Colour.RED else (0, 10)
                self._light(
                    f"score {colour.value}",
                    f"Does {colour.title}'s score show 10?",
                    self._display(scores=scores),
                )
        if parts.buzzer:
            # a buzzer is heard, not seen: its question and its line in the report say so
            self._light(
                "buzzer",
                "Did you hear the buzzer beep?",
                self._display(alert=Alert.ERROR),
                missed="did not hear it",
            )

    # -- sensors ----------------------------------------------------------

    def _sensors(self) -> None:
        from hardware.events import ButtonHeld, ButtonPressed, DiscEntered, DiscLeft, SliderMoved

        n = self.backend.columns
        for c in range(1, n + 1):
            self._sensor(
                f"entry {c}",
                self._step(f"Drop a red disc into column {c}", "entry"),
                Matcher((DiscEntered,), c),
            )
        if self.parts.colour:
            for c in range(1, n + 1):
                self._sensor(
                    f"colour {c}",
                    self._step(f"Drop a yellow disc into column {c}"),
                    Matcher((DiscEntered,), c, colour=Colour.YELLOW),
                    level=False,
                )
        for c in range(1, n + 1):
            self._sensor(
                f"exit {c}",
                self._step(f"Pop a disc out of the bottom of column {c}", "exit"),
                Matcher((DiscLeft,), c),
            )
        self._sensor(
            "slider open",
            self._step("Open the release slider"),
            Matcher((SliderMoved,), open=True),
            level_name="slider",
        )
        self._sensor(
            "slider closed",
            self._step("Close the release slider"),
            Matcher((SliderMoved,), open=False),
            level=False,
        )
        self._sensor(
            "button",
            self._step("Press the mode button"),
            Matcher((ButtonPressed, ButtonHeld)),
        )

    def _step(self, action: str, beam: str | None = None) -> str:
        """A sensor step's prompt: ``action``, another way to trigger the
        ``beam`` on a real board, and what to do once it is done."""
        if self.typed:
            # on the simulated grid the typed step is the doing: no Enter
            # after it, and no beam a hand could block
            return f"{action}: type what you do (s to skip):"
        if beam is None:
            return f"{action}, then press Enter (s to skip):"
        # a sensor board counts a beam once it clears: a hand left in it is no disc yet
        how = "pass a hand through" if self.parts.counted else "block"
        return f"{action} (or {how} its {beam} beam), then press Enter (s to skip):"

    def _sensor(
        self,
        part: str,
        text: str,
        match: Callable[[Event], bool],
        *,
        level: bool = True,
        level_name: str | None = None,
    ) -> None:
        self._forget()  # anything that came before the prompt
        answer = self._ask(Prompt(part, text))
        if answer.startswith("s"):
            self.report.missing.append((part, "skipped"))
            return
        events = self._collect()
        # a hand still in the beam (or a slider still open) counts: its edge
        # has not finished its passage yet when Enter is pressed
        held = level and self.levels().get(level_name or part, False)
        if any(match(e) for e in events) or held:
            self.report.worked.append(part)
            return
        others = sorted({_describe(e) for e in events})
        why = "nothing seen"
        if others:
            why += "; saw " + ", ".join(others) + " instead (wires swapped?)"
        self.report.missing.append((part, why))

    def _collect(self) -> list[Event]:
        """Events up to a short grace after Enter: the last passage is only
        certain once its beam has stayed clear for the settle window."""
        end = self.clock() + GRACE
        events, self._pending = [*self._pending, *self.backend.poll(self.clock())], []
        while (now := self.clock()) < end:
            deadline = self.backend.next_deadline()
            # a deadline already passed (events left for the next poll) is due now
            self.wait(max(0.0, min(end, deadline if deadline is not None else end) - now))
            events += self.backend.poll(self.clock())
        return events


def _describe(event: Event) -> str:
    from hardware.events import DiscEntered, DiscLeft, SensorFault, SliderMoved

    if isinstance(event, DiscEntered):
        return f"entry {event.column}"
    if isinstance(event, DiscLeft):
        return f"exit {event.column}"
    if isinstance(event, SliderMoved):
        return "slider"
    if isinstance(event, SensorFault):
        return f"a fault on {event.sensor}"
    return "button"
