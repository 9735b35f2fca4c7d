"""What every request must be before the page's code looks at it: meant
for this board (:mod:`controller.web.hosts`), framed so that its end is
certain (every header line ``name: value``, one ``Content-Length``), and,
for a POST, JSON sent by the page itself.

Each check raises :class:`Refused` with the status and the one sentence to
answer; nothing here reads the body.

>>> from email.message import Message
>>> headers = Message()
>>> headers["Content-Length"] = "1_0"
>>> content_length(headers)
Traceback (most recent call last):
...
controller.web.checks.Refused: 400 Content-Length must be digits only
>>> header_lines([b"Content-Length : 2\\r\\n", b"\\r\\n"], Message())
Traceback (most recent call last):
...
controller.web.checks.Refused: 400 send each header line as Name: value, the name a token
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from email import errors
from email.message import Message
from http import HTTPStatus

from controller.i18n.text import Text, _t
from controller.web.hosts import same_origin

MAX_BODY = 4096
DIGITS = re.compile(r"[0-9]{1,9}")
# what the email parser finds wrong with a multipart type's body, which a
# request's headers never have: no defect of the header block
BODY_DEFECTS = (
    errors.NoBoundaryInMultipartDefect,
    errors.StartBoundaryNotFoundDefect,
    errors.CloseBoundaryNotFoundDefect,
    errors.MultipartInvariantViolationDefect,
    errors.InvalidMultipartContentTransferEncodingDefect,
)
# RFC 9110 5.1 and 5.5: a token, its colon at once (no whitespace before it),
# and a value with no control character but the tab (no CR, LF or NUL)
FIELD_LINE = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\x00-\x08\x0a-\x1f\x7f]*")


class Refused(Exception):
    """A request answered with ``status`` and ``sentence``, and nothing else."""

    def __init__(self, status: HTTPStatus, sentence: str | Text) -> None:
        super().__init__(f"{status.value} {sentence}")
        self.status = status
        self.sentence = sentence


def header_lines(lines: Sequence[bytes], headers: Message) -> None:
    """Every line of the header block (``lines``, as received, the blank
    line that ends them included) is ``name: value``, and ``headers``, what
    the email parser made of them, holds them all. http.server's parser is
    lenient: it ends the headers early at a line it does not understand
    (``Content-Length : 5``, a line with no colon), joins a folded line to
    the one before, and says nothing; the body would then be read as
    another request. A proxy in front might read them otherwise, so none
    is guessed at."""
    for raw in lines:
        line = raw.decode("latin-1").removesuffix("\n").removesuffix("\r")
        if not line:
            continue  # the blank line that ends the headers
        if line[0] in " \t":
            raise Refused(HTTPStatus.BAD_REQUEST, "do not fold a header line onto the next")
        if FIELD_LINE.fullmatch(line) is None:
            raise Refused(
                HTTPStatus.BAD_REQUEST, "send each header line as Name: value, the name a token"
            )
    # and what the parser made of them: no defect in the header block, no
    # envelope line taken, nothing left over as a "body" (a message/* type's
    # parts too); a multipart Content-Type's missing body is no such defect
    for part in headers.walk():
        payload = part.get_payload()
        defects = [d for d in part.defects if not isinstance(d, BODY_DEFECTS)]
        if defects or part.get_unixfrom() is not None or (isinstance(payload, str) and payload):
            raise Refused(HTTPStatus.BAD_REQUEST, "the request's headers are malformed")


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
