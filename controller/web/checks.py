"""What every request must be before the page's code looks at it: meant
for this board (:mod:`controller.web.hosts`), framed so that its end is
certain, and, for a POST, JSON sent by the page itself.

Each check raises :class:`Refused` with the status and the one sentence to
answer; nothing here reads the body.

>>> from email.message import Message
>>> headers = Message()
>>> headers["Content-Length"] = "1_0"
>>> content_length(headers)
Traceback (most recent call last):
...
controller.web.checks.Refused: 400 Content-Length must be digits only
"""

from __future__ import annotations

import re
from email.message import Message
from http import HTTPStatus

from controller.i18n.text import Text, _t
from controller.web.hosts import same_origin

MAX_BODY = 4096
DIGITS = re.compile(r"[0-9]{1,9}")


class Refused(Exception):
    """A request answered with ``status`` and ``sentence``, and nothing else."""

    def __init__(self, status: HTTPStatus, sentence: str | Text) -> None:
        super().__init__(f"{status.value} {sentence}")
        self.status = status
        self.sentence = sentence


def content_length(headers: Message) -> int:
    """The body's length: one ``Content-Length`` of plain digits, at most
    :data:`MAX_BODY`; no ``Transfer-Encoding``, whose end this server would
    not find (the rest would be read as another request)."""
    if headers.get_all("Transfer-Encoding"):
        raise Refused(HTTPStatus.NOT_IMPLEMENTED, "send the body with Content-Length")
    values = headers.get_all("Content-Length") or ["0"]
    if len(values) > 1:
        raise Refused(HTTPStatus.BAD_REQUEST, "send one Content-Length")
    if DIGITS.fullmatch(values[0]) is None:
        raise Refused(HTTPStatus.BAD_REQUEST, "Content-Length must be digits only")
    length = int(values[0])
    if length > MAX_BODY:
        raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"send at most {MAX_BODY} bytes")
    return length


def from_the_page(headers: Message) -> None:
    """A POST must come from this board's own page (or a client that is no
    browser, which sends no ``Origin``), as JSON: a page elsewhere cannot
    send ``application/json`` without asking first, and this server never
    says yes."""
    if not same_origin(headers.get("Origin"), headers.get("Host", "")):
        raise Refused(
            HTTPStatus.FORBIDDEN,
            _t("Requests from pages of other sites are refused; open this board's own page."),
        )
    kind = headers.get("Content-Type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise Refused(
            HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
            "send the body as JSON, Content-Type: application/json",
        )
