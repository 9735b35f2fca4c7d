"""Scripts of physical actions for ``popref simulate --script``.

One action a line; ``#`` starts a comment::

    drop 4          # a disc of the colour the board asks for
    drop 3 yellow
    pop 4
    slider open
    slider close
    press           # the mode button, briefly
    double          # pressed twice quickly: a hint mid-game, else the opponent
    hold            # the mode button, held
    wait 1500       # milliseconds

>>> parse_script("drop 4 red\\nwait 200", "game.txt")
[Action(line=1, text='drop 4 red', verb='drop', column=4, colour=<Colour.RED: 'red'>, ms=0), \
Action(line=2, text='wait 200', verb='wait', column=0, colour=None, ms=200)]
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.colour import Colour


class ScriptError(ValueError):
    """A script line is not an action; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Action:
    line: int
    text: str
    verb: str  # drop, pop, open, close, press, double, hold, wait
    column: int = 0
    colour: Colour | None = None
    ms: int = 0


USAGE = "drop N [red|yellow], pop N, slider open, slider close, press, double, hold, wait MS"


def parse_script(text: str, source: str, columns: int = 99) -> list[Action]:
    return [
        action
        for number, line in enumerate(text.splitlines(), start=1)
        if (action := parse_line(line, number, source, columns)) is not None
    ]


def parse_line(line: str, number: int, source: str, columns: int = 99) -> Action | None:
    """One action, or ``None`` for a blank or comment line."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    words = text.lower().split()
    where = f"{source}: line {number} ({text!r})"

    def fail(reason: str) -> ScriptError:
        return ScriptError(f"{where}: {reason}")

    verb, args = words[0], words[1:]
    if verb in ("drop", "pop"):
        if not args or not args[0].isdigit():
            raise fail(f"{verb} needs a column number, e.g. '{verb} 4'")
        column = int(args[0])
        if not 1 <= column <= columns:
            raise fail(f"column {column} is not on the grid; use 1 to {columns}")
        colour: Colour | None = None
        if verb == "drop" and len(args) == 2:
            if args[1] not in ("red", "yellow"):
                raise fail(f"{args[1]!r} is not a colour; use red or yellow")
            colour = Colour(args[1])
        elif len(args) != 1:
            raise fail(f"too many words; expected one of: {USAGE}")
        return Action(number, text, verb, column=column, colour=colour)
    if verb == "slider":
        if args not in (["open"], ["close"]):
            raise fail("use 'slider open' or 'slider close'")
        return Action(number, text, args[0])
    if verb in ("press", "double", "hold"):
        if args:
            raise fail(f"{verb} takes no arguments")
        return Action(number, text, verb)
    if verb == "wait":
        if len(args) != 1 or not args[0].isdigit():
            raise fail("wait needs milliseconds, e.g. 'wait 500'")
        return Action(number, text, verb, ms=int(args[0]))
    raise fail(f"unknown action {verb!r}; expected one of: {USAGE}")
