"""A small HTTP and event-stream client for the web tests (standard library
only), and a simulated table with its page served on loopback."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

from controller.daemon.config import parse_config
from controller.simulator.script import parse_line
from controller.simulator.simulation import Simulation
from controller.web.server import WebServer, serve_daemon

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
        **web: Any,
    ) -> None:
        table = {"enabled": True, "host": "127.0.0.1", "port": 0, **web}
        document = {"web": table, "opponent": opponent or {}, "remote": remote or {}}
        self.config = parse_config(document, "test.toml")
        self.sim = Simulation(self.config, state_dir)
        self.web: WebServer = serve_daemon(
            self.sim.daemon, self.config.web, self.sim.clock, self.sim
        )
        self.host, self.port = self.web.address

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
        """Pair as a browser does, pressing the mode button on the grid."""
        status, asked = self.post("/api/pair", {})
        assert status == 202, asked
        self.act("press")
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
