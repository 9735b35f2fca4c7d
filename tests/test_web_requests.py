"""Hostile requests against the web view (issue 19): names that are not the
board's, pages of other sites, bodies that are not JSON or not what their
length says, malformed requests, clients that go away or send slowly. Each
gets one well-formed answer with the security headers (or, past its time,
the door), never a traceback, and none keeps others from the page."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.web.checks import MAX_BODY
from controller.web.connections import REQUEST_TIME
from controller.web.hosts import Hosts, holds
from tests.webclient import Answer, Table, exchange

SECURITY = {
    "Content-Security-Policy": "default-src 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


@pytest.fixture
def named(tmp_path: Path) -> Iterator[Table]:
    """A table whose owner added a name of its own, as behind a TLS proxy."""
    served = Table(tmp_path / "state", hosts=["popref.example.org"])
    try:
        yield served
    finally:
        served.close()


def guarded(answer: Answer) -> None:
    """The answer carries every header docs/web.md promises, and an error
    says why in one JSON sentence."""
    for name, part in SECURITY.items():
        assert part in answer.headers.get(name, ""), (name, answer.status)
    if answer.status >= 400 and answer.body:
        error = json.loads(answer.body)["error"]
        assert isinstance(error, str) and error and "\n" not in error


def request(
    table: Table,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
) -> Answer:
    """One request, framed as given (``Host`` is the board's unless given)."""
    sent = {"Host": table.authority, **(headers or {})}
    if body and "Content-Length" not in sent:
        sent["Content-Length"] = str(len(body))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in sent.items())
    answers = exchange(table, head.encode() + b"\r\n" + body, head=method == "HEAD")
    assert answers, "no answer"
    for answer in answers:
        guarded(answer)
    return answers[0]


def post(table: Table, path: str, body: bytes = b"{}", **headers: str) -> Answer:
    sent = {"Content-Type": "application/json", **headers}
    return request(table, "POST", path, sent, body)


