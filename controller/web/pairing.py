"""Who may control the board from a browser: pairing requests and tokens.

A browser asks to pair and gets a code, a few columns to draw lit; the board
lights the same ones (the referee's rule, :mod:`controller.referee.pairing_window`),
and a deliberate press of the mode button grants the one pending request a
token. The browser claims it with the request's id (in a request body, never
a URL) and sends it in the ``Authorization`` header from then on. Only
tokens' SHA-256 digests are kept, in ``web-tokens.json`` in the state
directory, so a restart keeps the phones paired and the file gives no control
away.

>>> import random
>>> from hardware.clock import FakeClock
>>> clock = FakeClock()
>>> pairing = Pairing(clock=clock, wall=lambda: 1000.0, days=1, random=random.Random(4))
>>> request, code = pairing.request(columns=7)
>>> code
(3, 5, 6, 7)
>>> pairing.claim(request) is PENDING
True
>>> pairing.granted()
True
>>> token = pairing.claim(request)
>>> pairing.allows(token), pairing.allows("guess")
(True, False)
>>> pairing.claim("\u00e9" * 4) is None  # not an id's form: never compared
True
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from random import Random, SystemRandom

from controller.i18n.text import _n
from controller.referee.commands import PAIRING_WINDOW
from hardware.clock import Clock

log = logging.getLogger("popref")

PENDING = object()  # claim(): the mode button has not been pressed yet
GRACE = 5.0  # seconds a granted token waits to be claimed after the window
REQUEST_BYTES = 24  # a request id's randomness: 32 characters of base64url
_REQUEST_FORM = re.compile(rf"[A-Za-z0-9_-]{{{REQUEST_BYTES * 4 // 3}}}")


class Busy(Exception):
    """Another browser is pairing now; the message says how long to wait."""

    def __init__(self, wait: float) -> None:
        seconds = round(wait)
        super().__init__(f"another browser is pairing now; try again in {seconds} s")
        self.sentence = _n(
            "Another browser is pairing now; try again in {n} second.",
            "Another browser is pairing now; try again in {n} seconds.",
            seconds,
        )


def new_code(columns: int, random: Random, before: tuple[int, ...] = ()) -> tuple[int, ...]:
    """A pairing code for a board of ``columns`` (4 or more): two or more
    columns lit and two or more dark, so that it reads as a pattern, never
    the same as the code ``before`` (a new request looks new).

    >>> import random
    >>> codes = {new_code(4, random.Random(seed)) for seed in range(100)}
    >>> sorted(codes)[:3], len(codes)
    ([(1, 2), (1, 3), (1, 4)], 6)
    """
    while True:
        code = tuple(c for c in range(1, columns + 1) if random.random() < 0.5)
        if 2 <= len(code) <= columns - 2 and code != before:
            return code


def well_formed(request: str) -> bool:
    """Whether ``request`` has the form of the ids :meth:`Pairing.request`
    makes (ASCII, so :func:`hmac.compare_digest` can compare it: it raises
    ``TypeError`` for any other text).

    >>> well_formed(secrets.token_urlsafe(REQUEST_BYTES)), well_formed("\u00e9" * 32)
    (True, False)
    """
    return _REQUEST_FORM.fullmatch(request) is not None


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Pairing:
    """Pending pairing requests and the tokens they granted."""

    def __init__(
        self,
        *,
        clock: Clock,
        wall: Callable[[], float],
        days: int,
        fixed_token: str = "",
        path: Path | None = None,
        random: Random = SystemRandom(),  # noqa: B008 - stateless, shared on purpose
    ) -> None:
        self._clock = clock
        self._wall = wall
        self._lifetime = days * 86400.0
        self._fixed = _digest(fixed_token) if fixed_token else None
        self._path = path
        self._lock = threading.Lock()
        self._request: str | None = None  # the one pending request's id
        self._asked_at = 0.0
        self._granted: str | None = None  # its token, once the button granted it
        self._code: tuple[int, ...] = ()  # its code: the columns lit on the board and its page
        self._shown = False  # the board has shown it
        self._random = random
        self._tokens: dict[str, float] = self._load()  # digest -> wall-clock expiry

    def request(self, columns: int) -> tuple[str, tuple[int, ...]]:
        """A new pairing request's id and its code for a board of
        ``columns``; raises :class:`Busy` while another browser's request is
        still within its window."""
        with self._lock:
            now = self._clock()
            if self._request is not None and now - self._asked_at < PAIRING_WINDOW + GRACE:
                wait = PAIRING_WINDOW + GRACE - (now - self._asked_at)
                raise Busy(wait)
            self._request = secrets.token_urlsafe(REQUEST_BYTES)
            self._asked_at = now
            self._granted = None
            self._shown = False
            self._code = new_code(columns, self._random, self._code)
            return self._request, self._code

    def shown(self, code: tuple[int, ...]) -> None:
        """The referee took in the request with ``code`` (the daemon's reply):
        from now on, a state without it means the request ended."""
        with self._lock:
            if self._request is not None and code == self._code:
                self._shown = True

    def observe(self, pairing: bool) -> None:
        """A new state (``pairing``: a request is pending on the board). Once
        the board showed ours, a state without one means it was refused or
        ran out, so its browser hears so at once and another may ask."""
        with self._lock:
            if self._shown and not pairing and self._granted is None:
                self._request = None
                self._shown = False

    def granted(self) -> bool:
        """The mode button answered: the pending request gets a token.
        ``False`` if no request was waiting."""
        with self._lock:
            if self._request is None or self._granted is not None:
                return False
            token = secrets.token_urlsafe(32)
            self._granted = token
            self._tokens[_digest(token)] = self._wall() + self._lifetime
            self._save()
            return True

    def claim(self, request: str) -> str | object | None:
        """The token for ``request`` (once), :data:`PENDING`, or ``None``
        when the request is unknown (or not an id at all) or its time ran out."""
        if not well_formed(request):
            return None
        with self._lock:
            if self._request is None or not hmac.compare_digest(request, self._request):
                return None
            if self._granted is not None:
                token = self._granted
                self._request = self._granted = None
                return token
            if self._clock() - self._asked_at >= PAIRING_WINDOW + GRACE:
                self._request = None
                return None
            return PENDING

    def allows(self, token: str | None) -> bool:
        """Whether ``token`` may control the board now."""
        if not token:
            return False
        digest = _digest(token)
        if self._fixed is not None and hmac.compare_digest(digest, self._fixed):
            return True
        with self._lock:
            expiry = self._tokens.get(digest)
            if expiry is None:
                return False
            if self._wall() >= expiry:
                del self._tokens[digest]
                self._save()
                return False
            return True

    def expires(self, token: str) -> float | None:
        """The wall-clock time ``token`` expires (``None``: never or unknown)."""
        with self._lock:
            return self._tokens.get(_digest(token))

    def _load(self) -> dict[str, float]:
        if self._path is None:
            return {}
        try:
            data = json.loads(self._path.read_text())
            now = self._wall()
            return {str(d): float(t) for d, t in data.items() if float(t) > now}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, TypeError, AttributeError) as error:
            log.warning("Cannot read %s (%s); every browser must pair again.", self._path, error)
            return {}

    def _save(self) -> None:
        if self._path is None:
            return
        temporary = self._path.with_name(self._path.name + ".tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as handle:
                json.dump(self._tokens, handle)
            os.replace(temporary, self._path)
        except OSError as error:
            log.warning("Cannot save the paired browsers in %s: %s.", self._path, error.strerror)
            with contextlib.suppress(OSError):
                temporary.unlink()
