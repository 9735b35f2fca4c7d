"""The names this board answers to, and the one origin its page runs in.

A page from another site can make a browser send requests here: by DNS
rebinding (its own name made to point at the board) or blindly, cross-site.
Both carry that site's name in ``Host`` or ``Origin``, so every request must
name the board itself: a loopback name or address, this machine's hostname
or ``<hostname>.local``, an address this machine holds (asked of the kernel
at each request, so a new DHCP lease counts at once), or a name the owner
lists in ``[web] hosts``.

>>> hosts = Hosts(["table.example"], hostname=lambda: "popref", holds=lambda a: False)
>>> [hosts.allows(h) for h in ("localhost:8080", "popref.local", "[::1]:80", "table.example")]
[True, True, True, True]
>>> [hosts.allows(h) for h in ("evil.example", "popref.evil.example", "", None, "a b")]
[False, False, False, False, False]
>>> same_origin("http://popref.local:8080", "popref.local:8080"), same_origin(None, "x")
(True, True)
>>> same_origin("http://evil.example", "popref.local:8080"), same_origin("null", "x")
(False, False)
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
from collections.abc import Callable, Iterable

# a name (letters, digits, dots, hyphens) or a bracketed IPv6 address, and a port
HOST = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]{2,45})\]|(?P<name>[a-z0-9.-]{1,253}))(?::[0-9]{1,5})?")
LOOPBACK_NAMES = frozenset({"localhost"})

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def holds(address: Address) -> bool:
    """Whether this machine holds ``address``: the kernel lets a socket bind
    to exactly the addresses of its interfaces."""
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


class Hosts:
    """The ``Host`` values this board answers to."""

    def __init__(
        self,
        extra: Iterable[str] = (),
        *,
        hostname: Callable[[], str] = socket.gethostname,
        holds: Callable[[Address], bool] = holds,
    ) -> None:
        self._extra = frozenset(name.lower().rstrip(".") for name in extra)
        self._hostname = hostname
        self._holds = holds

    def allows(self, host: str | None) -> bool:
        """Whether a request with this ``Host`` header is meant for this board."""
        match = HOST.fullmatch((host or "").lower())
        if match is None:
            return False
        if match["v6"] is not None:
            return self._address(match["v6"])
        name = match["name"].rstrip(".")
        if name in self._extra or name in LOOPBACK_NAMES:
            return True
        with contextlib.suppress(ValueError):
            ipaddress.IPv4Address(name)
            return self._address(name)
        own = self._hostname().lower().rstrip(".")
        return bool(own) and name in (own, own + ".local")

    def _address(self, text: str) -> bool:
        try:
            address: Address = ipaddress.ip_address(text)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if address.is_loopback:
            return True
        if address.is_unspecified or address.is_multicast or str(address) == "255.255.255.255":
            return False
        return str(address) in self._extra or self._holds(address)


def same_origin(origin: str | None, host: str) -> bool:
    """Whether a request's ``Origin`` is absent (not sent by a browser, or a
    same-origin GET) or the page this ``Host`` serves, directly or behind a
    TLS proxy."""
    if origin is None:
        return True
    origin = origin.strip().lower()
    host = host.strip().lower()
    return origin in (f"http://{host}", f"https://{host}")
