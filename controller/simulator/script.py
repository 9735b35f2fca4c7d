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
    takeback        # the page's "take back the last move" (linked grids: ask or agree)
    decline         # linked grids: say no to the other grid's takeback
    wait 1500       # milliseconds

The prompts that take one action a line (``popref simulate`` by hand,
``popref check-wiring --sim --by-hand``) also read its shorthand, ``4``,
``r4``, ``p4``, ``o``, ``b``, ... (:func:`parse_command`).

>>> parse_script("drop 4 red\\nwait 200", "game.txt")
[Action(line=1, text='drop 4 red', verb='drop', column=4, colour=<Colour.RED: 'red'>, ms=0), \
Action(line=2, text='wait 200', verb='wait', column=0, colour=None, ms=200)]

A line that is not an action is one line of error, however long or strange:

>>> parse_script("wait ²", "game.txt")
Traceback (most recent call last):
...
controller.simulator.script.ScriptError: game.txt: line 1 ('wait ²'): wait needs milliseconds, \
e.g. 'wait 500'
"""

from __future__ import annotations

import codecs
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from controller.i18n.text import N_, Text, _t
from engine.colour import Colour


class ScriptError(ValueError):
    """A script line is not an action; the message names the file and line.

    ``reason`` is the message without the file and line, for the interactive
    prompt, which has neither."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason if reason is not None else message


class UnknownAction(ScriptError):
    """A line whose first word is no action at all (the prompt says so in
    its own words)."""


Verb = Literal[
    "drop", "pop", "open", "close", "press", "double", "hold", "takeback", "decline", "wait"
]
VERBS: tuple[Verb, ...] = get_args(Verb)


@dataclass(frozen=True, slots=True)
class Action:
    line: int
    text: str
    verb: Verb  # a slider line's verb is its word: open or close
    column: int = 0
    colour: Colour | None = None
    ms: int = 0


USAGE = (
    "drop N [red|yellow], pop N, slider open, slider close, press, double, hold, takeback, "
    "decline, wait MS"
)
EXCERPT = 40  # characters of a bad line quoted back: enough to find it, never a flood
LONGEST_WAIT_MS = 24 * 3600 * 1000  # a day: past that a script has a typo, not a plan
# the verbs a line names by its first word alone, with nothing after it
_BARE: dict[str, Verb] = {
    verb: verb for verb in VERBS if verb in ("press", "double", "hold", "takeback", "decline")
}
# ASCII digits only: str.isdigit() also takes '²' and '¹²', which int() refuses
_NUMBER = re.compile(r"[0-9]{1,12}")


def excerpt(text: str) -> str:
    """``text`` quoted for an error line: escaped, and cut to a bounded length
    (counted after escaping, so a line of control characters is bounded too)."""
    kept = ""
    for character in text:
        if len(repr(kept + character)) > EXCERPT + 2:
            return repr(kept) + f"... ({len(text)} characters)"
        kept += character
    return repr(text)


def decode_utf8(data: bytes, source: str, first: int = 1) -> str:
    """The text of a script file (or of moves on standard input), whose
    first line is line ``first``. A UTF-8 byte-order mark (as some Windows
    editors write) is skipped; anything not UTF-8 is one :class:`ScriptError`
    naming the line."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ScriptError(f"{source}: the file is UTF-16; save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + first
        byte = data[error.start]
        raise ScriptError(
            f"{source}: line {line} is not UTF-8 text (byte 0x{byte:02x}); save the file as UTF-8"
        ) from None


def read_stdin(source: str) -> str:
    """All of standard input as text, decoded as :func:`decode_utf8` does
    (a stream set in its place that has no bytes underneath is read as is)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        return sys.stdin.read()
    return decode_utf8(buffer.read(), source)


def read_script(path: Path, columns: int) -> list[Action]:
    """The actions in the script file ``path`` (standard input for ``-``)."""
    if str(path) == "-":
        return parse_script(read_stdin("-"), "-", columns)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ScriptError(f"{path}: {error.strerror}") from None
    return parse_script(decode_utf8(data, str(path)), str(path), columns)


def parse_script(text: str, source: str, columns: int = 99) -> list[Action]:
    # Lines end at "\n" only (as editors count them), not at str.splitlines()'
    # other separators such as form feed or U+2028.
    return [
        action
        for number, line in enumerate(text.split("\n"), start=1)
        if (action := parse_line(line, number, source, columns)) is not None
    ]


def parse_line(line: str, number: int, source: str, columns: int = 99) -> Action | None:
    """One action, or ``None`` for a blank or comment line."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    words = text.lower().split()
    text = " ".join(text.split())  # what is echoed back: one space between words
    where = f"{source}: line {number} ({excerpt(text)})"

    def fail(reason: Text, kind: type[ScriptError] = ScriptError) -> ScriptError:
        return kind(f"{where}: {reason}", reason)

    verb, args = words[0], words[1:]
    if verb in ("drop", "pop"):
        if not args or not _NUMBER.fullmatch(args[0]):
            raise fail(_t("{verb} needs a column number, e.g. '{verb} 4'", verb=verb))
        column = int(args[0])
        if not 1 <= column <= columns:
            raise fail(
                _t(
                    "column {column} is not on the grid; use 1 to {columns}",
                    column=column,
                    columns=columns,
                )
            )
        colour: Colour | None = None
        if verb == "drop" and len(args) == 2:
            if args[1] not in ("red", "yellow"):
                raise fail(_t("{word} is not a colour; use red or yellow", word=excerpt(args[1])))
            colour = Colour(args[1])
        elif len(args) != 1:
            raise fail(_t("too many words; expected one of: {usage}", usage=USAGE))
        return Action(number, text, "pop" if verb == "pop" else "drop", column, colour)
    if verb == "slider":
        if args not in (["open"], ["close"]):
            raise fail(_t("use 'slider open' or 'slider close'"))
        return Action(number, text, "open" if args == ["open"] else "close")
    bare = _BARE.get(verb)
    if bare is not None:
        if args:
            raise fail(_t("{verb} takes no arguments", verb=verb))
        return Action(number, text, bare)
    if verb == "wait":
        if len(args) != 1 or not _NUMBER.fullmatch(args[0]):
            raise fail(_t("wait needs milliseconds, e.g. 'wait 500'"))
        ms = int(args[0])
        if ms > LONGEST_WAIT_MS:
            raise fail(_t("wait at most {ms} ms (a day)", ms=LONGEST_WAIT_MS))
        return Action(number, text, "wait", ms=ms)
    # the line is quoted already; a one-word line is not quoted twice
    if args:
        unknown = _t(
            "unknown action {word}; expected one of: {usage}", word=excerpt(verb), usage=USAGE
        )
        raise fail(unknown, UnknownAction)
    raise fail(_t("unknown action; expected one of: {usage}", usage=USAGE), UnknownAction)


# -- the interactive prompt's shorthand (popref simulate, check-wiring --sim --by-hand)

EXAMPLES = {
    "p": N_("p4 pops from column 4"),
    "r": N_("r4 drops a Red disc into column 4"),
    "y": N_("y4 drops a Yellow disc into column 4"),
}
SHORTHAND = {
    "o": "slider open",
    "c": "slider close",
    "b": "press",
    "h": "hold",
    "d": "double",
    "t": "takeback",
    "n": "decline",
}


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
    except UnknownAction:
        raise ScriptError(
            _t("{word} is not an action; type ? for help", word=excerpt(text.strip()))
        ) from None
    except ScriptError as error:
        raise ScriptError(error.reason) from None
