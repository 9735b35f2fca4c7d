"""One HTTP exchange of the page's server: who is asking, whether the
request is whole and for this board, and the answer's form.

Every answer, a refusal too, carries the same headers (the page's content
policy, no sniffing, no framing, no caching) and an error is one JSON
object with its sentence in the reader's language and in every other.
:mod:`controller.web.api` says what each call does.
"""

from __future__ import annotations

import io
import json
import logging
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qs

from controller.i18n.text import LANGUAGES, _t, choose, known, render, sentences
from controller.referee.commands import Command
from controller.referee.verdict import Reply
from controller.web.checks import Refused, content_length, from_the_page, header_lines
from controller.web.connections import Connection, Connections
from controller.web.hosts import HOST
from controller.web.remote_page import PAGE, policy

if TYPE_CHECKING:
    from controller.daemon.config import WebConfig
    from controller.remote.host import RemoteHost
    from controller.remote.link import Link
    from controller.store.archive import GameArchive
    from controller.web.hosts import Hosts
    from controller.web.hub import StateHub
    from controller.web.pairing import Pairing
    from hardware.clock import Clock

log = logging.getLogger("popref")

# the page's own content policy (the remote page's adds the browsers' broker)
CSP = policy()
URI_TOO_LONG = HTTPStatus.REQUEST_URI_TOO_LONG
# http.server's own refusals, each said as one line
MALFORMED = {
    HTTPStatus.BAD_REQUEST: "the request line is malformed; send METHOD /path HTTP/1.1",
    URI_TOO_LONG: "the address is too long",
    HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE: "the request's headers are too long or too many",
    HTTPStatus.NOT_IMPLEMENTED: "this server answers GET, HEAD and POST only",
    HTTPStatus.HTTP_VERSION_NOT_SUPPORTED: "send HTTP/1.1",
}
NOT_PAIRED = _t(
    "This browser is not paired: press Pair on the page, then press the mode button "
    "on the board within 30 seconds."
)


class Lines(io.BufferedReader):
    """A connection's reader that keeps the lines read since :attr:`lines`
    was last emptied: the request's line and headers as received, for
    :func:`~controller.web.checks.header_lines` to check."""

    lines: list[bytes]

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        self.lines.append(line)
        return line


class Controls(Protocol):
    """Where the page's commands go: the daemon (``Daemon.submit``), which
    calls ``reply`` with the verdict once the command is durable; a link
    given on the page likewise (``Daemon.join``)."""

    def submit(self, command: Command, reply: Reply | None = None) -> None: ...

    def join(self, link: Link, reply: Reply | None = None) -> None: ...

    def leave(self, reply: Reply | None = None) -> None: ...


class Site(Protocol):
    """What a request reads of the server that took it (``WebServer``): the
    parts every connection shares."""

    config: WebConfig
    deadlines: Clock  # what requests and answers are timed on
    controls: Controls
    remote: RemoteHost | None
    archive: GameArchive
    columns: int
    hosts: Hosts
    hub: StateHub
    places: Connections
    pairing: Pairing
    static: dict[str, tuple[str, bytes]]

    @property
    def remote_page(self) -> str: ...


