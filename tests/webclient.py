"""A small HTTP and event-stream client for the web tests (standard library
only), and a simulated table with its page served on loopback."""

from __future__ import annotations

import http.client
import io
import json
import socket
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any

from controller.computer.thinker import Thinker
from controller.daemon.config import parse_config
from controller.referee.pairing_window import LOOK
from controller.simulator.script import parse_line
from controller.simulator.simulation import Simulation
from controller.web.server import WebServer, serve_daemon
from hardware.clock import FakeClock

# the wait before a press that allows a pairing request
LOOKED = f"wait {round(LOOK * 1000)}"
# Red wins in column 1 (Yellow plays column 2 meanwhile)
WIN = ("drop 1", "drop 2", "drop 1", "drop 2", "drop 1", "drop 2", "drop 1")


class Table:
    """A simulated table (simulated time) with its page on 127.0.0.1, an
    ephemeral port."""

    def __init__(
        self,
        state_dir: Path,
        opponent: dict[str, Any] | None = None,
        remote: dict[str, Any] | None = None,
        thinker: Thinker | None = None,
        **web: Any,
    ) -> None:
        table = {"enabled": True, "host": "127.0.0.1", "port": 0, **web}
        document = {"web": table, "opponent": opponent or {}, "remote": remote or {}}
        self.config = parse_config(document, "test.toml")
        self.sim = Simulation(self.config, state_dir, thinker=thinker)
        # requests are timed on a clock of the test's own: none runs out unless told to
        self.deadlines = FakeClock()
        self.web: WebServer = serve_daemon(
            self.sim.daemon, self.config.web, self.sim.clock, self.sim, self.deadlines
        )
        self.host, self.port = self.web.address
        self.authority = f"{self.host}:{self.port}"  # what a browser sends as Host

    def act(self, *lines: str) -> None:
        for line in lines:
            action = parse_line(line, 1, "test")
            assert action is not None
            self.sim.act(action)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def get_json(self, path: str, token: str | None = None) -> Any:
        status, _, body = self.request("GET", path, token=token)
        assert status == 200, body
        return json.loads(body)

    def post(self, path: str, body: Any, token: str | None = None) -> tuple[int, Any]:
        status, _, raw = self.request("POST", path, body, token)
        return status, json.loads(raw)

    def pair(self) -> str:
        """Pair as a browser does, pressing the mode button on the grid once
        the code has shown long enough."""
        status, asked = self.post("/api/pair", {})
        assert status == 202, asked
        self.act(LOOKED, "press")
        status, claimed = self.post("/api/pair/claim", {"request": asked["request"]})
        assert status == 200, claimed
        token: str = claimed["token"]
        return token

    def close(self) -> None:
        self.web.close()
        self.sim.close()


class Stream:
    """One ``GET /api/events`` connection, read event by event."""

    def __init__(
        self,
        table: Table,
        token: str | None = None,
        path: str = "/api/events",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.connection = http.client.HTTPConnection(table.host, table.port, timeout=10)
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        self.connection.request("GET", path, headers=sent)
        self.response = self.connection.getresponse()
        self.status = self.response.status

    def next(self) -> dict[str, Any]:
        """The next state sent (keep-alive comments are skipped)."""
        data: list[bytes] = []
        while True:
            line = self.response.fp.readline()
            if not line:
                raise EOFError("the event stream ended")
            line = line.rstrip(b"\r\n")
            if line.startswith(b"data: "):
                data.append(line[6:])
            elif not line and data:
                state: dict[str, Any] = json.loads(b"\n".join(data))
                return state

    def until(self, check: Any) -> dict[str, Any]:
        """States until one for which ``check(state)`` holds."""
        for _ in range(100):
            state = self.next()
            if check(state):
                return state
        raise AssertionError("no such state in 100 events")

    def close(self) -> None:
        self.response.close()  # the response holds the socket open too
        self.connection.close()


@dataclass(frozen=True)
class Answer:
    """One answer as read off the wire."""

    status: int
    headers: Message
    body: bytes


class _Kept(io.BytesIO):
    def close(self) -> None:
        """Kept open: the next answer follows where this one ends."""


class _Wire:
    """What ``http.client.HTTPResponse`` reads an answer from: bytes received."""

    def __init__(self, data: bytes) -> None:
        self.file = _Kept(data)

    def makefile(self, mode: str) -> io.BytesIO:
        return self.file


def exchange(table: Table, data: bytes, *, head: bool = False) -> list[Answer]:
    """Send ``data`` as it is, end the sending side, and read every answer
    until the server closes (within 10 s)."""
    with socket.create_connection((table.host, table.port), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    wire = _Wire(received)
    answers: list[Answer] = []
    while wire.file.tell() < len(received):
        first = not answers
        method = "HEAD" if head and first else "GET"  # what follows a HEAD is another request
        response = http.client.HTTPResponse(wire, method=method)  # type: ignore[arg-type]
        response.begin()
        answers.append(Answer(response.status, response.headers, response.read()))
    return answers
