"""The guided wiring check itself: prompts, the person who answers them, and
the report (``popref check-wiring`` in :mod:`controller.cli.wiring` builds
the backend and the person, real or simulated).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from engine.colour import Colour

if TYPE_CHECKING:
    from hardware.clock import Clock
    from hardware.display import Display
    from hardware.events import Event
    from hardware.gpio_backend import GpioBackend

GRACE = 0.1  # seconds to wait after Enter for a passage to settle
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
        answer = self._read(prompt.text)
        # an answer not understood is asked again, never guessed at: taken as
        # "no", a stray Enter or "j" listed a part that works as missing
        while prompt.answers and answer not in prompt.answers:
            self.stdout.write(f"  {prompt.reminder}\n")
            answer = self._read(prompt.text)
        return answer

    def _read(self, text: str) -> str:
        self.stdout.write(text + " ")
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise EOFError("no more answers")
        return line.strip().lower()


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
    """Walks through every output and sensor of a GPIO board."""

    def __init__(
        self, backend: GpioBackend, person: Person, clock: Clock, wait: Callable[[float], None]
    ) -> None:
        self.backend, self.person, self.clock, self.wait = backend, person, clock, wait
        self.report = Report()

    def run(self) -> Report:
        self.backend.open(lambda: None)
        try:
            self._outputs()
            self._sensors()
        finally:
            self.backend.close()
        return self.report

    # -- outputs ----------------------------------------------------------

    def _display(self, **kwargs: Any) -> Display:
        from hardware.display import Display

        kwargs.setdefault("columns", Display.dark(self.backend.columns).columns)
        return Display(**kwargs)

    def _light(
        self, part: str, question: str, display: Display, missed: str = "did not see it"
    ) -> None:
        self.backend.show(display)
        answer = self.person.ask(Prompt(part, f"{question} [y/n]", YES + NO, YES_OR_NO))
        self.backend.show(self._display())
        self.backend.poll(self.clock())
        if answer in YES:
            self.report.worked.append(part)
        else:
            self.report.missing.append((part, f"the person {missed}"))

    def _outputs(self) -> None:
        from hardware.display import Alert, ColumnLight, Lamp

        pins = self.backend.pins
        dark = self._display()
        self.backend.show(dark)
        if pins.column_lights or pins.column_rgb:
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
        for colour, pin in ((Colour.RED, pins.turn_red), (Colour.YELLOW, pins.turn_yellow)):
            if pin is not None:
                self._light(
                    f"turn {colour.value}",
                    f"Did {colour.title}'s turn light come on?",
                    self._display(turn=colour),
                )
        for colour, has in (
            (Colour.RED, pins.score_red_bar or pins.score_red_servo),
            (Colour.YELLOW, pins.score_yellow_bar or pins.score_yellow_servo),
        ):
            if has:
                scores = (10, 0) if colour is Colour.RED else (0, 10)
                self._light(
                    f"score {colour.value}",
                    f"Does {colour.title}'s score show 10?",
                    self._display(scores=scores),
                )
        if pins.buzzer is not None:
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
                f"Drop a red disc into column {c} (or block its entry "
                "beam), then press Enter (s to skip):",
                Matcher((DiscEntered,), c),
            )
        if self.backend.senses_colour:
            for c in range(1, n + 1):
                self._sensor(
                    f"colour {c}",
                    f"Drop a yellow disc into column {c}, then press Enter (s to skip):",
                    Matcher((DiscEntered,), c, colour=Colour.YELLOW),
                    level=False,
                )
        for c in range(1, n + 1):
            self._sensor(
                f"exit {c}",
                f"Pop a disc out of the bottom of column {c} (or block "
                "its exit beam), then press Enter (s to skip):",
                Matcher((DiscLeft,), c),
            )
        self._sensor(
            "slider open",
            "Open the release slider, then press Enter (s to skip):",
            Matcher((SliderMoved,), open=True),
            level_name="slider",
        )
        self._sensor(
            "slider closed",
            "Close the release slider, then press Enter (s to skip):",
            Matcher((SliderMoved,), open=False),
            level=False,
        )
        self._sensor(
            "button",
            "Press the mode button, then press Enter (s to skip):",
            Matcher((ButtonPressed, ButtonHeld)),
        )

    def _sensor(
        self,
        part: str,
        text: str,
        match: Callable[[Event], bool],
        *,
        level: bool = True,
        level_name: str | None = None,
    ) -> None:
        self.backend.poll(self.clock())  # forget anything that came before the prompt
        answer = self.person.ask(Prompt(part, text))
        if answer.startswith("s"):
            self.report.missing.append((part, "skipped"))
            return
        events = self._collect()
        # a hand still in the beam (or a slider still open) counts: its edge
        # has not finished its passage yet when Enter is pressed
        held = level and self.backend.inputs.levels().get(level_name or part, False)
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
        events = self.backend.poll(self.clock())
        while (now := self.clock()) < end:
            deadline = self.backend.next_deadline()
            self.wait(min(end, deadline if deadline is not None else end) - now)
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
