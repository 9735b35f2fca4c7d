"""The simulated grid in a terminal: a picture of the grid and its lights, and
a prompt that takes physical actions, one a line. A command from the web
page (``popref simulate --web``) redraws the picture at once, under the prompt
the player is typing at.

While nobody types, simulated time follows the real clock: the prompt waits
for a line only until the daemon's next deadline, lets that much time pass on
the simulated grid and redraws the picture if it changed (a hint goes dark, a
pairing request runs out, the computer's move lights up).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from typing import TextIO

from controller.daemon.logs import above
from controller.i18n import text as i18n
from controller.i18n.text import ENGLISH, N_, Text, _t
from controller.i18n.words import disc as disc_word
from controller.i18n.words import player, reason
from controller.simulator.realtime import RealTime, Typed
from controller.simulator.script import ScriptError, parse_command
from controller.simulator.simulation import Simulation
from hardware.display import Lamp
from hardware.sim.grid import SimGridError

CLEAR_LINE = "\r\033[K"  # back to the line's start, and the line erased (ANSI)
LAMP_MARKS = {
    Lamp.OFF: " ",
    Lamp.DROP: "v",
    Lamp.POP: "^",
    Lamp.DROP_OR_POP: "*",
    Lamp.CHOSEN: ">",
    Lamp.ERROR: "!",
    Lamp.WINNING: "#",
    Lamp.COMPUTER_DROP: "V",
    Lamp.COMPUTER_POP: "A",
    # a hint must not look like the computer's move, as on the lamps and the page
    Lamp.HINT_DROP: "h",
    Lamp.HINT_POP: "H",
}

HELP = N_("""\
Actions (one a line):
  4         drop a disc into column 4, of the colour the board asks for
  r4, y4    drop a Red or Yellow disc into column 4
  p4        pop the bottom disc of column 4
  o, c      open or close the slider
  b, h      press or hold the mode button
  d         press it twice quickly: mid-game a hint for the player to move;
            between games the opponent (two players, the computer as Yellow,
            as Red)
  t         take back the last move (against the computer: your last turn);
            linked grids: ask the other grid, or agree when it asks
  n         linked grids: decline the other grid's takeback
  w 500     wait 500 ms
  q         quit (the game is kept for next time; hold the button for a new
            one)
