"""The internet's way, for real: a Mosquitto whose listeners speak TLS
(mqtts:// for the board and `popref play`, wss:// for the remote page, which
a static https server serves as `popref remote-page` wrote it), with a
certificate authority of the test's own (trustme), as docs/remote.md's
internet configuration has one from Let's Encrypt. A certificate nobody
trusts, and a TLS listener reached without TLS, are said as what they are."""

from __future__ import annotations

import functools
import http.server
import logging
import os
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import parse_config
from controller.simulator.simulation import Simulation
from controller.web.api import RULES
from controller.web.remote_page import write_page
from engine.colour import Colour
from tests.broker import MISSING, MOSQUITTO, Mosquitto, Tls
from tests.browser import By, needs_chromium, start, text, wait
from tests.test_remote_page import Running, tap
from tests.test_remote_play import finish, first_link, play_briefly, play_link, simulate
from tests.test_remote_seat import WAIT
from tests.webclient import Table

__all__ = ["finish"]  # a fixture, used by name

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason=MISSING)

UNTRUSTED = "its certificate is not trusted by this machine's certificate authorities"


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Tls:
    return Tls.make(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def broker(tmp_path: Path, tls: Tls) -> Iterator[Mosquitto]:
    served = Mosquitto(tmp_path, tls=tls)
    served.start()
    try:
        yield served
    finally:
        served.stop()


@pytest.fixture
def page(broker: Mosquitto, tls: Tls, tmp_path: Path) -> Iterator[str]:
    """The remote page as `popref remote-page` writes it, served over https
    by the standard library's static server (as nginx or Caddy would on the
    broker's host: docs/remote.md says why not Mosquitto's own ``http_dir``
    over TLS); its address."""
    files = tmp_path / "page"
    write_page(files, broker.ws_url, RULES)
    handler = functools.partial(_Quiet, directory=str(files))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls.cert, tls.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # each file's line on standard error says nothing to a test


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch, tls: Tls) -> Tls:
    """This machine trusts the test's authority, as every machine trusts a
    public one: OpenSSL's default store, for this process and its children."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls.ca))
    return tls


def test_a_whole_game_through_a_tls_broker_with_popref_play(
    broker: Mosquitto, trusting: Tls, tmp_path: Path, finish: list[subprocess.Popen[str]]
) -> None:
    assert broker.url.startswith("mqtts://")
    script = "\n".join(["drop 1", "wait 5000", "drop 2"] * 3 + ["drop 1", ""])
    board = simulate(broker, tmp_path / "state", script)
    finish.append(board)
    friend = play_link(first_link(board), finish)
    said, complaints = friend.communicate("2\n2\n2\n", timeout=3 * 5 + WAIT)
    assert friend.returncode == 0, complaints
    assert said.count("\n") == 3
    board.wait(timeout=WAIT)
    assert board.returncode == 0
    assert board.stdout is not None and '"result": "red"' in board.stdout.read().splitlines()[-1]


def test_a_certificate_nobody_here_trusts_is_said_by_popref_play(
    broker: Mosquitto, tls: Tls, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = parse_config({"remote": {"broker": broker.url, "ca_file": str(tls.ca)}}, "test.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    link = sim.links[-1]
    try:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        done = play_briefly(link, 2, env={**os.environ, "SSL_CERT_FILE": os.devnull})
    finally:
        sim.close()
    assert done.returncode == 2
    said = "popref play: no state from the board within 2 s; the broker at "
    assert done.stderr.startswith(f"{said}{broker.url}: {UNTRUSTED} (")
    assert done.stderr.count("\n") == 1


def test_the_board_trusts_its_ca_file_and_says_why_it_cannot_connect_without_it(
    broker: Mosquitto, mosquitto: Mosquitto, tls: Tls, tmp_path: Path
) -> None:
    heard = _Heard()
    logging.getLogger("popref").addHandler(heard)
    said = {
        "untrusted": UNTRUSTED,
        "plain": "it closed the connection before answering (is it a TLS listener, for an mqtts://",
        "no-tls": "it reset the connection (is it a listener without TLS, given as mqtts://",
    }
    try:
        for remote, state in (
            ({"broker": broker.url}, "untrusted"),
            ({"broker": broker.url.replace("mqtts://", "mqtt://")}, "plain"),
            ({"broker": mosquitto.url.replace("mqtt://", "mqtts://")}, "no-tls"),
            ({"broker": broker.url, "ca_file": str(tls.ca)}, "trusted"),
        ):
            config = parse_config({"remote": remote}, "test.toml")
            sim = Simulation(config, tmp_path / state, remote=Colour.YELLOW)
            assert sim.daemon.remote is not None
            connection = sim.daemon.remote.connection
            try:
                if state == "trusted":
                    assert connection.connected.wait(WAIT), connection.trouble
                else:
                    line = f"The broker at {remote['broker']}: {said[state]}"
                    assert heard.wait(line), (line, heard.lines)
                    assert (connection.trouble or "").startswith(said[state])
            finally:
                sim.close()
    finally:
        logging.getLogger("popref").removeHandler(heard)


class _Heard(logging.Handler):
    """The lines logged, from any thread (paho's logs the broker's trouble);
    :meth:`wait` returns once one begins with the words asked for."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self._new = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        with self._new:
            self.lines.append(record.getMessage())
            self._new.notify_all()

    def wait(self, start: str) -> bool:
        with self._new:
            return self._new.wait_for(
                lambda: any(line.startswith(start) for line in self.lines), WAIT
            )


@pytest.fixture
def phone(tmp_path: Path, tls: Tls) -> Iterator[Any]:
    """A phone's browser that trusts the broker's certificate (as phones
    trust a public authority's), and nothing else."""
    driver = start(tmp_path / "profile", "en", trusting=tls.spki)
    driver.set_window_size(390, 844)
    try:
        yield driver
    finally:
        driver.quit()


@needs_chromium
def test_a_friend_plays_over_https_and_wss_from_a_phone(
    phone: Any, broker: Mosquitto, page: str, tls: Tls, tmp_path: Path
) -> None:
    remote = {
        "broker": broker.url,
        "web_broker": broker.ws_url,
        "page": page,
        "ca_file": str(tls.ca),
    }
    table = Table(tmp_path / "state", remote=remote)
    running = Running(table.sim)
    try:
        status, answer = table.post("/api/remote/invite", {"colour": "yellow"}, table.pair())
        assert status == 202, answer
        link: str = answer["link"]
        assert link.startswith(page + "#"), link
        phone.get(link)
        wait(phone, lambda d: text(d, "link") == "live", "the broker's link over wss://")
        assert phone.execute_script("return window.isSecureContext") is True
        with table.sim.lock:
            table.act("drop 4")
        wait(phone, lambda d: text(d, "turn") == "Your turn: tap a column.", "the friend's turn")
        tap(phone, "3")
        wait(phone, lambda d: "Your move 3 waits" in text(d, "waiting"), "the move waiting")
        with table.sim.lock:
            assert table.sim.daemon.state()["remote"] == "3"
            table.act("drop 3")
        wait(phone, lambda d: text(d, "moves") == "4 3", "the move made, on the page")
        assert not phone.find_element(By.ID, "waiting").is_displayed()
    finally:
        running.close()
        table.close()
