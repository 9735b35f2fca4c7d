"""The invitation link: the remote page's address, and after ``#`` the game,
its secret, the colour and the brokers. Browsers never send the fragment to
a server, so neither the web server nor the broker sees the secret.

>>> from controller.referee.invitation import Invitation
>>> from engine.colour import Colour
>>> invitation = Invitation("AAAAAAAAAAAAAAAAAAAAAA", bytes(32), Colour.YELLOW, made_at=0.0)
>>> link = Link.of(invitation, "http://pi.local:8080/remote", "classic",
...                broker="mqtt://pi.local:1883")
>>> url = link.url()
>>> url
'http://pi.local:8080/remote#v=1&g=AAAAAAAAAAAAAAAAAAAAAA&k=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&c=yellow&r=classic&m=mqtt%3A%2F%2Fpi.local%3A1883'
>>> parse_link(url) == link
True
>>> after = link.sequel({"game": "Z61sNObELiEdUTIGfntv6g", "rules": "popout",
...                      "repetition": 3, "both_lines": "popper"})
>>> after.game, after.rules, after.repetition, after.colour is link.colour
('Z61sNObELiEdUTIGfntv6g', 'popout', 3, True)
>>> after.follows(link), link.follows(after)
(True, False)
>>> link.sequel({"game": "AAAAAAAAAAAAAAAAAAAAAA", "rules": "popout"}) is None  # not its own
True
>>> parse_link("http://pi.local:8080/remote#v=1&g=AAAA")
Traceback (most recent call last):
...
controller.remote.link.LinkError: the link is cut short: it has no secret (k); copy all of it
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Literal, cast
from urllib.parse import parse_qsl, urlencode, urlsplit

from controller.referee.invitation import (
    GAME_BYTES,
    KEY_BYTES,
    Invitation,
    b64url,
    sequel,
    unb64url,
)
from controller.remote.address import BROWSER, TERMINAL, broker_address
from engine import RULES_NAMES
from engine.colour import Colour
from engine.rules import BOTH_LINES, REPETITION

VERSION = "1"
MAX_LINK = 2048  # characters: a link is a few hundred; anything longer is not ours
# Where the link points when popref serves no page and none is configured: a
# name that reaches nothing by design (RFC 2606), so nobody is sent elsewhere.
NO_PAGE = "http://popref.invalid/remote"
_NAMES = {"g": "no game", "k": "no secret", "c": "no colour"}
# the link's secret and its guest account's password, wherever a link sits in
# a text: up to the next key, a quote or a space (a command line quotes it)
_SECRETS = re.compile(r"([#&][kp]=)[^&'\"\s]+")
HIDDEN = "(hidden)"
# How many games on from its own a kept link may be and still follow from a
# link given again (a grid's configuration names its first): a game a
# minute for a week, checked in well under a second
SEQUELS = 10_000


class LinkError(ValueError):
    """A link that is not an invitation; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Link:
    """What an invitation link carries. ``broker`` (``mqtt://``,
    ``mqtts://``) serves terminal clients, ``web_broker`` (``ws://``,
    ``wss://``) browsers; ``user`` and ``password`` are a guest account on the
    broker, never the daemon's own."""

    page: str
    game: str
    key: bytes = field(repr=False)
    colour: Colour
    rules: str
    broker: str | None = None
    web_broker: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    # the inviting grid's house rules (docs/rules.md), so that a grid that
    # joins plays the same game: a draw on the N-th repetition, and who wins
    # when a pop completes lines of both colours
    repetition: int | None = None
    both_lines: Literal["popper", "opponent"] = "popper"

    @classmethod
    def of(
        cls,
        invitation: Invitation,
        page: str,
        rules: str,
        *,
        broker: str | None = None,
        web_broker: str | None = None,
        user: str | None = None,
        password: str | None = None,
        repetition: int | None = None,
        both_lines: Literal["popper", "opponent"] = "popper",
    ) -> Link:
        return cls(
            page,
            invitation.game,
            invitation.key,
            invitation.colour,
            rules,
            broker,
            web_broker,
            user,
            password,
            repetition,
            both_lines,
        )

    def url(self) -> str:
        pairs = [
            ("v", VERSION),
            ("g", self.game),
            ("k", b64url(self.key)),
            ("c", self.colour.value),
            ("r", self.rules),
        ]
        optional = (
            ("n", str(self.repetition) if self.repetition else None),
            ("b", self.both_lines if self.both_lines != "popper" else None),
            ("w", self.web_broker),
            ("m", self.broker),
            ("u", self.user),
            ("p", self.password),
        )
        pairs += [(name, value) for name, value in optional if value]
        return f"{self.page}#{urlencode(pairs)}"

    def sequel(self, told: object) -> Link | None:
        """The link of the game that follows this one's on the same link,
        as the inviting side's last state named it (``told``: its game id
        and rules, docs/remote.md), or None when ``told`` is not this
        link's own sequel or not a game this popref plays."""
        if not isinstance(told, dict):
            return None
        game, key = sequel(self.key)
        rules, repetition, both = told.get("rules"), told.get("repetition"), told.get("both_lines")
        if told.get("game") != game or not isinstance(rules, str) or not isinstance(both, str):
            return None
        if repetition is not None and (
            isinstance(repetition, bool) or not isinstance(repetition, int)
        ):
            return None
        after = dataclasses.replace(
            self,
            game=game,
            key=key,
            rules=rules,
            repetition=repetition,
            both_lines=both,  # type: ignore[arg-type]
        )
        try:
            return parse_link(after.url())  # the checks any link is given
        except LinkError:
            return None

    def follows(self, origin: Link, games: int = SEQUELS) -> bool:
        """Whether this link leads to a game after ``origin``'s, at most
        ``games`` on, by the same link: a grid given ``origin`` again keeps
        the game it has followed to since."""
        key = origin.key
        for _ in range(games):
            game, key = sequel(key)
            if game == self.game:
                return key == self.key
        return False


