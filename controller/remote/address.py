"""Broker addresses: ``mqtt://`` and ``mqtts://`` for the daemon and
terminal clients, ``ws://`` and ``wss://`` for browsers. The broker's user
and password never travel in an address (``[remote] user``, ``password``).

>>> broker_address("mqtt://127.0.0.1:1883")
BrokerAddress(scheme='mqtt', host='127.0.0.1', port=1883, path='')
>>> broker_address("wss://broker.example.org/mqtt", BROWSER).url
'wss://broker.example.org:443/mqtt'
>>> broker_address("http://example.org")
Traceback (most recent call last):
...
ValueError: 'http://example.org' is not a broker address; write mqtt://HOST:PORT or mqtts://HOST:PORT
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

TERMINAL = ("mqtt", "mqtts")  # TCP, for the daemon and popref play
BROWSER = ("ws", "wss")  # WebSockets, for the page
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*\.?")
_PATH = re.compile(r"(/[A-Za-z0-9._~!$&'()*+,;=:@%-]*)*")


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where a broker listens; ``path`` is the WebSocket path (``""``: ``/``)."""

    scheme: str
    host: str
    port: int
    path: str = ""

    @property
    def tls(self) -> bool:
        return self.scheme in ("mqtts", "wss")

    @property
    def websockets(self) -> bool:
        return self.scheme in BROWSER

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"


def broker_address(text: str, schemes: Sequence[str] = TERMINAL) -> BrokerAddress:
    """The broker ``text`` names, with one of ``schemes``; ``ValueError`` with
    one line saying what to write otherwise."""
    example = " or ".join(f"{s}://HOST:PORT" for s in schemes)
    wrong = ValueError(f"{text[:80]!r} is not a broker address; write {example}")
    if not isinstance(text, str) or len(text) > 300 or any(c.isspace() for c in text):
        raise wrong
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise wrong from None
    if parts.scheme not in schemes or not parts.hostname:
        raise wrong
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            f"{parts.scheme}://...: put no user or password in the address; "
            "[remote] has keys of their own for them"
        )
    if parts.query or parts.fragment:
        raise ValueError(f"{text[:80]!r}: a broker address has no ?query or #fragment")
    path = parts.path
    if path and (not _PATH.fullmatch(path) or parts.scheme in TERMINAL):
        raise ValueError(f"{text[:80]!r}: only ws:// and wss:// addresses have a path")
    host = parts.hostname
    if not _host(host):
        raise wrong
    return BrokerAddress(parts.scheme, host, port or DEFAULT_PORTS[parts.scheme], path)


def _host(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return bool(_HOSTNAME.fullmatch(host))
    return True
