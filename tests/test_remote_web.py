"""A paired browser invites a friend and revokes the invitation
(``POST /api/remote/invite``, ``POST /api/remote/revoke``); the link it gets
reaches the board through a real Mosquitto."""

from __future__ import annotations

from pathlib import Path

from controller.remote.client import RemoteClient
from controller.remote.link import parse_link
from tests.broker import Mosquitto
from tests.test_remote_seat import pump
from tests.webclient import Table


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
