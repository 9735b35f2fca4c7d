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
    SEQ_LIMIT,
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
    TakebackAsked,
    TakebackDeclined,
    TakebackHeard,
)
from controller.referee.computer_seat import COLOURS, MAX_LEVEL, MIN_LEVEL
from controller.referee.invitation import Invitation
from controller.referee.pairing_window import checked_code
from engine import RULES_NAMES
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
Bare = (
    ButtonPressed
    | ButtonHeld
    | NewGameAsked
    | HintAsked
    | TakebackAsked
    | TakebackDeclined
    | PairingEnded
)
BARE: dict[str, type[Bare]] = {
    "press": ButtonPressed,
    "hold": ButtonHeld,
    "new": NewGameAsked,
    "hint": HintAsked,
    "takeback": TakebackAsked,
    "takeback-no": TakebackDeclined,
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
    if isinstance(event, TakebackHeard):
        word = {"seq": event.seq, "epoch": event.epoch, "ply": event.ply, "agree": event.agree}
        return {"e": "takeback-heard", **word, "at": event.at}
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


# The keys of each kind of event record besides "e" and "at".
KEYS: dict[str, tuple[str, ...]] = {
    **{kind: () for kind in BARE},
    "drop": ("c", "colour"),
    "pop": ("c",),
    "slider": ("open",),
    "fault": ("sensor", "message"),
    "cleared": ("sensor",),
    "rules": ("rules",),
    "opponent": ("plays",),
    "level": ("level",),
    "pair": ("code",),  # journals from before codes have none
    "remote": ("plays",),
    "invite": ("game", "key", "colour", "made_at"),
    "revoke": ("expired",),
    "request": ("seq", "ply", "move"),
    "takeback-heard": ("seq", "epoch", "ply", "agree"),
}
REMOTE_KINDS = ("remote", "invite", "revoke", "request", "takeback-heard")


def decode(record: dict[str, Any]) -> Input:
    """The event a journal record describes; :class:`CodecError` (one line) if
    it is not exactly what :func:`encode` writes."""
    try:
        kind = fields.text(record, "e")
        if kind not in KEYS:
            raise CodecError(f"an event record has an unknown kind {kind[:40]!r}")
        # "board": the sensor board's counters, checked by the journal's reader
        fields.only(record, ("e", "at", "board", *KEYS[kind]), f"a {kind!r} event")
        return _decode(kind, record, fields.number(record, "at"))
    except fields.FieldError as error:
        raise CodecError(f"an event record is malformed: {error}") from None


def _decode(kind: str, record: dict[str, Any], at: float) -> Input:
    if kind in BARE:
        return BARE[kind](at)
    if kind == "drop":
        column = fields.integer(record, "c", 0, 1000)
        colour = _colour(record, "colour") if "colour" in record else None
        return DiscEntered(column, at, colour)
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
    if kind == "opponent":  # null: two players; an absent "plays" is no answer
        return OpponentChosen(fields.nullable(record, "plays", _colour), at)
    if kind == "pair":
        return PairingRequested(checked_code(record.get("code", [])), at)
    if kind in REMOTE_KINDS:
        return _remote(kind, record, at)
    return LevelChosen(fields.integer(record, "level", MIN_LEVEL, MAX_LEVEL), at)


def _colour(record: dict[str, Any], key: str) -> Colour:
    return Colour(fields.one_of(record, key, COLOURS))


def _remote(kind: str, record: dict[str, Any], at: float) -> Input:
    """The remote player's inputs (controller.referee.remote_seat)."""
    if kind == "remote":
        return RemoteChosen(fields.nullable(record, "plays", _colour), at)
    if kind == "revoke":
        return RemoteRevoked(fields.boolean(record, "expired"), at)
    if kind == "request":
        seq = fields.integer(record, "seq", 1, SEQ_LIMIT)
        ply = fields.integer(record, "ply", 0, SEQ_LIMIT)
        return RemoteRequested(seq, ply, fields.move(record, "move"), at)
    if kind == "takeback-heard":
        seq = fields.integer(record, "seq", 1, SEQ_LIMIT)
        epoch = fields.integer(record, "epoch", 0, SEQ_LIMIT)
        ply = fields.integer(record, "ply", 0, SEQ_LIMIT)
        return TakebackHeard(seq, epoch, ply, fields.boolean(record, "agree"), at)
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
