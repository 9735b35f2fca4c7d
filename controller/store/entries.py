"""The daemon's journal records, checked line by line before they are replayed.

Line 1 is ``{"snapshot": ..., "id": ..., "board": ...}``; every later line is
an event (``{"e": ...}``, see :mod:`controller.store.eventcodec`), ``{"archived": N}``,
``{"resumed": true}`` or ``{"computer": "p4"}`` (the computer's chosen move);
an event and the snapshot may carry ``"board"``, the sensor board's counters
consumed so far. Anything else, and any field missing
or of the wrong type, is an :class:`EntryError`: the journal is damaged there.

>>> read_entry(2, {"archived": 3})
Archived(number=3)
>>> read_entry(2, {"resumed": 1})
Traceback (most recent call last):
...
controller.store.entries.EntryError: "resumed" is not true
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.referee import fields
from controller.referee.commands import Input
from controller.store.eventcodec import decode
from engine import Move
from hardware import wire
from hardware.backend import Mark

__all__ = [
    "Archived",
    "ComputerMove",
    "EntryError",
    "EventEntry",
    "Resumed",
    "Snapshot",
    "read_entry",
]

# The counters of hardware.serial_counts' marks, each a 16-bit count or id
# (the boot id is wider): checked here so that a bad one is damage at its line
# rather than an error when the backend is opened.
MARK_COUNTS = ("boot", "slider_changes", "presses", "holds")


class EntryError(ValueError):
    """A journal record that is not what the daemon writes."""


@dataclass(frozen=True)
class Snapshot:
    state: dict[str, Any]
    journal_id: str
    board: Mark | None


@dataclass(frozen=True)
class EventEntry:
    event: Input  # a sensor event, or a command from the page
    board: Mark | None


@dataclass(frozen=True)
class Archived:
    number: int


@dataclass(frozen=True)
class Resumed:
    pass


@dataclass(frozen=True)
class ComputerMove:
    move: Move


Entry = Snapshot | EventEntry | Archived | Resumed | ComputerMove


def read_entry(line: int, record: dict[str, Any]) -> Entry:
    """The checked record on journal line *line*."""
    try:
        return _read(line, record)
    except ValueError as error:  # FieldError and the event codec's CodecError
        raise EntryError(str(error)) from None


def _read(line: int, record: dict[str, Any]) -> Entry:
    if line == 1:
        if "snapshot" not in record:
            raise EntryError("the first record is not a snapshot")
        fields.only(record, ("snapshot", "id", "board"), "the snapshot record")
        state = record["snapshot"]
        if not isinstance(state, dict):
            raise EntryError('"snapshot" is not an object')
        journal_id = fields.text(record, "id", 64) if "id" in record else ""
        return Snapshot(state, journal_id, _mark(record))
    if "snapshot" in record:
        raise EntryError("a snapshot after the first line")
    if "e" in record:
        return EventEntry(decode(record), _mark(record))
    for kind in ("archived", "resumed", "computer"):
        if kind in record:
            fields.only(record, (kind,), f"the {kind!r} record")
    if "archived" in record:
        return Archived(fields.integer(record, "archived", 1))
    if "resumed" in record:
        if record["resumed"] is not True:
            raise EntryError('"resumed" is not true')
        return Resumed()
    if "computer" in record:
        return ComputerMove(fields.move(record, "computer"))
    raise EntryError(f"a record of no known kind (keys {', '.join(sorted(record))[:80]})")


def _mark(record: dict[str, Any]) -> Mark | None:
    if "board" not in record:
        return None
    mark = record["board"]
    if not isinstance(mark, dict):
        raise EntryError('"board" is not an object')
    fields.only(mark, (*MARK_COUNTS, "slider", "drops", "pops"), '"board"')
    for key in MARK_COUNTS:
        fields.integer(mark, key, 0, 2**32 - 1)
    fields.boolean(mark, "slider")
    for key in ("drops", "pops"):
        counts = mark.get(key)
        if not isinstance(counts, list) or len(counts) > wire.MAX_COLUMNS:
            raise EntryError(f'"board" "{key}" is not a list of counts')
        for count in counts:
            fields.integer({key: count}, key, 0, 0xFFFF)
    return mark