def no_tracebacks(capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    assert "Traceback" not in capfd.readouterr().err
    assert not [record for record in caplog.records if record.exc_info]


# -- the names the board answers to (DNS rebinding) ----------------------------------------


@pytest.mark.parametrize("path", ["/", "/api/state", "/api/events", "/api/games", "/app.js"])
def test_a_request_naming_another_host_is_refused_even_a_get(table: Table, path: str) -> None:
    for host in ("evil.example", f"evil.example:{table.port}", "127.0.0.1.evil.example"):
        answer = request(table, "GET", path, {"Host": host})
        assert answer.status == 421, host
        assert "[web] hosts" in json.loads(answer.body)["error"]
    assert request(table, "GET", path, {"Host": ""}).status == 421
    assert request(table, "POST", "/api/pair", {"Host": "evil.example"}).status == 421


def test_the_board_answers_to_its_own_names(named: Table) -> None:
    port = named.port
    own = socket.gethostname()
    for host in (
        f"127.0.0.1:{port}",
        f"localhost:{port}",
        "localhost",
        f"[::1]:{port}",
        f"{own}:{port}",
        f"{own}.local:{port}",
        f"{own.upper()}.LOCAL.",
        "popref.example.org",
        "popref.example.org:443",
    ):
        assert request(named, "GET", "/api/state", {"Host": host}).status == 200, host


def test_an_address_this_machine_holds_is_its_own() -> None:
    import ipaddress

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet leaves: the route picks an address
        except OSError:
            pytest.skip("no IPv4 route here")
        mine = probe.getsockname()[0]
    assert holds(ipaddress.ip_address(mine)) and holds(ipaddress.ip_address("127.0.0.1"))
    assert not holds(ipaddress.ip_address("192.0.2.1"))  # TEST-NET: nobody's
    hosts = Hosts(hostname=lambda: "pi")
    assert hosts.allows(f"{mine}:8080") and hosts.allows(f"[::ffff:{mine}]")
    assert not hosts.allows("192.0.2.1:8080") and not hosts.allows("0.0.0.0:8080")
    assert not hosts.allows("[::]:8080") and not hosts.allows("255.255.255.255")


def test_web_hosts_is_checked() -> None:
    from controller.daemon.config import parse_config
    from hardware.errors import ConfigError

    assert parse_config({"web": {"hosts": ["a.example", "10.0.0.9"]}}, "x").web.hosts == (
        "a.example",
        "10.0.0.9",
    )
    for wrong in ("a.example", ["a b"], [1], ["-a.example"], ["a" * 64 + ".example"]):
        with pytest.raises(ConfigError, match=r"^x: \[web\] hosts: must be a list"):
            parse_config({"web": {"hosts": wrong}}, "x")


# -- pages of other sites (a blind cross-site POST) ----------------------------------------


def test_a_post_from_another_sites_page_is_refused(table: Table) -> None:
    for origin in ("http://evil.example", "null", f"http://{table.authority}.evil.example"):
        answer = post(table, "/api/pair", Origin=origin)
        assert answer.status == 403 and "other sites" in json.loads(answer.body)["error"]
    assert not table.get_json("/api/state")["pairing"]
    assert post(table, "/api/pair", Origin=f"http://{table.authority}").status == 202


@pytest.mark.parametrize(
    "kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
def test_every_post_must_be_json(table: Table, kind: str | None) -> None:
    headers = {"Content-Type": kind} if kind else {}
    answer = request(table, "POST", "/api/pair", headers, b"{}")
    assert answer.status == 415 and "application/json" in json.loads(answer.body)["error"]
    assert not table.get_json("/api/state")["pairing"]


def test_a_preflight_is_never_answered_yes(table: Table) -> None:
    answer = request(table, "OPTIONS", "/api/pair", {"Origin": "http://evil.example"})
    assert answer.status in (421, 501)
    assert "Access-Control-Allow-Origin" not in answer.headers


# -- bodies and their length --------------------------------------------------------------------


@pytest.mark.parametrize("length", ["1_0", "+2", "-1", " 2 ", "0x2", "2, 2", "١٢", "2.0", ""])
def test_content_length_is_digits_only(table: Table, length: str) -> None:
    answer = post(table, "/api/pair", b"{}", **{"Content-Length": length})
    assert answer.status == 400, length
    assert not table.get_json("/api/state")["pairing"]


def test_one_content_length_and_no_transfer_encoding(table: Table) -> None:
    head = (
        f"POST /api/pair HTTP/1.1\r\nHost: {table.authority}\r\n"
        "Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"
    )
    assert exchange(table, head.encode())[0].status == 400
    chunked = post(table, "/api/pair", b"2\r\n{}\r\n0\r\n\r\n", **{"Transfer-Encoding": "chunked"})
    assert chunked.status == 501
    assert post(table, "/api/pair", b"x" * (MAX_BODY + 1)).status == 413
    assert post(table, "/api/pair", b"{}", **{"Content-Length": "3"}).status == 400  # short


# header lines http.server's parser would pass over in silence, ending the
# headers there or joining them: the body after them would be answered as a
# second request (as a proxy in front would not)
MALFORMED_LINES = {
    "space before the colon": "Content-Length : {n}\r\n",
    "tab before the colon": "Content-Length\t: {n}\r\n",
    "no colon": "Content-Length {n}\r\n",
    "folded": "X-A: a\r\n Content-Length: {n}\r\n",
    "folded with a tab": "X-A: a\r\n\tContent-Length: {n}\r\n",
    "transfer-encoding, space before the colon": "Transfer-Encoding : chunked\r\n",
    "empty name": ": x\r\nContent-Length: {n}\r\n",
    "name not a token": "Content(Length): {n}\r\n",
    "a bare CR in a value": "X-A: a\rContent-Length: {n}\r\n",
    "a NUL in a value": "X-A: a\x00b\r\nContent-Length: {n}\r\n",
    "an envelope line": "From someone\r\nContent-Length: {n}\r\n",
}


@pytest.mark.parametrize("line", MALFORMED_LINES.values(), ids=MALFORMED_LINES.keys())
@pytest.mark.parametrize("method", ["POST", "GET"])
def test_a_malformed_header_line_is_refused_and_the_body_never_answered(
    table: Table, line: str, method: str
) -> None:
    smuggled = f"GET /api/session HTTP/1.1\r\nHost: {table.authority}\r\n\r\n"
    head = (
        f"{method} /api/pair HTTP/1.1\r\nHost: {table.authority}\r\n"
        "Content-Type: application/json\r\n" + line.format(n=len(smuggled)) + "\r\n"
    )
    answers = exchange(table, (head + smuggled).encode("latin-1"))
    assert [a.status for a in answers] == [400], line
    guarded(answers[0])
    assert answers[0].headers["Connection"] == "close"
    assert not table.get_json("/api/state")["pairing"]


def test_well_formed_header_lines_still_pass(table: Table) -> None:
    odd = {
        "X-A": "",
        "Content-Type": "message/rfc822",
        "x-b!#$%&'*+.^_`|~": "a\tb \xe9",
        "Accept-Language": "fi",
    }
    assert request(table, "GET", "/api/state", odd).status == 200
    head = f"GET /api/state HTTP/1.1\r\nHost:{table.authority}\r\nX-A:\t a \r\n\r\n"
    assert [a.status for a in exchange(table, head.encode())] == [200]


def test_deeply_nested_json_is_a_400_and_one_line(
    table: Table, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    for body in (b"[" * 4000, b"[" * 2000 + b"]" * 2000):  # the second is JSON, too deep
        answer = post(table, "/api/pair", body)
        assert answer.status == 400 and json.loads(answer.body)["error"] == "send a JSON object"
    no_tracebacks(capfd, caplog)


def test_a_get_with_a_body_is_read_whole(table: Table) -> None:
    # the body is not taken for the next request on the same connection
    smuggled = f"GET /api/session HTTP/1.1\r\nHost: {table.authority}\r\n\r\n".encode()
    answers = exchange(
        table,
        f"GET /api/rules HTTP/1.1\r\nHost: {table.authority}\r\n"
        f"Content-Length: {len(smuggled)}\r\n\r\n".encode()
        + smuggled,
    )
    assert [a.status for a in answers] == [200]


# -- http.server's own refusals --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET / HTTP/9\r\n\r\n", 400),
        (b"GET / HTTP/2.0\r\n\r\n", 505),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
        (b"BREW / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501),
        (b"PUT / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501),
        (b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 120 + b"\r\n", 431),
        (b"GET / HTTP/1.1\r\nX-A: " + b"b" * 30_000 + b"\r\n\r\n", 431),
    ],
)
def test_http_servers_own_refusals_carry_the_headers(table: Table, raw: bytes, status: int) -> None:
    answers = exchange(table, raw)
    assert answers[0].status == status
    for answer in answers:
        guarded(answer)


def test_an_http_0_9_request_gets_headers_too(table: Table) -> None:
    answers = exchange(table, b"GET /\r\n\r\n")
    assert answers and answers[0].status in (400, 421)
    guarded(answers[0])


# -- clients that go away, or send slowly ----------------------------------------------------


def test_a_client_that_resets_mid_request_is_one_line_in_the_log(
    table: Table, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, "popref")
    places = table.web.places
    for _ in range(50):
        sock = socket.create_connection((table.host, table.port))
        sock.sendall(b"POST /api/pair HTTP/1.1\r\nHost: 127")
        assert places.wait(open=1, sending=1, timeout=10)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()  # a reset, not a goodbye
        assert places.wait(open=0, timeout=10)
    no_tracebacks(capfd, caplog)
    ended = [r for r in caplog.records if "web:" in r.getMessage()]
    # at most one line each (a reset seen as an end of file says nothing), none a warning
    assert 0 < len(ended) <= 50 and all(r.levelno == logging.DEBUG for r in ended)


def test_closing_the_server_ends_a_connection_waiting_for_its_request(tmp_path: Path) -> None:
    # it would hold its thread until the request's time ran out, after the server
    served = Table(tmp_path / "state")
    sock = socket.create_connection((served.host, served.port))
    sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127")
    assert served.web.places.wait(open=1, sending=1, timeout=10)
    served.close()
    assert served.web.places.open == 0
    sock.settimeout(10)
    assert sock.recv(1) == b""
    sock.close()


def test_a_request_must_arrive_whole_within_its_time(table: Table) -> None:
    places = table.web.places
    with socket.create_connection((table.host, table.port), timeout=10) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: ")
        assert places.wait(open=1, sending=1, timeout=10)
        table.deadlines.advance(REQUEST_TIME)
        slow.sendall(b"1")  # one byte more, too late
        received = b""
        while chunk := slow.recv(4096):
            received += chunk
    assert received.startswith(b"HTTP/1.1 408 ")
    assert b"Content-Security-Policy: default-src 'none'" in received


def test_slow_clients_cannot_keep_a_new_one_from_the_page(table: Table) -> None:
    """Twice as many slow connections as there are places, each having sent
    part of its request: a client that sends its own at once gets the page."""
    places = table.web.places
    slow = []
    try:
        for _ in range(2 * places.cap):
            sock = socket.create_connection((table.host, table.port), timeout=10)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(sock)
        assert places.wait(open=places.cap, sending=places.cap, timeout=10)
        status, _, body = table.request("GET", "/")
        assert status == 200 and b"<script" in body
        assert table.get_json("/api/state")["rules"] == "classic"
    finally:
        for sock in slow:
            sock.close()


# -- any request at all ----------------------------------------------------------------------

HEADER_VALUE = st.text(
    st.characters(min_codepoint=32, max_codepoint=255, exclude_characters="\x7f"), max_size=60
)


@st.composite
def hostile(draw: st.DrawFn, authority: str) -> tuple[bytes, bool]:
    """A request as anyone might send it: any method and path, any Host,
    Origin, Content-Type and Content-Length, any body."""
    method = draw(st.sampled_from(["GET", "POST", "HEAD", "PUT", "OPTIONS", "DELETE", "X"]))
    path = draw(
        st.sampled_from(["/", "/api/state", "/api/pair", "/api/rules", "/api/games/1", "/x"])
        | st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=40).map(
            lambda p: "/" + p
        )
    )
    headers = []
    host = draw(st.sampled_from([authority, "localhost", "evil.example", None]) | HEADER_VALUE)
    if host is not None:
        headers.append(("Host", host))
    origin = draw(st.sampled_from([None, f"http://{authority}", "http://evil.example", "null"]))
    if origin is not None:
        headers.append(("Origin", origin))
    kind = draw(st.sampled_from([None, "application/json", "text/plain"]) | HEADER_VALUE)
    if kind is not None:
        headers.append(("Content-Type", kind))
    body = draw(
        st.binary(max_size=300)
        | st.sampled_from([b"{}", b'{"rules": "pop10"}', b"[" * 4000, b"x" * (MAX_BODY + 1)])
    )
    length = draw(
        st.sampled_from([str(len(body)), None, "1_0", "+2", "-1", "99999999999"])
        | st.integers(0, len(body)).map(str)
        | HEADER_VALUE
    )
    if length is not None:
        headers.append(("Content-Length", length))
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers)
    head = f"{method} {path} HTTP/1.1\r\n{lines}\r\n".encode("latin-1")
    return head + body, method == "HEAD"


def test_any_request_gets_a_well_formed_guarded_answer_and_no_traceback(
    table: Table, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    @settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def check(data: st.DataObject) -> None:
        raw, head = data.draw(hostile(table.authority))
        answers = exchange(table, raw, head=head)
        assert answers, raw[:200]
        for answer in answers:
            assert 200 <= answer.status < 600
            guarded(answer)
            assert "Access-Control-Allow-Origin" not in answer.headers

    check()
    no_tracebacks(capfd, caplog)
