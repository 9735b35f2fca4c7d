"""The people of ``popref check-wiring --sim``: one simulated, who does what
each prompt asks on the simulated grid and answers from what the output pins
show; and the person at the terminal (``--by-hand``), who is told what the
simulated lights show and does each step in the simulator's shorthand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from controller.cli.wiring_check import Prompt, StreamPerson
from controller.simulator.script import ScriptError, parse_command
from engine.colour import Colour
from hardware.sim.gpio import BLINK_WINDOW
from hardware.sim.grid import SimGrid, SimGridError
from hardware.sim.seam import LightReader, ShownLights

# the prompts that ask for something to be done to a sensor, by their part's first word
SENSORS = ("entry", "colour", "exit", "slider", "button")
HOW = """\
  (On the simulated grid, type what you do: r3 drops a red disc into column 3,
  y3 a yellow one, p3 pops the bottom disc of column 3, o and c open and close
  the slider, b presses the mode button. Enter alone asks again; s skips.)"""
NOTHING_DONE = "Nothing done yet: type what you do (? shows how), or s to skip."


class SimPerson:
    """Does what each prompt asks on the simulated grid and answers light
    questions from what the output pins show.

    ``settle`` runs the grid until the action is done (by default the
    grid alone; the simulated sensor board must run beside it), and
    ``look`` lets time pass before a light question is answered (a sensor
    board draws what it is shown on its next pass)."""

    def __init__(
        self,
        grid: SimGrid,
        reader: LightReader,
        out: TextIO,
        settle: Callable[[], None] | None = None,
        look: Callable[[], None] = lambda: None,
    ) -> None:
        self.grid, self.reader, self.out = grid, reader, out
        self.settle = settle or grid.settle
        self.look = look

    def ask(self, prompt: Prompt) -> str:
        kind, _, number = prompt.part.partition(" ")
        g = self.grid
        if kind == "entry":
            g.drop(int(number), Colour.RED)
        elif kind == "colour":
            g.drop(int(number), Colour.YELLOW)
        elif kind == "exit":
            g.pop(int(number))
        elif prompt.part == "slider open":
            g.open_slider()
        elif prompt.part == "slider closed":
            g.close_slider()
        elif kind == "button":
            g.press_button()
        else:
            self.look()
            answer = "y" if self._sees(prompt.part) else "n"
            self.out.write(f"{prompt.text} {answer}\n")
            return answer
        self.settle()
        self.out.write(f"{prompt.text} (done)\n")
        return ""

    def _sees(self, part: str) -> bool:
        shown = self.reader.shown()
        kind, _, rest = part.partition(" ")
        if kind == "light":
            return shown.columns[int(rest) - 1] is not None
        if part == "turn red":
            return shown.turn_red
        if part == "turn yellow":
            return shown.turn_yellow
        if part == "buzzer":
            return shown.buzzer
        if part.startswith("score"):
            side = 0 if "red" in part else 1
            return shown.scores is not None and shown.scores[side] == 10
        return False


class HandSimPerson:
    """The person at the terminal, checking the simulated grid by hand:
    told what the simulated lights show for each light question, and doing
    each sensor step with one action in the simulator's shorthand.
    ``wait`` lets simulated time pass, ``settle`` runs the grid until an
    action is done (as for :class:`SimPerson`)."""

    def __init__(
        self,
        person: StreamPerson,
        grid: SimGrid,
        reader: LightReader,
        wait: Callable[[float], None],
        settle: Callable[[], None] | None = None,
    ) -> None:
        self.person, self.grid, self.reader, self.wait = person, grid, reader, wait
        self.settle = settle or grid.settle
        self.out: TextIO = person.stdout
        self._told = False

    def ask(self, prompt: Prompt) -> str:
        if prompt.part.partition(" ")[0] not in SENSORS:
            # long enough to tell a lit light from one that just went out
            self.wait(BLINK_WINDOW)
            self.out.write(f"  ({told(self.reader.shown())})\n")
            return self.person.ask(prompt)
        if not self._told:
            self.out.write(HOW + "\n")
            self._told = True
        while True:
            typed = self.person.ask(prompt)
            if typed in ("s", "skip"):
                return typed
            refusal = self._step(typed)
            if refusal is None:
                return ""
            self.out.write(f"{refusal}\n" if refusal is HOW else f"  {refusal}\n")

    def _step(self, typed: str) -> str | None:
        """Do ``typed``, a step; what to tell the person instead, if it was none."""
        if typed == "":
            # Enter alone moves nothing on the simulated grid: moving on would
            # list the sensor as missing for a key pressed by mistake
            return NOTHING_DONE
        if typed in ("?", "help"):
            return HOW
        return self._do(typed)

    def _do(self, typed: str) -> str | None:
        """Do ``typed`` on the grid; why it could not be done, if it could not."""
        try:
            action = parse_command(typed, self.grid.columns)
        except ScriptError as error:
            return error.reason
        if action is None or action.verb == "wait":
            return None
        g = self.grid
        try:
            if action.verb == "drop":
                g.drop(action.column, action.colour or Colour.RED)
            elif action.verb == "pop":
                g.pop(action.column)
            elif action.verb == "open":
                g.open_slider()
            elif action.verb == "close":
                g.close_slider()
            elif action.verb == "hold":
                g.hold_button()
            else:  # a press, or two
                g.press_button()
        except SimGridError as error:
            return str(error)
        self.settle()
        return None


def told(shown: ShownLights) -> str:
    """What the simulated board shows and sounds, for a person who can
    neither see nor hear it.

    >>> told(ShownLights((None, None), frozenset(), False, False, None, True))
    'the simulated board shows no column lit; no turn light; you hear its buzzer beep'
    """
    heard = "; you hear its buzzer beep" if shown.buzzer else ""
    return f"the simulated board shows {seen(shown)}{heard}"


def seen(shown: ShownLights) -> str:
    """What the lights show, for a person who cannot see them.

    >>> seen(ShownLights((None, "red", None), frozenset(), True, False, (10, 0), False))
    'column 2 (red) lit; the turn light of Red; scores Red 10, Yellow 0'
    """
    lit = [
        f"{number} ({look})" if look != "on" else f"{number}"
        for number, look in enumerate(shown.columns, start=1)
        if look is not None
    ]
    columns = "column" if len(lit) == 1 else "columns"
    parts = [f"{columns} {', '.join(lit)} lit" if lit else "no column lit"]
    turns = [name for name, on in (("Red", shown.turn_red), ("Yellow", shown.turn_yellow)) if on]
    parts.append(f"the turn light of {' and '.join(turns)}" if turns else "no turn light")
    if shown.scores is not None:
        parts.append(f"scores Red {shown.scores[0]}, Yellow {shown.scores[1]}")
    return "; ".join(parts)
