"""tomllib's errors in the configuration's own words where it can: a table
declared twice, or a key set twice in one table, named with both lines.

tomllib's messages are the library's English text, so they are not parsed
for what went wrong: only the line it stopped at is taken (its ``lineno``
from Python 3.14, before that the message's ``(at line N, column M)``).
That line and the ones above it are read here, simply (bare keys and
``[table]`` headers); whatever this does not recognise keeps tomllib's
message, which names the line and column itself.

>>> import tomllib
>>> def said(text: str) -> str:
...     try:
...         tomllib.loads(text)
...     except tomllib.TOMLDecodeError as error:
...         return explain(text, error)
...     return "valid"
>>> said('[game]\\nrules = "pop10"\\nrules = "classic"\\n')
'[game] rules is set twice, at lines 2 and 3; keep one'
>>> said('[game]\\n[board]\\n[game]\\nrules = "pop10"\\n')
'the table [game] is declared twice, at lines 1 and 3; merge the two into one'
>>> said('[game]\\nrules = \\n')
'Invalid value (at line 2, column 9)'
"""

from __future__ import annotations

import re
import tomllib

_AT = re.compile(r"\(at line (\d+), column \d+\)$")
_NAME = r"[A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*"  # bare keys, dotted or not
_HEADER = re.compile(rf"\s*\[\s*({_NAME})\s*\]\s*(?:#.*)?")
_ARRAY_HEADER = re.compile(r"\s*\[\[")
_KEY = re.compile(rf"\s*({_NAME})\s*=")
_QUOTES = ('"""', "'''")


def explain(text: str, error: tomllib.TOMLDecodeError) -> str:
    """One clause for ``error`` in ``text``: a duplicate named with both of
    its lines, else tomllib's own message."""
    message = str(error)
    line = _line_of(error)
    if line is not None:
        return _twice(text.splitlines(), line) or message
    return message


def _line_of(error: tomllib.TOMLDecodeError) -> int | None:
    number = getattr(error, "lineno", None)  # Python 3.14 and later
    if isinstance(number, int):
        return number
    found = _AT.search(str(error))
    return int(found.group(1)) if found else None


def _twice(lines: list[str], line: int) -> str | None:
    """What line ``line`` (1-based) repeats of the lines above it, if it
    declares a table or sets a key that was already there."""
    tables: dict[str, int] = {}  # table -> the line that declared it
    keys: dict[tuple[str, str], int] = {}  # (table, key) -> the line that set it
    table: str | None = ""  # None: inside an array of tables, whose keys repeat
    quote: str | None = None  # inside a multi-line string that this opened
    for number, content in enumerate(lines[:line], start=1):
        if quote is not None:
            if content.count(quote) % 2:
                quote = None
            continue
        header = _HEADER.fullmatch(content)
        key = _KEY.match(content)
        if header:
            name = _dotted(header.group(1))
            if number == line and name in tables:
                first = tables[name]
                return (
                    f"the table [{name}] is declared twice, at lines {first} and {line}; "
                    "merge the two into one"
                )
            tables.setdefault(name, number)
            table = name
        elif _ARRAY_HEADER.match(content):
            table = None
        elif key and table is not None:
            name = _dotted(key.group(1))
            if number == line and (table, name) in keys:
                first = keys[table, name]
                where = f"[{table}] {name}" if table else name
                return f"{where} is set twice, at lines {first} and {line}; keep one"
            keys.setdefault((table, name), number)
        quote = next((q for q in _QUOTES if content.count(q) % 2), None)
    return None


def _dotted(name: str) -> str:
    return ".".join(part.strip() for part in name.split("."))
