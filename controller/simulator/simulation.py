"""The daemon on the simulated grid in simulated time.

Physical actions go to the simulated grid, which drives the same pins a real
grid would (gpiozero's mock pins, or the simulated sensor board's with
``[sim] link = "serial"``); time moves only when an action (or ``wait``)
moves it, so a script's run is exactly repeatable. (The interactive terminal,
:mod:`controller.simulator.terminal`, also lets it follow the real clock while nobody
types.) The grid's own content is saved next to the journal: a
physical grid keeps its discs when the daemon stops, so a second run with the
same state directory finds them again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.computer.thinker import InlineThinker, Thinker
from controller.daemon.assembly import assemble
from controller.daemon.config import Config
from controller.referee.commands import Command, TakebackAsked, TakebackDeclined
from controller.referee.verdict import Reply, Verdict
from controller.simulator.script import Action
from controller.store.journal import replace_file
from engine.colour import Colour
from hardware.backend import Backend
from hardware.clock import FakeClock
from hardware.display import Display
from hardware.sim.board import BoardTimeline
from hardware.sim.grid import SAVED_GRID, Physics, SimGrid, saved_grid
from hardware.sim.seam import LightReader

if TYPE_CHECKING:
    from controller.remote.link import Link

log = logging.getLogger("popref")

SETTLE = 1.5  # seconds after an action: discs land, players think
HOLD = 2.5  # seconds the button is held for ``hold``
PRESS = 0.2
DOUBLE_GAP = 0.15  # between the two presses of ``double``


@dataclass
class Outcome:
    """What one action led to."""

    action: str
    verdicts: list[Verdict]

    @property
    def mistakes(self) -> list[str]:
        return [v.mistake for v in self.verdicts if v.mistake]


class Simulation:
    """A whole popref, simulated: grid, pins, backend, referee, journal."""

    def __init__(
        self,
        config: Config,
        state_dir: Path,
        rules: str | None = None,
        physics: Physics | None = None,
        opponent: str | None = None,
        thinker: Thinker | None = None,
        clock: FakeClock | None = None,
        ponder: bool = False,
        level: int | None = None,
        remote: Colour | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.clock = clock or FakeClock()
        self.state_dir = state_dir
        # time stands still between actions here, so the computer thinks at
        # once, and not on the player's time (``ponder``: tests with a thinker
        # of their own)
        thinker = thinker or InlineThinker(config.opponent.think)
        self._grid_file = state_dir / SAVED_GRID
        assembled = assemble(
            None,
            rules,
            state_dir,
            self.clock,
            config=config,
            physics=physics,
            thinker=thinker,
            ponder=ponder,
            grid_file=self._grid_file,
            wall=wall,
        )
        self.daemon = assembled.daemon
        # as the page chooses them: they stand until the configuration changes
        if opponent is not None:
            self.daemon.choose_computer(None if opponent == "none" else Colour(opponent))
        if level is not None:
            self.daemon.choose_level(level)
        # each invitation's link, as the remote seat makes it (simulate prints it)
        self.links: list[str] = []
        if self.daemon.remote is not None:
            self.daemon.remote.on_invited = self.links.append
            if remote is not None:
                self.daemon.choose_remote(remote)
        assert assembled.sim is not None
        self.grid: SimGrid = assembled.sim.grid
        self.lights: LightReader = assembled.sim.lights
        # the simulated sensor board (over the serial link), for its faults
        self.board: BoardTimeline | None = assembled.sim.board
        # the real backend the daemon reads through the simulation
        self.backend: Backend = assembled.sim.backend.inner
        self._last_dropped: Colour | None = None
        # the terminal (or script) and the web page's commands take turns
        self.lock = threading.RLock()
        # told after a command from the page was taken in (the terminal redraws)
        self.on_command: Callable[[], None] | None = None
        # told before: simulated time catches up with the real clock, where it
        # follows one (the interactive terminal), so the command is dated now
        self.catch_up: Callable[[], None] | None = None
        self.daemon.open()
        self.advance(SETTLE)

    # -- actions ------------------------------------------------------------------

    def submit(self, command: Command, reply: Reply | None = None) -> None:
        """A command from the web page, taken in at once: simulated time
        stands still between actions, so nothing else would step the daemon.
        Safe from any thread."""
        self._taken(lambda: self.daemon.submit(command, reply))

    def join(self, link: Link, reply: Reply | None = None) -> None:
        """A link given on the web page, taken in at once, as :meth:`submit`."""
        self._taken(lambda: self.daemon.join(link, reply))

    def leave(self, reply: Reply | None = None) -> None:
        """The page leaves the linked game it joined, likewise."""
        self._taken(lambda: self.daemon.leave(reply))

    def _taken(self, hand: Callable[[], None]) -> None:
        with self.lock:
            if self.catch_up is not None:
                self.catch_up()
            hand()
            self.advance(0.0)
            if self.on_command is not None:
                self.on_command()

    def act(self, action: Action) -> Outcome:
        with self.lock:
            return self._act(action)

    def _act(self, action: Action) -> Outcome:
        verdicts: list[Verdict] = []
        verb = action.verb
        if verb == "drop":
            colour = action.colour or self.asked_colour(action.column)
            self.grid.drop(action.column, colour)
            self._last_dropped = colour
        elif verb == "pop":
            self.grid.pop(action.column)
        elif verb == "open":
            self.grid.open_slider()
            self._last_dropped = None  # the grid empties: a new game
        elif verb == "close":
            self.grid.close_slider()
        elif verb == "press":
            self.grid.press_button(duration=PRESS)
        elif verb == "hold":
            self.grid.hold_button(duration=HOLD)
            verdicts += self.advance(HOLD)
        elif verb == "double":
            self.grid.press_button(duration=PRESS)
            self.grid.press_button(at=self.clock() + PRESS + DOUBLE_GAP, duration=PRESS)
        elif verb == "takeback":
            # the page's controls, as a person at the table asks for them
            self.daemon.submit(TakebackAsked())
        elif verb == "decline":
            self.daemon.submit(TakebackDeclined())
        if verb == "wait" and self.remote_in_game():
            verdicts += self.wait_real(action.ms / 1000)
        elif verb == "wait":
            verdicts += self.advance(action.ms / 1000)
        else:
            verdicts += self.advance(SETTLE)
        self._save_grid()
        # discs have landed since the referee's last word: the page sees the grid as it is
        self.daemon.publish()
        return Outcome(action.text, verdicts)

    def asked_colour(self, column: int) -> Colour:
        """The colour a person at the table drops when the script does not
        say: what the lights ask for, as they see them (never the referee's
        own state). The lit turn light, else the colour ``column``'s light
        shows (an LED strip lights it in the colour to drop), else the other
        colour than the last disc they dropped in this game, else Red, who
        starts."""
        shown = self.lights.shown()
        if shown.turn_red != shown.turn_yellow:
            return Colour.RED if shown.turn_red else Colour.YELLOW
        look = shown.columns[column - 1] if column <= len(shown.columns) else None
        for colour in Colour:
            if look == colour.value:
                return colour
        if self._last_dropped is not None:
            return self._last_dropped.other
        return Colour.RED

    def advance(self, seconds: float) -> list[Verdict]:
        """Let ``seconds`` of simulated time pass, stepping the daemon at every
        moment something is due."""
        return self.advance_to(self.clock() + seconds)

    def advance_to(self, end: float) -> list[Verdict]:
        """Let simulated time pass until ``end`` (the clock's time), stepping
        the daemon at every moment something is due."""
        verdicts: list[Verdict] = []
        for _ in range(100_000):
            due = self.daemon.next_deadline()
            if due is None or due > end:
                break
            self.clock.set(max(due, self.clock()))
            verdicts += self.daemon.step(self.clock())
        self.clock.set(end)
        verdicts += self.daemon.step(end)
        return verdicts

    def remote_in_game(self) -> bool:
        """Whether a remote player has a seat in this game (its moves come in
        real time, through the broker)."""
        return bool(self.daemon.sides()) and self.daemon.referee.remote.colour() is not None

    def wait_real(self, seconds: float, now: Callable[[], float] = time.monotonic) -> list[Verdict]:
        """Let ``seconds`` of real time pass, simulated time with it, taking
        in what arrives from other threads (the remote player's requests) as
        it comes."""
        end = now() + seconds
        verdicts: list[Verdict] = []
        while (left := end - now()) > 0:
            due = self.daemon.next_deadline()
            if due is not None:
                left = min(left, max(0.0, due - self.clock()))
            began = now()
            self.daemon.idle(left)
            verdicts += self.advance(now() - began)
        return verdicts

    # -- what is shown ----------------------------------------------------------------

    def display(self) -> Display:
        return self.daemon.display()

    def state(self, action: str | None) -> dict[str, Any]:
        """The JSON object ``simulate --json`` prints after an action (``None``:
        after a change no action made)."""
        return {"action": action, **self.daemon.state()}

    def close(self) -> None:
        self._save_grid()
        self.daemon.close()

    # -- the physical grid survives restarts ------------------------------------------

    def _save_grid(self) -> None:
        try:
            # not synced: it is what the simulated table holds, lost only
            # with the laptop's power, and each action writes it
            replace_file(
                self._grid_file, saved_grid(self.grid.columns_content()), 0o644, sync=False
            )
        except OSError as error:
            # a real grid keeps its discs without a disk: the daemon's own
            # storage fault is what the players see
            log.debug("Cannot save the simulated grid: %s.", error.strerror)
