"""The simulated grid in a terminal: a picture of the grid and its lights, and
a prompt that takes physical actions, one a line."""

from __future__ import annotations

from typing import TextIO

from controller.script import Action, ScriptError, parse_line
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
The full forms of a script work too: drop 4 yellow, pop 2, slider open, press, double, hold,
wait 500."""

SHORTHAND = {"o": "slider open", "c": "slider close", "b": "press", "h": "hold", "d": "double"}


def render(simulation: Simulation) -> str:
    """The grid as players see it: lights on top, discs, turn and scores."""
    shown = simulation.display()
    columns = len(shown.columns)
    numbers = " ".join(f"{c % 10}" for c in range(1, columns + 1))
    marks = " ".join(LAMP_MARKS[light.lamp] for light in shown.columns)
    lines = [f"  {numbers}", f"  {marks}"]
    lines += [f" |{' '.join(row)}|" for row in simulation.grid.rows()]
    lines.append(" +" + "-" * (2 * columns - 1) + "+")
    turn = shown.turn.title if shown.turn is not None else "-"
    facts = [f"turn light: {turn}"]
    if shown.scores is not None:
        facts.append(f"scores Red {shown.scores[0]} : {shown.scores[1]} Yellow")
    lines.append("  " + "   ".join(facts))
    lines.append(f"  {shown.status}")
    if shown.fault and shown.fault != shown.status:
        lines.append(f"  ! {shown.fault}")
    return "\n".join(lines)


def parse_command(text: str, columns: int) -> Action | None:
    """An interactive line as an action; ``None`` for an empty line."""
    word = text.strip().lower()
    if word in SHORTHAND:
        word = SHORTHAND[word]
    elif word.isdigit():
        word = f"drop {word}"
    elif word[:1] in ("r", "y", "p") and word[1:].isdigit():
        verb = "pop" if word[0] == "p" else "drop"
        colour = {"r": " red", "y": " yellow", "p": ""}[word[0]]
        word = f"{verb} {word[1:]}{colour}"
    elif word.startswith("w ") or (word.startswith("w") and word[1:].strip().isdigit()):
        word = f"wait {word[1:].strip()}"
    return parse_line(word, 1, "input", columns)


def interact(simulation: Simulation, stdin: TextIO, stdout: TextIO) -> int:
    """Read actions until ``q`` or the end of input."""
    columns = simulation.daemon.table.columns
    stdout.write(f"popref on a simulated {columns}-column grid. Type ? for help.\n")
    stdout.write(render(simulation) + "\n")
    while True:
        stdout.write("> ")
        stdout.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in ("q", "quit", "exit"):
            stdout.write("\n")
            return 0
        if line.strip() in ("?", "help"):
            stdout.write(HELP + "\n")
            continue
        try:
            action = parse_command(line, columns)
        except ScriptError as error:
            stdout.write(f"{str(error).removeprefix('input: line 1 ')}\n")
            continue
        if action is None:
            continue
        try:
            simulation.act(action)
        except SimGridError as error:
            stdout.write(f"{error}\n")
            continue
        stdout.write(render(simulation) + "\n")