class Exchange(BaseHTTPRequestHandler):
    """One connection's requests, checked and answered; the server
    (``self.server.web``) holds everything shared, ``self.request`` is the
    :class:`Connection`. What each call does is :class:`api.Handler`'s."""

    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"  # every answer has its headers, even to HTTP/0.9
    io: Connection
    rfile: Lines
    body = b""

    @property
    def web(self) -> Site:
        return self.server.web  # type: ignore[attr-defined, no-any-return]

    @property
    def places(self) -> Connections:
        return self.web.places

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("web: %s %s", self.address_string(), format % args)

    # -- a whole request, or a refusal ---------------------------------------------------

    def setup(self) -> None:
        self.io = self.request
        self.connection = self.io.sock
        self.rfile = Lines(self.io)
        self.wfile = io.BufferedWriter(self.io)  # flushed at the end of each answer

    def handle_one_request(self) -> None:
        self.io.begin_request()
        self.places.sending(self.io)
        # what a refusal before the request line and headers are read may look at
        self.raw_requestline, self.requestline = b"", ""
        self.command, self.request_version = None, self.default_request_version  # type: ignore[assignment]
        self.path, self.headers, self.body = "", self.MessageClass(), b""
        self.rfile.lines = []  # the request line, then its headers
        try:
            super().handle_one_request()
        except Refused as refusal:  # too slow or too large, before the request was whole
            too_large = refusal.status == HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
            if too_large and not self.requestline:  # it never ended: an address too long
                refusal = Refused(HTTPStatus.REQUEST_URI_TOO_LONG, MALFORMED[URI_TOO_LONG])
            self._refuse(refusal)

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        try:
            self._check()
        except Refused as refusal:
            self._refuse(refusal)
            return False
        self.places.answering(self.io)
        self.io.begin_answer()
        return True

    def _check(self) -> None:
        """Refuse a request that is not for this board or not whole; read its body."""
        header_lines(self.rfile.lines[1:], self.headers)
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or not self.web.hosts.allows(hosts[0]):
            named = hosts[0] if len(hosts) == 1 and HOST.fullmatch(hosts[0].lower()) else "?"
            raise Refused(
                HTTPStatus.MISDIRECTED_REQUEST,
                _t(
                    "This board does not answer to the name {host}: open it by its own name or "
                    "address, or add the name to [web] hosts.",
                    host=named,
                ),
            )
        length = content_length(self.headers)
        if self.command == "POST":
            from_the_page(self.headers)
        self.body = self.rfile.read(length)
        if len(self.body) < length:
            raise Refused(HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length")

    def _refuse(self, refusal: Refused) -> None:
        """Answer ``refusal`` and close: what follows the request cannot be trusted."""
        self.close_connection = self.io.refused = True
        self.io.begin_answer()
        self._error(refusal.status, refusal.sentence)

    def handle_expect_100(self) -> bool:
        return True  # no interim answer before the request is checked; the body follows anyway

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line, an unknown
        method, too many headers), answered like every other, headers and all."""
        self.log_error("code %d, message %s", code, message)
        self.close_connection = self.io.refused = True
        status = HTTPStatus(code)
        self._error(status, MALFORMED.get(status, "the request is malformed"))

    def version_string(self) -> str:
        return "popref"  # the Server header: no version for a stranger to look up

    # -- answers ----------------------------------------------------------------------

    def _headers(
        self, status: int, kind: str, length: int | None, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Security-Policy", self._policy())
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cache-Control", "no-store")
        if length is not None:
            self.send_header("Content-Length", str(length))
        if self.close_connection:
            self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _policy(self) -> str:
        """The remote page may also reach the browsers' broker; every other
        answer has the page's own policy."""
        remote = self.web.remote
        if self.path.split("?", 1)[0] != PAGE or remote is None:
            return CSP
        return policy(remote.settings.web_broker)

    def _send(
        self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None
    ) -> None:
        self._headers(status, kind, len(body), extra)
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value).encode(), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(
            status, {"error": render(message, self._language()), "error_in": in_every(message)}
        )

    def _language(self) -> str:
        """The reader's language: ``?lang=`` (the page's own choice), else
        the browser's ``Accept-Language``, else English (also before the
        request's line and headers have been read)."""
        query = parse_qs(self.path.partition("?")[2])
        asked = known(query.get("lang", [""])[0])
        return asked or choose(self.headers.get("Accept-Language"))

    # -- who is asking ------------------------------------------------------------------

    def _token(self) -> str | None:
        header = self.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        return token.strip() if scheme.lower() == "bearer" else None

    def _paired(self) -> bool:
        return self.web.pairing.allows(self._token())

    def _may_watch(self) -> bool:
        if self.web.config.watch or self._paired():
            return True
        watching = _t("Watching needs a paired browser here.")
        self._error(HTTPStatus.FORBIDDEN, sentences(watching, NOT_PAIRED))
        return False

    def _may_control(self) -> bool:
        if self._paired():
            return True
        self._error(HTTPStatus.FORBIDDEN, NOT_PAIRED)
        return False

    def _body(self, path: str, fields: tuple[str, ...]) -> dict[str, Any] | None:
        """The request's JSON object, holding none but ``fields``; ``None``
        after answering 400."""
        try:
            value = json.loads(self.body or b"{}")
        except (ValueError, RecursionError):  # RecursionError: nested too deep, "[[[[..."
            value = None
        if not isinstance(value, dict):
            self._error(HTTPStatus.BAD_REQUEST, "send a JSON object")
            return None
        unknown = sorted(set(value) - set(fields))
        if unknown:
            takes = ", ".join(fields) or "{}"
            said = f"unknown field {unknown[0][:40]!r}; POST {path} takes {takes}"
            self._error(HTTPStatus.BAD_REQUEST, said)
            return None
        return value


def in_every(message: str) -> dict[str, str]:
    """``message`` in every language the page speaks (a plain ``str`` is English)."""
    return {code: render(message, code) or "" for code in LANGUAGES}
