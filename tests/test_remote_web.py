"""A paired browser invites a friend and revokes the invitation
(``POST /api/remote/invite``, ``POST /api/remote/revoke``); the link it gets
reaches the board through a real Mosquitto."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.i18n.text import LANGUAGES
from controller.remote.client import RemoteClient
from controller.remote.link import parse_link
from tests.broker import Mosquitto
from tests.test_remote_seat import pump
from tests.webclient import Table

POPREF = [sys.executable, "-m", "controller.cli"]


def test_a_paired_browser_invites_a_friend_and_revokes_it(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    table = Table(tmp_path / "state", remote={"broker": mosquitto.url})
    try:
        status, refused = table.post("/api/remote/invite", {"colour": "yellow"})
        assert status == 403 and "not paired" in refused["error"]
        token = table.pair()
        status, answer = table.post("/api/remote/invite", {"colour": "purple"}, token)
        assert status == 400 and answer["error"] == 'colour must be "red" or "yellow"'
        status, answer = table.post("/api/remote/invite", {"colour": "yellow"}, token)
        assert status == 202 and answer["said"] == ["A friend is invited to play Yellow."]
        link = parse_link(answer["link"])
        assert answer["link"].startswith(f"http://127.0.0.1:{table.port}/remote#")
        assert link.broker == mosquitto.url + "" and link.colour.value == "yellow"
        assert link.game not in str(table.get_json("/api/state"))  # never in the public state
        friend = RemoteClient(link)
        friend.start()
        try:
            assert pump(table.sim, friend, lambda: friend.state is not None)
            status, answer = table.post("/api/remote/revoke", {}, token)
            assert status == 202
            assert answer["said"] == [
                "The invitation to play Yellow was revoked; its link reaches nothing now."
            ]
            assert pump(
                table.sim, friend, lambda: (friend.state or {}).get("invitation") == "ended"
            )
        finally:
            friend.close()
        assert table.get_json("/api/state")["remote_colour"] is None
    finally:
        table.close()


def test_without_a_broker_an_invitation_says_how_to_configure_one(table: Table) -> None:
    token = table.pair()
    status, answer = table.post("/api/remote/invite", {"colour": "red"}, token)
    assert status == 409
    assert answer["error"].startswith("No broker is configured: set [remote] broker")


def test_the_remote_page_may_reach_the_configured_browsers_broker_and_no_other(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    remote = {"broker": mosquitto.url, "web_broker": mosquitto.ws_url}
    table = Table(tmp_path / "state", remote=remote)
    try:
        status, headers, page = table.request("GET", "/remote")
        assert status == 200 and b"remote.js" in page
        policy = headers["Content-Security-Policy"]
        assert f"connect-src 'self' {mosquitto.ws_url};" in policy
        assert "script-src 'self';" in policy and "*" not in policy
        # every other answer keeps the page's own policy
        _, headers, _ = table.request("GET", "/")
        assert "connect-src 'self';" in headers["Content-Security-Policy"]
        # the page's sentences with the catalog's, for the board's own sentences
        catalog = table.get_json("/api/strings?lang=fi&messages=1")
        assert catalog["messages"]["{colour} wins."] == "{colour} voittaa."
        assert "messages" not in table.get_json("/api/strings?lang=fi")
    finally:
        table.close()


def test_a_paired_page_gets_this_games_link_and_qr_code_again(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    table = Table(tmp_path / "state", remote={"broker": mosquitto.url})
    try:
        token = table.pair()
        assert table.request("GET", "/api/remote")[0] == 403
        nothing = {"colour": None, "link": None, "qr": None, "broker": True, "same_link": False}
        assert table.get_json("/api/remote", token) == nothing
        status, invited = table.post("/api/remote/invite", {"colour": "red"}, token)
        assert status == 202 and invited["qr"].startswith("<svg")
        again = table.get_json("/api/remote", token)
        assert again["link"] == invited["link"] and again["colour"] == "red"
    finally:
        table.close()


def write_remote_page(page: Path, web_broker: str) -> subprocess.CompletedProcess[str]:
    command = [*POPREF, "remote-page", str(page), "--web-broker", web_broker]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_remote_page_writes_the_page_for_a_brokers_static_server(tmp_path: Path) -> None:
    page = tmp_path / "page"
    done = write_remote_page(page, "wss://broker.example.org:8081")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    index = (page / "index.html").read_text()
    meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', index)
    assert meta and "connect-src 'self' wss://broker.example.org:8081;" in meta[1]
    assert "frame-ancestors" not in meta[1]  # a meta policy cannot say it
    for name in ("remote.js", "protocol.js", "board.js", "strings.js", "rules.json"):
        assert (page / name).is_file(), name
    for license in ("vendor/mqtt/LICENSE.md", "vendor/noble-hashes/LICENSE"):
        assert (page / license).is_file(), license
    catalog = json.loads((page / "strings" / "cs.json").read_text())
    assert catalog["language"] == "cs" and catalog["messages"]
    assert set(json.loads((page / "strings" / "index.json").read_text())["languages"]) == set(
        LANGUAGES
    )


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ([], "no broker for browsers: set [remote] web_broker"),
        (["--web-broker", "http://x"], "--web-broker: 'http://x' is not a broker address"),
    ],
)
def test_remote_page_says_what_is_missing_in_one_line(
    tmp_path: Path, arguments: list[str], said: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    command = [*POPREF, "remote-page", str(tmp_path / "page"), "--config", str(config)]
    done = subprocess.run(command + arguments, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(f"popref remote-page: {said}") and done.stderr.count("\n") == 1


def test_remote_page_says_a_page_without_tls_is_not_for_phones(tmp_path: Path) -> None:
    page = tmp_path / "page"
    done = write_remote_page(page, "ws://127.0.0.1:9001")
    assert done.returncode == 0 and (page / "index.html").is_file()
    assert done.stderr.startswith("popref remote-page: note: ws://127.0.0.1:9001 has no TLS")
    assert done.stderr.count("\n") == 1
