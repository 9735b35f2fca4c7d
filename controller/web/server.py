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
...                 GameArchive(pathlib.Path(tempfile.mkdtemp())), columns=7, clock=monotonic)
>>> web.start(); web.url.startswith("http://127.0.0.1:")
True
>>> web.close()
"""

from __future__ import annotations

import importlib.resources
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.daemon.config import WebConfig
from controller.remote.link import page_address, site_address
from controller.store.archive import GameArchive
from controller.web.api import Handler
from controller.web.connections import ADMIT_WAIT, Connection, Connections, address_key
from controller.web.exchange import Controls, Site
from controller.web.hosts import Hosts
from controller.web.hub import StateHub
from controller.web.pairing import Pairing
from controller.web.remote_page import FILES
from hardware.clock import Clock, monotonic

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
    **FILES,  # the remote page's (controller.web.remote_page)
}


class WebError(RuntimeError):
    """The server cannot listen; the message is one line for the user, for
    an address from the configuration's ``[web]``. ``host``, ``port`` and
    ``reason`` (the system's words) let a caller that took the address from
    elsewhere (``popref simulate --web``) say it its own way."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        super().__init__(
            f"[web] cannot listen on {host} port {port}: {reason}; "
            "choose another port, or set [web] enabled = false"
        )
        self.host = host
        self.port = port
        self.reason = reason


SPARE_CONNECTIONS = 16  # short requests beside the event streams
CLOSE_SECONDS = 5.0  # what closing waits for the connections' threads to end
BACKLOG = 128  # connections waiting to be taken: a burst waits rather than being refused


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a stuck page never holds the daemon's exit
    block_on_close = False
    request_queue_size = BACKLOG
    web: Site

    def process_request(self, request: Any, client_address: Any) -> None:
        connection = Connection(request, self.web.deadlines, address_key(client_address))
        if not self.web.places.admit(connection, ADMIT_WAIT):
            # every place is answering a client that reads: closed, costing no thread
            super().shutdown_request(request)
            return
        try:
            # the handler takes the Connection as its request (Handler.setup)
            super().process_request(connection, client_address)  # type: ignore[arg-type]
        except BaseException:
            self.shutdown_request(connection)
            raise

    def shutdown_request(self, request: Any) -> None:
        request.linger()
        self.web.places.closed(request)
        self.close_request(request.sock)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line in the log, never a traceback: a client that goes away
        mid-request is no fault of ours."""
        error = sys.exc_info()[1]
        client = client_address[0] if client_address else "?"
        if isinstance(error, OSError):
            log.debug("web: %s: the connection ended: %s", client, error)
        else:
            log.warning("web: %s: %s: %s", client, type(error).__name__, error)

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
        columns: int,
        clock: Clock,
        deadlines: Clock = monotonic,
        wall: Callable[[], float] = time.time,
        tokens: Path | None = None,
        remote: RemoteHost | None = None,
    ) -> None:
        self.config = config
        self.controls = controls
        self.remote = remote  # makes invitations and their links ([remote])
        self.archive = archive
        self.columns = columns  # the board's, for pairing codes
        self.deadlines = deadlines  # the clock requests and answers are timed on
        self.hosts = Hosts(config.hosts)
        self.hub = StateHub(config.max_clients)
        # one thread a connection, capped (controller.web.connections)
        self.places = Connections(config.max_clients + SPARE_CONNECTIONS)
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
        self.pairing.observe(bool(state.get("pairing")))

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
            raise WebError(host, port, error.strerror or str(error)) from None
        site: Site = self  # what each request reads of the server: mypy holds it to Site
        self._server.web = site
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
    def remote_page(self) -> str:
        """The remote page's address for links: the remote seat's choice
        (``[remote] page``, a broker's) when there is one, else this server's."""
        if self.remote is not None:
            return self.remote.page
        return page_address("", self.address, None, socket.gethostname())

    @property
    def url(self) -> str:
        """The page's address as a person opens it: listening on every
        address, the machine's ``.local`` name, not ``0.0.0.0``."""
        return f"{site_address(*self.address, socket.gethostname())}/"

    def close(self) -> None:
        self.hub.close()
        if self._server is not None:
            self._server.shutdown()
            if not self.places.end_all(timeout=CLOSE_SECONDS):
                log.debug("web: connections still ending after %s s", CLOSE_SECONDS)
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def serve_daemon(
    daemon: Daemon,
    config: WebConfig,
    clock: Clock,
    controls: Controls | None = None,
    deadlines: Clock = monotonic,
) -> WebServer:
    """A started web server for ``daemon``, wired to its loop (before
    ``daemon.open()``, so the first state reaches it). ``controls`` defaults
    to the daemon itself; ``deadlines`` times requests (tests inject one)."""
    web = WebServer(
        config,
        controls if controls is not None else daemon,
        daemon.archive,
        columns=daemon.referee.table.columns,
        clock=clock,
        deadlines=deadlines,
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
