"""The simulated grid in a terminal: a picture of the grid and its lights, and
a prompt that takes physical actions, one a line. A command from the web
page (``popref simulate --web``) redraws the picture at once, under the prompt
the player is typing at."""

from __future__ import annotations

import threading
from typing import TextIO

from controller.script import Action, ScriptError, excerpt, parse_line
from controller.simulation import Simulation
from hardware.display import Lamp
from hardware.sim.grid import SimGridError

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
}

HELP = """\
Actions (one a line):
  4         drop a disc into column 4, of the colour the board asks for
  r4, y4    drop a Red or Yellow disc into column 4
  p4        pop the bottom disc of column 4
  o, c      open or close the slider
  b, h      press or hold the mode button
  d         press it twice quickly: mid-game a hint for the player to move;
            between games the opponent (two players, the computer as Yellow, as Red)
  w 500     wait 500 ms
  q         quit (the game is kept for next time; hold the button for a new one)
Lights above the grid: v drop, ^ pop, * drop or pop, > do this next, ! fix this, # winning line,
V / A drop or pop for the computer's move (or a hint).
A lower-case r or y is a disc the referee counts as the other colour (it cannot see colours).
The full forms of a script work too: drop 4 yellow, pop 2, slider open, press, double, hold,
wait 500."""

SHORT_VERBS = {"p": "pops from", "r": "drops a Red disc into", "y": "drops a Yellow disc into"}
SHORTHAND = {"o": "slider open", "c": "slider close", "b": "press", "h": "hold", "d": "double"}


def render(simulation: Simulation) -> str:
    """The grid as players see it: lights on top, discs, turn and scores."""
    shown = simulation.display()
    columns = len(shown.columns)
    numbers = " ".join(f"{c % 10}" for c in range(1, columns + 1))
    marks = " ".join(LAMP_MARKS[light.lamp] for light in shown.columns)
    lines = [f"  {numbers}", f"  {marks}"]
    rows, disagreements = _grid_as_counted(simulation)
    lines += [f" |{' '.join(row)}|" for row in rows]
    lines.append(" +" + "-" * (2 * columns - 1) + "+")
    lines += [f"  {note}" for note in disagreements]
    turn = shown.turn.title if shown.turn is not None else "-"
    facts = [f"turn light: {turn}"]
    if shown.scores is not None:
        facts.append(f"scores Red {shown.scores[0]} : {shown.scores[1]} Yellow")
    lines.append("  " + "   ".join(facts))
    lines.append(f"  {shown.status}")
    if shown.fault and shown.fault != shown.status:
        lines.append(f"  ! {shown.fault}")
    return "\n".join(lines)


def _grid_as_counted(simulation: Simulation) -> tuple[list[str], list[str]]:
    """The simulated grid's rows (top first), a disc in lower case where the
    referee counts it as another colour than it is (without colour sensing it
    takes each disc for the colour the board asked for), and a note for each."""
    actual = simulation.grid.columns_content()
    counted = simulation.daemon.referee.grid
    height = simulation.daemon.table.rows
    cells = [[c[r].letter if r < len(c) else "." for c in actual] for r in range(height)]
    notes: list[str] = []
    for index, (discs, beliefs) in enumerate(zip(actual, counted, strict=True)):
        for row, (disc, belief) in enumerate(zip(discs, beliefs, strict=False)):
            if belief is not disc:
                cells[row][index] = disc.letter.lower()
                thought = (
                    f"that the referee counts as {belief.title} (it cannot see colours)"
                    if belief is not None
                    else "whose colour the referee does not know"
                )
                notes.append(
                    f"{disc.letter.lower()} in column {index + 1}: a {disc.title} disc {thought}"
                )
    return ["".join(row) for row in reversed(cells)], notes


def parse_command(text: str, columns: int) -> Action | None:
    """An interactive line as an action; ``None`` for an empty line.

    A mistake raises :class:`ScriptError` with a reason in the prompt's own
    shorthand (the prompt has no file or line to name)."""
    word = text.strip().lower()
    if word in SHORTHAND:
        word = SHORTHAND[word]
    elif word.isascii() and word.isdigit():
        word = f"drop {word}"
    elif word[:1] in ("r", "y", "p") and (word[1:].isdigit() or len(word) == 1):
        if not word[1:].isascii() or not word[1:].isdigit():
            example = f"{word[0]}4 {SHORT_VERBS[word[0]]} column 4"
            raise ScriptError(f"{word} needs a column number: {example}")
        verb = "pop" if word[0] == "p" else "drop"
        colour = {"r": " red", "y": " yellow", "p": ""}[word[0]]
        word = f"{verb} {word[1:]}{colour}"
    elif word == "w":
        raise ScriptError("w needs milliseconds: w 500 waits half a second")
    elif word.startswith("w ") or (word.startswith("w") and word[1:].strip().isdigit()):
        word = f"wait {word[1:].strip()}"
    try:
        return parse_line(word, 1, "input", columns)
    except ScriptError as error:
        if error.reason.startswith("unknown action"):
            raise ScriptError(
                f"{excerpt(text.strip())} is not an action; type ? for help"
            ) from None
        raise ScriptError(error.reason) from None


def interact(simulation: Simulation, stdin: TextIO, stdout: TextIO) -> int:
    """Read actions until ``q`` or the end of input."""
    columns = simulation.daemon.table.columns
    stdout.write(
        f"popref on a simulated {columns}-column grid; the game is kept in "
        f"{simulation.state_dir} for next time. Type ? for help.\n"
    )
    stdout.write(render(simulation) + "\n")
    writing = threading.Lock()  # the page's thread and this one take turns

    def redraw() -> None:
        # called on the web server's thread while the simulation is locked
        with writing:
            stdout.write("\n(from the web page)\n" + render(simulation) + "\n> ")
            stdout.flush()

    simulation.on_command = redraw
    try:
        return _prompt(simulation, stdin, stdout, writing)
    finally:
        simulation.on_command = None


def _prompt(simulation: Simulation, stdin: TextIO, stdout: TextIO, writing: threading.Lock) -> int:
    columns = simulation.daemon.table.columns

    def say(text: str) -> None:
        with writing:
            stdout.write(text)
            stdout.flush()

    while True:
        say("> ")
        line = stdin.readline()
        if not line or line.strip().lower() in ("q", "quit", "exit"):
            say("\n")
            return 0
        if line.strip() in ("?", "help"):
            say(HELP + "\n")
            continue
        try:
            action = parse_command(line, columns)
        except ScriptError as error:
            say(f"{error}\n")
            continue
        if action is None:
            continue
        with simulation.lock:
            try:
                simulation.act(action)
            except SimGridError as error:
                picture = str(error)
            else:
                picture = render(simulation)
        say(picture + "\n")