def parse_link(url: str) -> Link:
    """The invitation ``url`` carries; :class:`LinkError` with one line
    saying what is wrong (never echoing the secret)."""
    if len(url) > MAX_LINK:
        raise LinkError(f"the link is {len(url)} characters long; an invitation is shorter")
    page, hashed, fragment = url.strip().partition("#")
    scheme = urlsplit(page).scheme
    if scheme not in ("http", "https") or not hashed:
        raise LinkError("this is not an invitation link: it starts with http and has a # part")
    try:
        pairs = parse_qsl(fragment, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise LinkError("the part after # is damaged; copy the whole link again") from None
    values = dict(pairs)
    if len(values) != len(pairs):
        raise LinkError("the part after # names a key twice; copy the whole link again")
    if values.get("v") != VERSION:
        raise LinkError(
            f"the link is for protocol version {values.get('v', '?')[:8]}; this popref "
            f"speaks version {VERSION}: update the older side"
        )
    for name, what in _NAMES.items():
        if name not in values:
            raise LinkError(f"the link is cut short: it has {what} ({name}); copy all of it")
    try:
        unb64url(values["g"], GAME_BYTES)
        key = unb64url(values["k"], KEY_BYTES)
    except ValueError:
        raise LinkError("the game or the secret in the link is damaged; copy it again") from None
    if values["c"] not in ("red", "yellow"):
        raise LinkError("the colour in the link is neither red nor yellow; copy it again")
    rules = values.get("r", "classic")
    if rules not in RULES_NAMES:
        raise LinkError(f"the link names unknown rules {rules[:20]!r}; update popref")
    repetition = values.get("n")
    low, high = REPETITION
    if repetition is not None and not (
        repetition.isascii() and repetition.isdigit() and low <= int(repetition[:4]) <= high
    ):
        raise LinkError(f"the link's repetition rule (n) is not {low} to {high}; copy it again")
    side = values.get("b", "popper")
    if side not in BOTH_LINES:
        raise LinkError("the link's rule for lines of both colours (b) is unknown; update popref")
    both_lines = cast(Literal["popper", "opponent"], side)  # one of BOTH_LINES
    broker, web_broker = values.get("m"), values.get("w")
    if not broker and not web_broker:
        raise LinkError("the link names no broker (m or w); ask for a new link")
    try:
        if broker:
            broker_address(broker, TERMINAL)
        if web_broker:
            broker_address(web_broker, BROWSER)
    except ValueError as error:
        raise LinkError(f"the link's broker: {error}") from None
    return Link(
        page,
        values["g"],
        key,
        Colour(values["c"]),
        rules,
        broker or None,
        web_broker or None,
        values.get("u") or None,
        values.get("p") or None,
        int(repetition) if repetition is not None else None,
        both_lines,
    )


def hide_secrets(text: str) -> str:
    """``text`` (a link, or a command line or message holding one) with the
    link's secret (``k``) and guest password (``p``) replaced, for anything
    shown to a person or kept in a log: whoever reads the secret plays.

    >>> hide_secrets("popref simulate --join 'http://pi/remote#v=1&k=c2VjcmV0&c=red&p=pw'")
    "popref simulate --join 'http://pi/remote#v=1&k=(hidden)&c=red&p=(hidden)'"
    """
    return _SECRETS.sub(rf"\g<1>{HIDDEN}", text)


def site_address(host: str, port: int, hostname: str) -> str:
    """The address of popref's own web server listening on ``host`` and
    ``port``, as a person opens it: on every address (``0.0.0.0``, ``::``)
    the machine's ``hostname`` with ``.local``, else ``host`` itself.

    >>> site_address("0.0.0.0", 8080, "pi"), site_address("::1", 8080, "pi")
    ('http://pi.local:8080', 'http://[::1]:8080')
    """
    if host in ("0.0.0.0", "::"):
        host = f"{hostname}.local"  # the name Raspberry Pi OS announces on the network
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def page_address(
    configured: str, web: tuple[str, int] | None, web_broker: str | None, hostname: str
) -> str:
    """The remote page's address for links: ``configured`` (``[remote]
    page``), else popref's own web server (``web``: its host and port) at
    ``/remote``, else the browsers' broker's own host (Mosquitto serves the
    page from ``http_dir`` on its WebSocket listener), else :data:`NO_PAGE`
    (the link still works for ``popref play``).

    >>> page_address("", ("0.0.0.0", 8080), None, "pi")
    'http://pi.local:8080/remote'
    >>> page_address("", None, "wss://broker.example.org:8081", "pi")
    'https://broker.example.org:8081/'
    """
    if configured:
        return configured
    if web is not None:
        return f"{site_address(*web, hostname)}/remote"
    if web_broker:
        address = broker_address(web_broker, BROWSER)
        host = f"[{address.host}]" if ":" in address.host else address.host
        scheme = "https" if address.tls else "http"
        return f"{scheme}://{host}:{address.port}/"
    return NO_PAGE