Lights above the grid: v drop, ^ pop, * drop or pop, > do this next, ! fix
this, # winning line, V / A drop or pop for a move to make for another player
(the computer, a friend, the other grid), h / H for a hint.
A lower-case r or y is a disc the referee counts as the other colour (it
cannot see colours).
The full forms of a script work too: drop 4 yellow, pop 2, slider open,
press, double, hold, takeback, decline, wait 500.""")


def render(simulation: Simulation, language: str = ENGLISH) -> str:
    """The grid as players see it: lights on top, discs, turn and scores,
    in ``language``."""
    shown = simulation.display()
    columns = len(shown.columns)
    numbers = " ".join(f"{c % 10}" for c in range(1, columns + 1))
    marks = " ".join(LAMP_MARKS[light.lamp] for light in shown.columns)
    lines = [f"  {numbers}", f"  {marks}"]
    rows, disagreements = _grid_as_counted(simulation)
    lines += [f" |{' '.join(row)}|" for row in rows]
    lines.append(" +" + "-" * (2 * columns - 1) + "+")
    lines += [f"  {note.render(language)}" for note in disagreements]
    turn = player(shown.turn) if shown.turn is not None else "-"
    facts = [_t("turn light: {colour}", colour=turn)]
    if shown.scores is not None:
        red, yellow = shown.scores
        facts.append(_t("scores Red {red} : {yellow} Yellow", red=red, yellow=yellow))
    lines.append("  " + "   ".join(fact.render(language) for fact in facts))
    lines.append(f"  {i18n.render(_keyed(simulation, shown.status), language)}")
    if shown.fault and shown.fault != shown.status:
        lines.append(f"  ! {i18n.render(shown.fault, language)}")
    return "\n".join(lines)


def _keyed(simulation: Simulation, status: str) -> str:
    """The board's status as the terminal says it: the other side's takeback
    question names the keys that answer it (the page has buttons)."""
    referee = simulation.daemon.referee
    if not referee.remote.agreement.theirs or not isinstance(status, Text):
        return status
    asked = referee.takeback_question().pieces
    keyed = _t(
        "The other side asks to take back {move}: type t to take it back too and agree, "
        "or n to decline.",
        move=referee.last_move(),
    ).pieces
    return Text(p for piece in status.pieces for p in (keyed if (piece,) == asked else (piece,)))


def _grid_as_counted(simulation: Simulation) -> tuple[list[str], list[Text]]:
    """The simulated grid's rows (top first), a disc in lower case where the
    referee counts it as another colour than it is (without colour sensing it
    takes each disc for the colour the board asked for), and a note for each."""
    actual = simulation.grid.columns_content()
    counted = simulation.daemon.referee.grid
    height = simulation.daemon.table.rows
    cells = [[c[r].letter if r < len(c) else "." for c in actual] for r in range(height)]
    notes: list[Text] = []
    for index, (discs, beliefs) in enumerate(zip(actual, counted, strict=True)):
        for row, (disc, belief) in enumerate(zip(discs, beliefs, strict=False)):
            if belief is not disc:
                cells[row][index] = disc.letter.lower()
                letter, column = disc.letter.lower(), index + 1
                if belief is not None:
                    note = _t(
                        "{letter} in column {column}: a {colour} disc that the referee "
                        "counts as {counted} (it cannot see colours)",
                        letter=letter,
                        column=column,
                        colour=disc_word(disc),
                        counted=player(belief),
                    )
                else:
                    note = _t(
                        "{letter} in column {column}: a {colour} disc whose colour "
                        "the referee does not know",
                        letter=letter,
                        column=column,
                        colour=disc_word(disc),
                    )
                notes.append(note)
    return ["".join(row) for row in reversed(cells)], notes


class Lines:
    """The lines of ``stream``, read on a thread of their own, so that the
    prompt can wait for one and for the daemon's next deadline at once."""

    _WAKE = object()

    def __init__(self, stream: TextIO) -> None:
        self._queue: queue.SimpleQueue[str | object] = queue.SimpleQueue()
        # a daemon thread: at the prompt's end it may still wait in readline()
        reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        reader.name = "popref-typing"
        reader.start()

    def _read(self, stream: TextIO) -> None:
        try:
            while line := stream.readline():
                self._queue.put(line)
        except (OSError, ValueError):
            pass  # the terminal hung up, or the stream was closed: the end of input
        self._queue.put("")

    def get(self, timeout: float | None) -> str | None:
        try:
            line = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        return line if isinstance(line, str) else None

    def wake(self) -> None:
        self._queue.put(self._WAKE)


def interact(
    simulation: Simulation,
    stdin: TextIO,
    stdout: TextIO,
    language: str = ENGLISH,
    *,
    typed: Typed | None = None,
    clock: Callable[[], float] = time.monotonic,
    one_screen: bool = False,
) -> int:
    """Read actions until ``q`` or the end of input; speak ``language``.
    Simulated time follows ``clock`` (the real one) between the lines
    ``typed`` gives (by default, those of ``stdin``). ``one_screen``: the
    log's sentences (standard error) show on the same terminal, so each
    is written on a line of its own and the prompt again below it."""
    columns = simulation.daemon.table.columns
    welcome = _t(
        "popref on a simulated {columns}-column grid; the game is kept in "
        "{place} for next time. Type ? for help.",
        columns=columns,
        place=str(simulation.state_dir),
    )
    writing = threading.Lock()  # the page's thread and this one take turns
    lines = typed or Lines(stdin)
    prompt = _Prompt(simulation, lines, stdout, writing, language, clock)
    stdout.write(welcome.render(language) + "\n")
    with simulation.lock:
        stdout.write(prompt.picture() + "\n")

    def redraw() -> None:
        # called on the web server's thread while the simulation is locked
        with writing:
            heading = _t("(from the web page)").render(language)
            stdout.write(f"{prompt.over_the_prompt()}{heading}\n{prompt.picture()}\n> ")
            stdout.flush()
        lines.wake()  # the page may have set a new deadline (a pairing request)

    simulation.on_command = redraw
    simulation.catch_up = lambda: prompt.catch_up(None)
    # the friend's request, the other grid's move: taken, and the picture
    # drawn again, at once
    simulation.daemon.listen(lines.wake)
    # what arrived before the prompt listened (the broker's connection coming
    # up, the other grid's hello) is taken at once, not at the next deadline
    lines.wake()

    def beside_the_prompt(write: Callable[[], None]) -> None:
        with writing:
            showing = prompt.showing
            if showing:  # the prompt's line cleared, the sentence, the prompt again
                stdout.write(CLEAR_LINE)
                stdout.flush()
            write()
            if showing:
                stdout.write("> ")
                stdout.flush()

    try:
        with above(beside_the_prompt) if one_screen else contextlib.nullcontext():
            return prompt.run()
    finally:
        simulation.on_command = simulation.catch_up = None
        simulation.daemon.listen(None)


