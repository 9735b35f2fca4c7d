"""Events as small JSON-able dicts, for the journal.

>>> decode(encode(DiscEntered(3, at=1.5)))
DiscEntered(column=3, at=1.5, colour=None)
>>> encode(ButtonHeld(at=2.0)), decode({"e": "hold", "at": 2.0})
({'e': 'hold', 'at': 2.0}, ButtonHeld(at=2.0))
"""

from __future__ import annotations

from typing import Any

from controller.referee import fields
from controller.referee.commands import (
    HintAsked,
    Input,
    LevelChosen,
    NewGameAsked,
    OpponentChosen,
    PairingEnded,
    PairingRequested,
    RemoteChosen,
    RemoteInvited,
    RemoteRequested,
    RemoteRevoked,
    RulesChosen,
)
from controller.referee.invitation import Invitation
from controller.referee.pairing_window import checked_code
from controller.referee.seat import MAX_LEVEL, MIN_LEVEL
from engine import RULES_NAMES, parse_move
from engine.colour import Colour
from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    DiscEntered,
    DiscLeft,
    SensorCleared,
    SensorFault,
    SliderMoved,
)


class CodecError(ValueError):
    """A journal record is not an event this version knows."""


# The inputs that carry nothing but their time, by the kind their records name:
# one table for both directions.
Bare = ButtonPressed | ButtonHeld | NewGameAsked | HintAsked | PairingEnded
BARE: dict[str, type[Bare]] = {
    "press": ButtonPressed,
    "hold": ButtonHeld,
    "new": NewGameAsked,
    "hint": HintAsked,
    "pair-end": PairingEnded,
}
_BARE_KINDS = {cls: kind for kind, cls in BARE.items()}


def encode(event: Input) -> dict[str, Any]:
    if isinstance(event, Bare):
        return {"e": _BARE_KINDS[type(event)], "at": event.at}
    if isinstance(event, RulesChosen):
        return {"e": "rules", "rules": event.rules, "at": event.at}
    if isinstance(event, OpponentChosen):
        plays = event.plays.value if event.plays is not None else None
        return {"e": "opponent", "plays": plays, "at": event.at}
    if isinstance(event, LevelChosen):
        return {"e": "level", "level": event.level, "at": event.at}
    if isinstance(event, PairingRequested):
        return {"e": "pair", "code": list(event.code), "at": event.at}
    if isinstance(event, RemoteChosen):
        plays = event.plays.value if event.plays is not None else None
        return {"e": "remote", "plays": plays, "at": event.at}
    if isinstance(event, RemoteInvited):
        return {"e": "invite", **event.invitation.data(), "at": event.at}
    if isinstance(event, RemoteRevoked):
        return {"e": "revoke", "expired": event.expired, "at": event.at}
    if isinstance(event, RemoteRequested):
        move = str(event.move)
        return {"e": "request", "seq": event.seq, "ply": event.ply, "move": move, "at": event.at}
    if isinstance(event, DiscEntered):
        record: dict[str, Any] = {"e": "drop", "c": event.column, "at": event.at}
        if event.colour is not None:
            record["colour"] = event.colour.value
        return record
    if isinstance(event, DiscLeft):
        return {"e": "pop", "c": event.column, "at": event.at}
    if isinstance(event, SliderMoved):
        return {"e": "slider", "open": event.open, "at": event.at}
    if isinstance(event, SensorFault):
        return {"e": "fault", "sensor": event.sensor, "message": event.message, "at": event.at}
    return {"e": "cleared", "sensor": event.sensor, "at": event.at}


def decode(record: dict[str, Any]) -> Input:
    """The event a journal record describes; :class:`CodecError` (one line) if
    it is not exactly what :func:`encode` writes."""
    try:
        kind = fields.text(record, "e")
        at = fields.number(record, "at")
        if kind in BARE:
            return BARE[kind](at)
        if kind == "drop":
            column = fields.integer(record, "c", 0, 1000)
            colour = fields.one_of(record, "colour", COLOURS) if "colour" in record else None
            return DiscEntered(column, at, Colour(colour) if colour else None)
        if kind == "pop":
            return DiscLeft(fields.integer(record, "c", 0, 1000), at)
        if kind == "slider":
            return SliderMoved(fields.boolean(record, "open"), at)
        if kind == "fault":
            return SensorFault(fields.text(record, "sensor"), fields.text(record, "message"), at)
        if kind == "cleared":
            return SensorCleared(fields.text(record, "sensor"), at)
        if kind == "rules":
            return RulesChosen(fields.one_of(record, "rules", RULES_NAMES), at)
        if kind == "opponent":
            plays = record.get("plays")
            colour = Colour(fields.one_of(record, "plays", COLOURS)) if plays is not None else None
            return OpponentChosen(colour, at)
        if kind == "level":
            return LevelChosen(fields.integer(record, "level", MIN_LEVEL, MAX_LEVEL), at)
        if kind == "pair":  # journals from before codes have none
            return PairingRequested(checked_code(record.get("code", [])), at)
        if kind in REMOTE_KINDS:
            return _remote(kind, record, at)
    except fields.FieldError as error:
        raise CodecError(f"an event record is malformed: {error}") from None
    raise CodecError(f"an event record has an unknown kind {kind[:40]!r}")


COLOURS = frozenset(colour.value for colour in Colour)
REMOTE_KINDS = ("remote", "invite", "revoke", "request")
SEQ_LIMIT = 2**53 - 1  # a remote's message numbers are JSON numbers a browser keeps exactly


def _remote(kind: str, record: dict[str, Any], at: float) -> Input:
    """The remote player's inputs (controller.referee.remote_seat)."""
    if kind == "remote":
        plays = record.get("plays")
        colour = Colour(fields.one_of(record, "plays", COLOURS)) if plays is not None else None
        return RemoteChosen(colour, at)
    if kind == "revoke":
        return RemoteRevoked(fields.boolean(record, "expired"), at)
    if kind == "request":
        seq = fields.integer(record, "seq", 1, SEQ_LIMIT)
        ply = fields.integer(record, "ply", 0, SEQ_LIMIT)
        try:
            move = parse_move(fields.text(record, "move", 10))
        except ValueError as error:
            raise fields.FieldError(f'"move": {error}') from None
        return RemoteRequested(seq, ply, move, at)
    fields.number(record, "made_at")
    fields.one_of(record, "colour", COLOURS)
    try:
        invitation = Invitation.from_data(
            {name: fields.text(record, name, 64) for name in ("game", "key")}
            | {"colour": record["colour"], "made_at": record["made_at"]}
        )
    except ValueError as error:
        raise fields.FieldError(f"the invitation is malformed: {error}") from None
    return RemoteInvited(invitation, at)
