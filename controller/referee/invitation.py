"""An invitation to play one colour from elsewhere: what the referee keeps of
it and the journal records. Its link and messages are
:mod:`controller.remote`'s.

>>> invitation = Invitation(b64url(bytes(16)), bytes(32), Colour.YELLOW, made_at=1.5)
>>> invitation.game
'AAAAAAAAAAAAAAAAAAAAAA'
>>> Invitation.from_data(invitation.data()) == invitation
True
>>> invitation.sequel(made_at=9.0).game  # the next game's, on the same link
'Z61sNObELiEdUTIGfntv6g'
>>> unb64url("AAAAAAAAAAAAAAAAAAAAAB", 16)
Traceback (most recent call last):
...
ValueError: not 16 bytes in base64url
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from dataclasses import dataclass, field
from typing import Any

from engine.colour import Colour

DAY = 24 * 3600.0  # an invitation that no request used within this long expires
GAME_BYTES = 16  # the game id's random bytes (22 characters in base64url)
KEY_BYTES = 32  # the secret's (43 characters)
_B64URL = re.compile(r"[A-Za-z0-9_-]+")
# What a finished game's secret is hashed with to make the next game's id and
# secret (docs/remote.md, "The next game on the same link"). A signed text's
# second line is a game id, never "sequel", so neither is ever a signature.
_SEQUEL_GAME = b"popref/1\nsequel\ngame"
_SEQUEL_KEY = b"popref/1\nsequel\nkey"


def b64url(data: bytes) -> str:
    """``data`` in base64url without padding, as links and the journal write it."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str, size: int) -> bytes:
    """The ``size`` bytes ``text`` holds in base64url; ``ValueError`` otherwise."""
    if len(text) != (size * 8 + 5) // 6 or not _B64URL.fullmatch(text):
        raise ValueError(f"not {size} bytes in base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError(f"not {size} bytes in base64url") from None
    if b64url(data) != text:  # the unused low bits of the last character must be zero
        raise ValueError(f"not {size} bytes in base64url")
    return data


def sequel(key: bytes) -> tuple[str, bytes]:
    """The game id and secret of the game that follows, on the same link, a
    finished game whose secret is ``key``: whoever holds its link can work
    them out, and nobody else (the broker sees only the game ids)."""
    game = hmac.new(key, _SEQUEL_GAME, hashlib.sha256).digest()[:GAME_BYTES]
    return b64url(game), hmac.new(key, _SEQUEL_KEY, hashlib.sha256).digest()


@dataclass(frozen=True, slots=True)
class Invitation:
    """What a link invites to: the game id (which names the topics), the
    secret that signs every message, the colour, and when it was made
    (wall-clock seconds since the epoch: an unused one expires a day later)."""

    game: str
    key: bytes = field(repr=False)  # kept out of logs and tracebacks
    colour: Colour
    made_at: float

    def __post_init__(self) -> None:
        unb64url(self.game, GAME_BYTES)
        if len(self.key) != KEY_BYTES:
            raise ValueError(f"the secret is {len(self.key)} bytes, not {KEY_BYTES}")

    def sequel(self, made_at: float) -> Invitation:
        """The invitation to the next game for the same colour, which the
        holder of this one's link follows (:func:`sequel`)."""
        game, key = sequel(self.key)
        return Invitation(game, key, self.colour, made_at)

    def data(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "key": b64url(self.key),
            "colour": self.colour.value,
            "made_at": self.made_at,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Invitation:
        """The invitation :meth:`data` wrote; ``ValueError`` for anything else."""
        made_at = data["made_at"]
        if isinstance(made_at, bool) or not isinstance(made_at, int | float):
            raise ValueError('"made_at" is not a number')
        key = unb64url(str(data["key"]), KEY_BYTES)
        return cls(str(data["game"]), key, Colour(data["colour"]), float(made_at))