class _Prompt(RealTime):
    """The prompt's loop: a line, or the daemon's next deadline, whichever
    comes first."""

    def __init__(
        self,
        simulation: Simulation,
        lines: Typed,
        stdout: TextIO,
        writing: threading.Lock,
        language: str,
        clock: Callable[[], float],
    ) -> None:
        super().__init__(simulation, lines, clock)
        self.stdout, self.writing, self.language = stdout, writing, language
        self.showing = False  # the prompt waits for a line at the end of the screen
        # a terminal, whose prompt line a picture drawn unasked takes over
        self.erase = stdout.isatty()
        # the picture last drawn (the simulation locked): the display is read
        # live (a link's state, say, is whatever it is when read), so what
        # changed while nobody typed is told by comparing with this
        self.drawn = ""

    def picture(self) -> str:
        """The picture now, remembered as the one last drawn (the simulation is locked)."""
        self.drawn = render(self.simulation, self.language)
        return self.drawn

    def say(self, text: str) -> None:
        with self.writing:
            self.stdout.write(text)
            self.stdout.flush()

    def over_the_prompt(self) -> str:
        """What begins a picture drawn while nobody typed (under ``writing``):
        on a terminal, the waiting prompt's line cleared, so no empty prompt
        is left above the picture; elsewhere a new line."""
        return CLEAR_LINE if self.showing and self.erase else "\n"

    def _showing(self, showing: bool) -> None:
        """The prompt shown and waiting, or its line taken (a log sentence
        from another thread reads this under the same lock)."""
        with self.writing:
            if showing:
                self.stdout.write("> ")
                self.stdout.flush()
            self.showing = showing

    def run(self) -> int:
        while True:
            self._showing(True)
            line = self.next_line()
            self._showing(False)
            if not line or line.strip().lower() in ("q", "quit", "exit"):
                self.say("\n")
                return 0
            self._take(line)

    def passed(self, reached: float | None, typed: bool) -> None:
        """The picture drawn again if it changed while nobody typed."""
        self.catch_up(reached)
        if typed:
            return
        now = render(self.simulation, self.language)
        if now != self.drawn:
            self.drawn = now
            with self.writing:
                self.stdout.write(f"{self.over_the_prompt()}{now}\n> ")
                self.stdout.flush()

    def _take(self, line: str) -> None:
        """One typed line: help, a mistake to explain, or an action."""
        language = self.language
        if line.strip() in ("?", "help"):
            self.say(_t(HELP).render(language) + "\n")
            return
        try:
            action = parse_command(line, self.simulation.daemon.table.columns)
        except ScriptError as error:
            self.say(f"{i18n.render(error.reason, language)}\n")
            return
        if action is None:
            return
        with self.simulation.lock:
            try:
                self.simulation.act(action)
            except SimGridError as error:
                picture = reason(error.sentence).render(language)
            else:
                picture = self.picture()
        self.say(picture + "\n")
