"""The messages of the remote seat's protocol, version 1 (docs/remote.md):
UTF-8 JSON objects, one an MQTT message, each signed with HMAC-SHA256 under
the invitation's secret. The body travels as JSON text inside the message, so
that the signer and the checker hash the very same characters.

>>> key = bytes(range(32))
>>> payload = seal(key, Message("AAAAAAAAAAAAAAAAAAAAAA", "remote", 1, "request",
...                             '{"ply":0,"move":"4"}'))
>>> unseal(key, "AAAAAAAAAAAAAAAAAAAAAA", "remote", payload).body
'{"ply":0,"move":"4"}'
>>> unseal(bytes(32), "AAAAAAAAAAAAAAAAAAAAAA", "remote", payload)
Traceback (most recent call last):
...
controller.remote.message.Refused: the signature does not check
>>> topics("AAAAAAAAAAAAAAAAAAAAAA").remote
'popref/1/AAAAAAAAAAAAAAAAAAAAAA/remote'
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any

from controller.i18n.text import Text
from controller.referee.commands import SEQ_LIMIT
from engine import Game, write_record

VERSION = 1
DOMAIN = f"popref/{VERSION}"  # what every signature begins with, and every topic
BOARD = "board"
REMOTE = "remote"
# ``presence`` (a linked grid's, docs/remote.md) is new in version 1: a reader
# that does not know it refuses it as malformed and goes on, as v1 readers do
# ``takeback`` (a linked grid's word on taking back the last move) likewise;
# the board says its own word in its state (``takeback``, ``epoch``);
# ``here`` (a friend's page: whether it is open) likewise
KINDS = {
    BOARD: ("state", "move", "reply", "presence"),
    REMOTE: ("request", "hello", "presence", "takeback", "here"),
}
# On a linked grid, the other grid's move number p after e takebacks is its
# request number e * EPOCH_MOVES + p: a move N made again after a takeback
# is numbered above the one taken back.
EPOCH_MOVES = 2**32
# The daemon takes no message larger than this (a request is about 250 bytes);
# the board's own state may be larger, and clients take up to BOARD_LIMIT.
REMOTE_LIMIT = 4096
BOARD_LIMIT = 65536
_SIG = re.compile(r"[0-9a-f]{64}")
_GAME = re.compile(r"[A-Za-z0-9_-]{22}")


class Refused(ValueError):
    """A message that is not taken. ``kind`` is why, for the counts in the log:
    ``size``, ``malformed``, ``foreign`` (another game or sender), ``forged``."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Message:
    """One message: the game, who sent it (``board`` or ``remote``), that
    sender's number for it, its kind, and its body as JSON text."""

    game: str
    sender: str
    seq: int
    kind: str
    body: str

    def fields(self) -> dict[str, Any]:
        """The body as an object (:func:`unseal` has checked that it is one)."""
        value: dict[str, Any] = json.loads(self.body)
        return value


@dataclass(frozen=True, slots=True)
class Topics:
    """A game's three topics: the board's retained ``state``, its other
    messages (``board``: moves, replies), the remote player's (``remote``)."""

    state: str
    board: str
    remote: str


def topics(game: str) -> Topics:
    base = f"{DOMAIN}/{game}"
    return Topics(f"{base}/state", f"{base}/board", f"{base}/remote")


def signature(key: bytes, message: Message) -> str:
    """HMAC-SHA256 of the signed text, in lower-case hex."""
    text = "\n".join(
        (DOMAIN, message.game, message.sender, message.kind, str(message.seq), message.body)
    )
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def seal(key: bytes, message: Message) -> bytes:
    """The message as the broker carries it, signed."""
    return json.dumps(
        {
            "v": VERSION,
            "game": message.game,
            "from": message.sender,
            "seq": message.seq,
            "kind": message.kind,
            "body": message.body,
            "sig": signature(key, message),
        },
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")


def plain(value: dict[str, Any]) -> dict[str, Any]:
    """The board's state with each sentence also as its message and values
    (``<field>_text``), so the page can say it in its reader's language."""
    kept = dict(value)
    for name, field in value.items():
        if isinstance(field, Text):
            kept[f"{name}_text"] = field.data()
    return kept


def body(value: dict[str, Any]) -> str:
    """An object as a message's body text."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def unseal(key: bytes, game: str, sender: str, payload: bytes) -> Message:
    """The message in ``payload`` if it is a version-1 message of ``game``
    from ``sender``, signed with ``key``; :class:`Refused` otherwise.
    Nothing is trusted before the signature checks, and the signature is
    compared in constant time."""
    limit = REMOTE_LIMIT if sender == REMOTE else BOARD_LIMIT
    if len(payload) > limit:
        raise Refused("size", f"the message is {len(payload)} bytes; at most {limit} are taken")
    data = _object(payload)
    if data is None or data.get("v") != VERSION or set(data) != _KEYS:
        raise Refused("malformed", "not a version-1 message")
    if data["game"] != game or data["from"] != sender:
        raise Refused("foreign", "a message for another game or from another sender")
    seq, kind, text, sig = data["seq"], data["kind"], data["body"], data["sig"]
    if (
        isinstance(seq, bool)
        or not isinstance(seq, int)
        or not 1 <= seq <= SEQ_LIMIT
        or kind not in KINDS[sender]
        or not isinstance(text, str)
        or not isinstance(sig, str)
        or not _SIG.fullmatch(sig)
    ):
        raise Refused("malformed", "a field of the message is not what version 1 has")
    message = Message(game, sender, seq, kind, text)
    if not hmac.compare_digest(signature(key, message), sig):
        raise Refused("forged", "the signature does not check")
    if not isinstance(_object(text.encode("utf-8")), dict):
        raise Refused("malformed", "the body is not a JSON object")
    return message


_KEYS = {"v", "game", "from", "seq", "kind", "body", "sig"}


def _object(data: bytes) -> dict[str, Any] | None:
    """A JSON object without repeated keys or non-finite numbers, or ``None``."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(items)
        if len(found) != len(items):
            raise ValueError("a key is repeated")
        return found

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        value = json.loads(data, object_pairs_hook=pairs, parse_constant=no_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def epoch_of(fields: dict[str, Any], key: str = "epoch") -> int:
    """The takebacks a message's body says it was made after: 0 where it
    says none (a board or a grid from before takebacks).

    >>> epoch_of({"epoch": 2}), epoch_of({}), epoch_of({"epoch": True})
    (2, 0, 0)
    """
    value = fields.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**20:
        return 0
    return value


def record_hash(game: Game) -> str:
    """The SHA-256 of ``game``'s record (:func:`engine.records.write_record`):
    two grids that hold the same game have the same hash after every move."""
    return hashlib.sha256(write_record(game).encode("utf-8")).hexdigest()


def valid_game(game: str) -> bool:
    return bool(_GAME.fullmatch(game))
