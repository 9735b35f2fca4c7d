"""The web server: the standard library's threading HTTP server on threads
of its own beside the daemon's loop (docs/web.md says why this stack).

The loop publishes each new state into the :class:`StateHub` and pairing
grants into :class:`Pairing`; the page's commands go back through
``controls.submit``, which queues them for the loop and wakes it.

>>> import tempfile, pathlib
>>> from controller.store.archive import GameArchive
>>> from controller.daemon.config import WebConfig
>>> from hardware.clock import monotonic
>>> class Nobody:
...     def submit(self, command: object, reply: object = None) -> None: ...
>>> web = WebServer(WebConfig(host="127.0.0.1", port=0), Nobody(),
...                 GameArchive(pathlib.Path(tempfile.mkdtemp())), clock=monotonic)
>>> web.start(); web.url.startswith("http://127.0.0.1:")
True
>>> web.close()
"""

from __future__ import annotations

import importlib.resources
import logging
import socket
import threading
import time
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from controller.daemon.config import WebConfig
from controller.referee.commands import Command
from controller.referee.verdict import Verdict
from controller.store.archive import GameArchive
from controller.web.api import Handler
from controller.web.hub import StateHub
from controller.web.pairing import Pairing
from hardware.clock import Clock

if TYPE_CHECKING:
    from controller.daemon.loop import Daemon
    from controller.remote.host import RemoteHost

log = logging.getLogger("popref")

STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/strings.js": ("strings.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
    "/icon.svg": ("icon.svg", "image/svg+xml"),
}


class Controls(Protocol):
    """Where the page's commands go: the daemon (``Daemon.submit``), which
    calls ``reply`` with the verdict once the command is durable."""

    def submit(self, command: Command, reply: Callable[[Verdict], None] | None = None) -> None: ...


class WebError(RuntimeError):
    """The server cannot listen; the message is one line for the user."""


SPARE_CONNECTIONS = 16  # short requests beside the event streams


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a stuck page never holds the daemon's exit
    block_on_close = False
    web: WebServer
    connections: threading.BoundedSemaphore  # one thread per connection, capped

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.connections.acquire(blocking=False):
            # a flood of connections costs no threads: the excess is closed at once
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.connections.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()

    def server_bind(self) -> None:
        if self.address_family == socket.AF_INET6:
            # "::" serves IPv4 too, as a user who typed it means
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


class _Server6(_Server):
    address_family = socket.AF_INET6


class WebServer:
    """The page and its API for one daemon."""

    def __init__(
        self,
        config: WebConfig,
        controls: Controls,
        archive: GameArchive,
        *,
        clock: Clock,
        wall: Callable[[], float] = time.time,
        tokens: Path | None = None,
        remote: RemoteHost | None = None,
    ) -> None:
        self.config = config
        self.controls = controls
        self.remote = remote  # makes invitations and their links ([remote])
        self.archive = archive
        self.hub = StateHub(config.max_clients)
        self.pairing = Pairing(
            clock=clock, wall=wall, days=config.pair_days, fixed_token=config.token, path=tokens
        )
        files = importlib.resources.files("controller.web") / "static"
        self.static = {
            path: (kind, (files / name).read_bytes()) for path, (name, kind) in STATIC.items()
        }
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def publish(self, state: dict[str, Any]) -> None:
        """The daemon's ``on_state``."""
        self.hub.publish(state)

    def paired(self) -> None:
        """The daemon's ``on_paired``."""
        self.pairing.granted()

    def start(self) -> None:
        """Listen and serve on a thread of its own; raises :class:`WebError`."""
        host, port = self.config.host, self.config.port
        server_class = _Server6 if ":" in host else _Server
        try:
            self._server = server_class((host, port), Handler)
        except OSError as error:
            raise WebError(
                f"[web] cannot listen on {host} port {port}: {error.strerror}; "
                "choose another port, or set [web] enabled = false"
            ) from None
        self._server.web = self
        self._server.connections = threading.BoundedSemaphore(
            self.config.max_clients + SPARE_CONNECTIONS
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            # how soon close() is heard (Ctrl-C waits for it); four wake-ups a
            # second cost nothing measurable
            kwargs={"poll_interval": 0.25},
            name="popref-web",
            daemon=True,
        )
        self._thread.start()
        log.info("The live board is at %s.", self.url)

    @property
    def address(self) -> tuple[str, int]:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"

    def close(self) -> None:
        self.hub.close()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def serve_daemon(
    daemon: Daemon, config: WebConfig, clock: Clock, controls: Controls | None = None
) -> WebServer:
    """A started web server for ``daemon``, wired to its loop (before
    ``daemon.open()``, so the first state reaches it). ``controls`` defaults
    to the daemon itself."""
    web = WebServer(
        config,
        controls if controls is not None else daemon,
        daemon.archive,
        clock=clock,
        tokens=daemon.state_dir / "web-tokens.json",
        remote=daemon.remote,
    )
    daemon.on_state = web.publish
    daemon.on_paired = web.paired
    web.publish(daemon.state())
    web.start()
    if daemon.remote is not None:
        daemon.remote.serving(web.address)
    return web
