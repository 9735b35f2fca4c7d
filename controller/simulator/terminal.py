"""The simulated grid in a terminal: a picture of the grid and its lights, and
a prompt that takes physical actions, one a line. A command from the web
page (``popref simulate --web``) redraws the picture at once, under the prompt
the player is typing at."""

from __future__ import annotations

import threading
from typing import TextIO

from controller.i18n import text as i18n
from controller.i18n.text import ENGLISH, N_, Message, Text, _t
from controller.i18n.words import disc as disc_word
from controller.i18n.words import player
from controller.simulator.script import Action, ScriptError, excerpt, parse_line
from controller.simulator.simulation import Simulation
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
    Lamp.HINT_DROP: "V",  # the status line says it is a hint
    Lamp.HINT_POP: "A",
}

HELP = N_("""\
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
wait 500.""")

EXAMPLES = {
    "p": N_("p4 pops from column 4"),
    "r": N_("r4 drops a Red disc into column 4"),
    "y": N_("y4 drops a Yellow disc into column 4"),
}
SHORTHAND = {"o": "slider open", "c": "slider close", "b": "press", "h": "hold", "d": "double"}


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
    lines.append(f"  {i18n.render(shown.status, language)}")
    if shown.fault and shown.fault != shown.status:
        lines.append(f"  ! {i18n.render(shown.fault, language)}")
    return "\n".join(lines)


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
            example = _t(EXAMPLES[word[0]])
            raise ScriptError(
                _t("{word} needs a column number: {example}", word=word, example=example)
            )
        verb = "pop" if word[0] == "p" else "drop"
        colour = {"r": " red", "y": " yellow", "p": ""}[word[0]]
        word = f"{verb} {word[1:]}{colour}"
    elif word == "w":
        raise ScriptError(_t("w needs milliseconds: w 500 waits half a second"))
    elif word.startswith("w ") or (word.startswith("w") and word[1:].strip().isdigit()):
        word = f"wait {word[1:].strip()}"
    try:
        return parse_line(word, 1, "input", columns)
    except ScriptError as error:
        if error.reason.startswith("unknown action"):
            raise ScriptError(
                _t("{word} is not an action; type ? for help", word=excerpt(text.strip()))
            ) from None
        raise ScriptError(error.reason) from None


def interact(simulation: Simulation, stdin: TextIO, stdout: TextIO, language: str = ENGLISH) -> int:
    """Read actions until ``q`` or the end of input; speak ``language``."""
    columns = simulation.daemon.table.columns
    welcome = _t(
        "popref on a simulated {columns}-column grid; the game is kept in "
        "{place} for next time. Type ? for help.",
        columns=columns,
        place=str(simulation.state_dir),
    )
    stdout.write(welcome.render(language) + "\n")
    stdout.write(render(simulation, language) + "\n")
    writing = threading.Lock()  # the page's thread and this one take turns

    def redraw() -> None:
        # called on the web server's thread while the simulation is locked
        with writing:
            heading = _t("(from the web page)").render(language)
            stdout.write(f"\n{heading}\n{render(simulation, language)}\n> ")
            stdout.flush()

    simulation.on_command = redraw
    try:
        return _prompt(simulation, stdin, stdout, writing, language)
    finally:
        simulation.on_command = None


def _prompt(
    simulation: Simulation,
    stdin: TextIO,
    stdout: TextIO,
    writing: threading.Lock,
    language: str,
) -> int:
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
            say(_t(HELP).render(language) + "\n")
            continue
        try:
            action = parse_command(line, columns)
        except ScriptError as error:
            say(f"{i18n.render(error.reason, language)}\n")
            continue
        if action is None:
            continue
        with simulation.lock:
            try:
                simulation.act(action)
            except SimGridError as error:
                refusal = Message(error.template, tuple(error.values.items()))
                picture = refusal.render(language)
            else:
                picture = render(simulation, language)
        say(picture + "\n")
