"""The web view without a browser: the API, the event stream, the archive,
pairing and its expiry, the controls through the referee, and attempts to
reach files outside the archive."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.daemon.config import WebConfig, parse_config
from controller.referee.commands import NewGameAsked, PairingEnded, PairingRequested, RulesChosen
from controller.referee.core import Referee
from controller.referee.core import Table as RefereeTable
from controller.referee.view import display
from controller.simulator.simulation import Simulation
from controller.store.eventcodec import CodecError, decode, encode
from controller.store.journal import Journal
from controller.store.persist import restore, snapshot
from controller.web.hub import StateHub
from controller.web.pairing import PENDING, Busy, Pairing
from controller.web.server import SPARE_CONNECTIONS
from hardware.clock import FakeClock
from hardware.display import ColumnLight, Lamp
from hardware.errors import ConfigError
from hardware.events import ButtonPressed
from tests.webclient import LOOKED, WIN, Stream, Table

RUN = [sys.executable, "-m", "controller.cli", "run"]
SIMULATE = [sys.executable, "-m", "controller.cli", "simulate"]


# -- the state ---------------------------------------------------------------------------


def test_state_is_what_simulate_json_prints(
    table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table.act("drop 4", "drop 3")
    state = table.get_json("/api/state")
    assert state == {k: v for k, v in table.sim.state("x").items() if k != "action"}
    script = tmp_path / "game.txt"
    script.write_text("drop 4\ndrop 3\n")
    assert main(["simulate", "--script", str(script), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert printed.pop("action") == "drop 3"
    assert printed == state
    assert state["moves"] == ["4", "3"] and state["to_move"] == "red"
    assert state["lights"] == ["drop"] * 7 and state["colours"] == ["red"] * 7


def test_the_winning_line_and_the_turn_reach_the_page(table: Table) -> None:
    table.act(*WIN)
    state = table.get_json("/api/state")
    assert state["result"] == "red"
    assert state["winning"] == [[1, 1], [1, 2], [1, 3], [1, 4]]
    assert state["lights"][0] == "winning" and state["turn"] == "red"


def test_a_fault_and_its_repair_step_reach_the_page(table: Table) -> None:
    table.act("drop 4", "pop 4")  # Classic has no pops: the disc must go back
    state = table.get_json("/api/state")
    assert state["fault"] is not None and "Drop a Red disc into column 4" in state["fault"]
    assert state["lights"][3] == "chosen" and state["colours"][3] == "red"
    table.act("drop 4")
    state = table.get_json("/api/state")
    assert state["fault"] is None and state["moves"] == ["4"] and state["to_move"] == "yellow"


# -- the event stream ---------------------------------------------------------------------


def test_a_client_gets_the_current_state_at_once_and_every_change(table: Table) -> None:
    table.act("drop 4")
    stream = Stream(table)
    try:
        assert stream.status == 200
        assert stream.next()["moves"] == ["4"]
        table.act("drop 5")
        assert stream.until(lambda s: s["moves"] == ["4", "5"])["to_move"] == "red"
    finally:
        stream.close()
    # a reconnecting client gets the state at once, without waiting for a change
    again = Stream(table)
    try:
        assert again.next()["moves"] == ["4", "5"]
    finally:
        again.close()


def test_many_clients_follow_the_same_game(table: Table) -> None:
    streams = [Stream(table) for _ in range(20)]
    try:
        for stream in streams:
            assert stream.next()["moves"] == []
        table.act("drop 2")
        for stream in streams:
            # the move as the disc passes the beam, then the disc landed
            assert stream.until(lambda s: s["grid"][-1] == ".R.....")["moves"] == ["2"]
    finally:
        for stream in streams:
            stream.close()


def test_a_client_that_stops_reading_delays_nobody(table: Table) -> None:
    stuck = socket.create_connection((table.host, table.port))
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.sendall(f"GET /api/events HTTP/1.1\r\nHost: {table.authority}\r\n\r\n".encode())
    reader = Stream(table)
    try:
        reader.next()
        big = {"status": "x" * 50_000}
        for n in range(200):  # far more than the stuck client's buffers hold
            table.web.hub.publish({**big, "n": n})
        assert reader.until(lambda s: s.get("n") == 199)["n"] == 199
        table.act("drop 6")
        assert reader.until(lambda s: s.get("moves") == ["6"])
    finally:
        stuck.close()
        reader.close()


def test_a_stream_past_the_cap_takes_the_oldests_place(tmp_path: Path) -> None:
    table = Table(tmp_path, max_clients=2)
    streams = [Stream(table), Stream(table)]
    try:
        for stream in streams:
            stream.next()
        third = Stream(table)  # never a 503: the oldest gives its place up
        streams.append(third)
        assert third.status == 200 and third.next()["moves"] == []
        with pytest.raises(EOFError):
            streams[0].next()
        table.act("drop 6")
        for stream in streams[1:]:
            assert stream.until(lambda s: s.get("moves") == ["6"])
        assert table.web.hub.clients == 2
    finally:
        for stream in streams:
            stream.close()
        table.close()


class Follower:
    """An event stream as the hub sees it."""

    def __init__(self, address: str | None = None, unsent: int = 0) -> None:
        self.address = address
        self.bytes_unsent = unsent
        self.evicted = False

    def evict(self) -> None:
        self.evicted = True

    def unsent(self) -> int:
        return self.bytes_unsent


def test_the_hub_never_waits_for_a_client() -> None:
    hub = StateHub(max_clients=1)
    first, second = Follower(), Follower()
    assert hub.join(first) and hub.join(second)  # the second took the first's place
    assert first.evicted and not hub.follows(first) and hub.clients == 1
    assert hub.wait(0, timeout=60.0, follower=first) == (0, None)  # it stops at once
    hub.publish({"a": 1})
    hub.publish({"a": 2})
    assert hub.wait(0, timeout=0.0) == (2, b'{"a": 2}')  # a slow client skips to the newest
    hub.close()
    assert hub.wait(2, timeout=60.0) == (2, None)  # close wakes waiting streams
    assert not hub.join(Follower())


def test_the_stream_that_gives_way_is_the_one_least_worth_keeping() -> None:
    hub = StateHub(max_clients=4, per_address=2)
    # one address's streams past its cap: its own oldest gives way, nobody else's
    other, a1, a2 = Follower("10.0.0.2"), Follower("10.0.0.9"), Follower("10.0.0.9")
    for follower in (other, a1, a2):
        assert hub.join(follower)
    a3 = Follower("10.0.0.9")
    assert hub.join(a3) and a1.evicted and not (other.evicted or a2.evicted)
    loop1, loop2 = Follower(), Follower(unsent=1)
    assert hub.join(loop1) and hub.clients == 4 and not other.evicted
    # every place taken, no one behind: the oldest of the address holding the most
    assert hub.join(loop2) and a2.evicted and not other.evicted
    # one whose client has not taken all it was sent goes first
    assert hub.join(Follower()) and loop2.evicted
    # each address holding one (loopback, None, is no one's: each counts alone): the oldest
    assert hub.join(Follower()) and other.evicted
    assert hub.join(Follower()) and a3.evicted and not loop1.evicted
    assert hub.clients == 4


# -- the archive --------------------------------------------------------------------------


def test_finished_games_are_listed_replayed_and_downloaded(table: Table) -> None:
    assert table.get_json("/api/games") == []
    table.act(*WIN)
    games = table.get_json("/api/games")
    assert [(g["number"], g["rules"], g["result"], g["moves"]) for g in games] == [
        (1, "classic", "red", 7)
    ]
    status, headers, body = table.request("GET", "/api/games/1")
    assert status == 200 and body.decode() == table.sim.daemon.archive.read(1)
    assert headers["Content-Disposition"] == 'attachment; filename="popref-game-1.txt"'
    replay = table.get_json("/api/games/1/replay")
    assert replay["moves"] == ["1", "2", "1", "2", "1", "2", "1"]
    assert len(replay["positions"]) == 8
    assert replay["positions"][0] == ["......."] * 6
    assert replay["positions"][-1] == table.get_json("/api/state")["board"]
    status, _, body = table.request("GET", "/api/games/2")
    assert status == 404 and b"no game 2" in body


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/..%2F..%2Fjournal",
        "/api/games/../journal",
        "/api/games/1/../../journal",
        "/api/games/0001-x.txt",
        "/api/games/%2e%2e/%2e%2e/etc/passwd",
        "/../pyproject.toml",
        "/static/../../config.py",
        "/app.js/../../../journal",
        "//etc/passwd",
        "/journal",
        "/web-tokens.json",
    ],
)
def test_nothing_outside_the_archive_and_the_page_is_served(table: Table, path: str) -> None:
    table.act(*WIN)
    status, _, body = table.request("GET", path)
    assert status == 404, body
    assert b"snapshot" not in body and b"root:" not in body and b"Rules:" not in body


# -- pairing and control ------------------------------------------------------------------


def test_an_unpaired_control_gets_403_and_says_how_to_pair(table: Table) -> None:
    for path, body in (("/api/rules", {"rules": "pop10"}), ("/api/new", {"confirm": True})):
        status, answer = table.post(path, body)
        assert status == 403 and "mode button" in answer["error"]
        status, answer = table.post(path, body, token="not-a-token")
        assert status == 403
    assert table.get_json("/api/state")["next_rules"] == "classic"
    assert table.get_json("/api/session") == {"paired": False, "watch": True}


def test_pairing_with_the_mode_button_grants_a_token(table: Table) -> None:
    status, asked = table.post("/api/pair", {})
    assert status == 202 and asked["window"] == 30 and asked["look"] == 2
    state = table.get_json("/api/state")
    # the board blinks the columns the page was given to show
    assert state["pairing"] and 2 <= len(asked["code"]) <= 5
    assert state["lights"] == ["chosen" if c in asked["code"] else "off" for c in range(1, 8)]
    assert table.post("/api/pair/claim", {"request": asked["request"]}) == (202, {"pending": True})
    assert table.post("/api/pair", {})[0] == 409  # one browser pairs at a time
    table.act(LOOKED, "press")
    status, claimed = table.post("/api/pair/claim", {"request": asked["request"]})
    assert status == 200
    token = claimed["token"]
    state = table.get_json("/api/state")
    # the press paired the browser instead of choosing the next rules
    assert not state["pairing"] and state["next_rules"] == "classic"
    assert state["lights"] == ["drop"] * 7
    assert table.get_json("/api/session", token=token)["paired"]
    assert table.post("/api/pair/claim", {"request": asked["request"]})[0] == 410  # only once
    status, _ = table.post("/api/rules", {"rules": "pop10"}, token=token)
    assert status == 202
    state = table.get_json("/api/state")
    assert state["rules"] == "pop10" and state["next_rules"] == "pop10"


def test_a_token_goes_in_the_header_not_the_url(table: Table) -> None:
    token = table.pair()
    status, _, _ = table.request("POST", f"/api/rules?token={token}", {"rules": "five"})
    assert status == 403
    status, _, _ = table.request(
        "POST", "/api/rules", {"rules": "five"}, headers={"Cookie": f"token={token}"}
    )
    assert status == 403


def test_a_pairing_request_runs_out_after_30_seconds(table: Table) -> None:
    status, asked = table.post("/api/pair", {})
    assert status == 202
    table.act("wait 30500")
    assert not table.get_json("/api/state")["pairing"]  # the board stopped blinking
    table.act("press")  # too late: the press does its usual job
    state = table.get_json("/api/state")
    assert state["next_rules"] == "popout"
    table.act("wait 5000")
    assert table.post("/api/pair/claim", {"request": asked["request"]})[0] == 410


def test_a_new_game_from_the_page_asks_before_abandoning_one(table: Table) -> None:
    token = table.pair()
    table.act("drop 4", "drop 4")
    status, answer = table.post("/api/new", {}, token=token)
    assert status == 409 and answer["confirm"] is True
    assert table.get_json("/api/state")["moves"] == ["4", "4"]
    status, _ = table.post("/api/new", {"confirm": True}, token=token)
    assert status == 202
    state = table.get_json("/api/state")
    assert state["game_number"] == 2 and state["moves"] == []
    assert [g["moves"] for g in table.get_json("/api/games")] == [2]  # the abandoned one
    assert state["fault"] is not None  # the grid still holds its discs: empty it


@pytest.mark.parametrize(
    ("path", "body", "status", "said"),
    [
        ("/api/undo", {}, 404, "no such call; docs/web.md lists them"),
        ("/api/new/", {"confirm": True}, 404, "no such call; docs/web.md lists them"),
        ("/api/new", {"confirm": True, "undo": 1}, 400, "unknown field 'undo'; POST /api/new"),
        ("/api/new", {"confirm": "yes"}, 400, "confirm must be true or false"),
        ("/api/hint", {"command": "new"}, 400, "unknown field 'command'; POST /api/hint takes {}"),
        ("/api/rules", {"rules": "pop10", "new": True}, 400, "unknown field 'new'"),
        ("/api/remote/revoke", {"new": True}, 400, "unknown field 'new'; POST /api/remote/revoke"),
        ("/api/remote/invite", {"colour": "red", "confirm": True}, 400, "unknown field 'confirm'"),
        ("/api/remote/new", {}, 404, "no such call; docs/web.md lists them"),
    ],
)
def test_an_unknown_call_or_field_is_refused_and_never_a_new_game(
    table: Table, path: str, body: dict[str, Any], status: int, said: str
) -> None:
    token = table.pair()
    table.act("drop 4", "drop 4")
    before = table.get_json("/api/state")
    answer = table.post(path, body, token=token)
    assert answer[0] == status and answer[1]["error"].startswith(said)
    assert table.get_json("/api/state") == before


def test_page_commands_are_journalled_and_survive_a_restart(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    table = Table(state_dir)
    token = table.pair()
    table.act("drop 3")
    table.post("/api/rules", {"rules": "five"}, token=token)
    table.close()
    journal = Journal(state_dir / "journal")
    kinds = [record.get("e") for record in journal.load().records]
    journal.close()
    assert kinds[1:] == ["pair", "press", "drop", "rules"]
    again = Simulation(parse_config({}, "test"), state_dir)
    try:
        state = again.state("x")
        # the press paired (no rules change); the page chose the next game's rules
        assert state["rules"] == "classic" and state["next_rules"] == "five"
        assert state["moves"] == ["3"] and not state["pairing"]
    finally:
        again.close()
    table = Table(state_dir)  # the paired browser stays paired
    try:
        assert table.get_json("/api/session", token=token)["paired"]
    finally:
        table.close()


def test_a_config_token_controls_without_pairing(tmp_path: Path) -> None:
    secret = "headless-token-0123456789"
    table = Table(tmp_path, token=secret, watch=False)
    try:
        assert table.request("GET", "/api/state")[0] == 403
        assert table.request("GET", "/api/events")[0] == 403
        assert table.request("GET", "/api/games")[0] == 403
        assert table.request("GET", "/")[0] == 200  # the page itself, to pair from
        assert table.get_json("/api/state", token=secret)["rules"] == "classic"
        assert table.post("/api/rules", {"rules": "pop10"}, token=secret)[0] == 202
        stream = Stream(table, token=secret)
        assert stream.next()["rules"] == "pop10"
        stream.close()
    finally:
        table.close()


def test_tokens_expire() -> None:
    clock, wall = FakeClock(), [1000.0]
    pairing = Pairing(clock=clock, wall=lambda: wall[0], days=2)
    request, _ = pairing.request(columns=7)
    assert pairing.claim(request) is PENDING
    with pytest.raises(Busy):
        pairing.request(columns=7)
    assert pairing.granted()
    token = pairing.claim(request)
    assert isinstance(token, str) and pairing.allows(token)
    wall[0] += 2 * 86400 - 1
    assert pairing.allows(token)
    wall[0] += 1
    assert not pairing.allows(token)
    assert not pairing.granted()  # no request waiting: a press grants nothing


def test_the_page_is_served_with_a_strict_policy(table: Table) -> None:
    status, headers, body = table.request("GET", "/")
    assert status == 200 and b"<script" in body
    policy = headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert b"http" not in body  # no CDN, nothing from elsewhere
    for path in ("/app.js", "/strings.js", "/app.css", "/icon.svg"):
        status, _, body = table.request("GET", path)
        assert status == 200 and b"https://" not in body


def test_bad_requests_get_one_clear_answer(table: Table) -> None:
    token = table.pair()
    assert table.post("/api/rules", {"rules": "chess"}, token=token)[0] == 400
    status, _, _ = table.request(
        "POST", "/api/rules", headers={"Content-Length": "999999", "Authorization": "x"}
    )
    assert status == 413
    assert table.request("GET", "/api/nothing")[0] == 404


# -- configuration and the command line ----------------------------------------------------


def test_web_config_defaults_and_checks() -> None:
    assert parse_config({}, "x").web == WebConfig(enabled=False)
    on_a_pi = parse_config({"board": {"backend": "gpio"}}, "x").web
    assert on_a_pi.enabled and on_a_pi.port == 8080 and on_a_pi.host == "0.0.0.0"
    for table, wrong in (
        ({"port": 70000}, "[web] port"),
        ({"host": "my-pi"}, "[web] host"),
        ({"token": "short"}, "[web] token"),
        ({"watch": "yes"}, "[web] watch"),
        ({"colour": 1}, "[web] colour"),
    ):
        with pytest.raises(ConfigError, match=rf"^x: \[web\] {wrong.split()[1]}"):
            parse_config({"web": table}, "x")


def test_simulate_web_needs_host_and_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--script", "-", "--web", "8080"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err
    assert main(["simulate", "--script", "-", "--web", "localhost:8080"]) == 2
    assert "[web] host" in capsys.readouterr().err


# -- the referee's rule and the daemon's loop -----------------------------------------------


def test_the_mode_button_answers_a_pairing_request_within_30_seconds() -> None:
    referee = Referee(RefereeTable(), "classic")
    assert referee.handle(PairingRequested(at=10.0)).changed
    assert display(referee).columns == tuple(ColumnLight(Lamp.CHOSEN) for _ in range(7))
    verdict = referee.handle(ButtonPressed(at=39.9))
    assert verdict.paired and verdict.changed
    assert referee.next_rules == "classic" and referee.pairing_since is None
    referee.handle(PairingRequested(at=50.0))
    late = referee.handle(ButtonPressed(at=80.5))
    assert not late.paired and referee.next_rules == "popout"  # its usual job
    assert referee.handle(PairingEnded(at=80.6)).changed and referee.pairing_since is None
    referee.handle(PairingRequested(at=90.0))
    assert restore(RefereeTable(), snapshot(referee)).pairing_since == 90.0
    referee.restarted()  # a restart forgets the old clock, and the request with it
    assert referee.pairing_since is None


def test_commands_travel_the_journal_codec() -> None:
    for command in (
        RulesChosen("pop10", 1.0),
        NewGameAsked(2.0),
        PairingRequested((2, 5, 6), 3.0),
        PairingEnded(4.0),
    ):
        assert decode(encode(command)) == command
    # a request journalled before codes lights every column
    assert decode({"e": "pair", "at": 1.0}) == PairingRequested((), 1.0)
    for damaged in (
        {"e": "rules", "rules": "chess", "at": 1.0},
        {"e": "pair"},
        {"e": "pair", "code": [5, 2], "at": 1.0},
        {"e": "pair", "code": "25", "at": 1.0},
        {"e": "pair", "code": [0], "at": 1.0},
    ):
        with pytest.raises(CodecError):
            decode(damaged)


def test_popref_run_serves_the_page_and_takes_commands_through_its_loop(
    tmp_path: Path,
) -> None:
    secret = "headless-token-0123456789"
    config = tmp_path / "config.toml"
    config.write_text(f'[web]\nenabled = true\nhost = "127.0.0.1"\nport = 0\ntoken = "{secret}"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "STATE_DIRECTORY")}
    process = subprocess.Popen(
        [*RUN, "--config", str(config), "--state-dir", str(tmp_path / "state")],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        url = ""
        for line in process.stderr:
            if "live board is at" in line:
                url = line.split(" at ", 1)[1].strip().rstrip(".")
                break
        host, port = url.removeprefix("http://").rstrip("/").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", "/api/events")
        events = connection.getresponse()
        first = _event(events)
        assert first["next_rules"] == "classic"
        connection2 = http.client.HTTPConnection(host, int(port), timeout=10)
        connection2.request(
            "POST",
            "/api/rules",
            body=json.dumps({"rules": "popout"}),
            headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
        )
        answer = connection2.getresponse()
        assert answer.status == 202
        # the daemon's loop, asleep in its wait, wakes for the command and
        # answers with the referee's sentence once it is journalled
        assert json.loads(answer.read())["said"] == ["Rules changed to Pop Out."]
        assert _event(events)["rules"] == "popout"
        events.close()
        connection.close()
        connection2.close()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0


def _event(response: http.client.HTTPResponse) -> dict[str, Any]:
    data = b""
    while True:
        line = response.fp.readline()
        assert line, "the stream ended"
        if line.startswith(b"data: "):
            data = line[6:].strip()
        elif line.strip() == b"" and data:
            state: dict[str, Any] = json.loads(data)
            return state


def test_simulate_web_serves_the_scripted_game_until_ctrl_c(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("drop 4\ndrop 5\n")
    process = subprocess.Popen(
        [*SIMULATE, "--script", str(script), "--json", "--web", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a suite started in the background (CI, nohup ... &) has Ctrl-C
        # ignored, and a child inherits that: give it back, as a terminal has it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stderr is not None and process.stdout is not None
        url = ""
        for line in process.stderr:
            if "stays up until Ctrl-C" in line:
                url = line.split("; ", 1)[1].split(" ", 1)[0]
                break
        host, port = url.removeprefix("http://").rstrip("/").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", "/api/state")
        state = json.loads(connection.getresponse().read())
        connection.close()
        assert state["moves"] == ["4", "5"]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            out, _ = process.communicate(timeout=30)  # about 0.3 s
        except subprocess.TimeoutExpired:
            process.kill()  # no simulator left behind by a failing run
            process.communicate()
            raise
    assert process.returncode == 0
    assert json.loads(out.splitlines()[-1])["moves"] == state["moves"]


def test_head_answers_without_a_body_and_never_opens_a_stream(table: Table) -> None:
    status, headers, body = table.request("HEAD", "/")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0
    assert headers["Server"] == "popref"
    assert table.request("HEAD", "/api/events")[0] == 405
    assert table.web.hub.clients == 0


def test_a_flood_of_connections_is_capped_and_the_oldest_sending_gives_way(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, max_clients=1)
    places = table.web.places
    cap = 1 + SPARE_CONNECTIONS
    idle = [socket.create_connection((table.host, table.port)) for _ in range(40)]
    try:
        # one thread each for the newest; the oldest gave their places up
        assert places.wait(open=cap, sending=cap, timeout=10)
        for connection in idle:
            connection.settimeout(10)
        assert [c.recv(1) for c in idle[: 40 - cap]] == [b""] * (40 - cap)
        assert table.request("GET", "/api/state")[0] == 200  # a new client gets in
    finally:
        for connection in idle:
            connection.close()
        table.close()


def test_a_port_in_use_is_one_line_and_status_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "config.toml"
        config.write_text(f'[web]\nenabled = true\nhost = "127.0.0.1"\nport = {port}\n')
        result = subprocess.run(
            [*RUN, "--config", str(config), "--state-dir", str(tmp_path / "state")],
            capture_output=True,
            text=True,
            timeout=30,
            env={k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"},
        )
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("popref run:")]
    assert errors == [
        f"popref run: {config}: [web] cannot listen on 127.0.0.1 port {port}: "
        "Address already in use; choose another port, or set [web] enabled = false"
    ]


def test_simulate_on_a_port_in_use_advises_by_where_the_address_came_from(
    tmp_path: Path,
) -> None:
    """--web on a busy port was told to "set [web] enabled = false", which
    does nothing for an address given with --web."""
    script = tmp_path / "script"
    script.write_text("")
    config = tmp_path / "config.toml"

    def simulate(*args: str) -> list[str]:
        result = subprocess.run(
            [*SIMULATE, "--script", str(script), "--state-dir", str(tmp_path / "s"), *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 2 and result.stdout == ""
        return [line for line in result.stderr.splitlines() if line.startswith("popref ")]

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert simulate("--web", f"127.0.0.1:{port}") == [
            f"popref simulate: --web 127.0.0.1:{port}: cannot listen on 127.0.0.1 port {port}: "
            "Address already in use; choose another port"
        ]
        config.write_text(f'[web]\nenabled = true\nhost = "127.0.0.1"\nport = {port}\n')
        assert simulate("--config", str(config)) == [
            f"popref simulate: [web] cannot listen on 127.0.0.1 port {port}: "
            "Address already in use; choose another port, or set [web] enabled = false"
        ]


def test_linger_ends_quietly_at_a_ctrl_c_however_late_it_lands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from controller.cli import simulate as simulate_cmd

    naps: list[float] = []

    def nap(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 3:  # a Ctrl-C whose handler runs only once a nap ends
            raise KeyboardInterrupt

    simulate_cmd._linger("http://127.0.0.1:1/", nap)
    # short naps: a signal that lands between two never waits for another one
    assert naps == [0.2, 0.2, 0.2]
    assert "stays up until Ctrl-C" in capsys.readouterr().err


def test_a_page_on_every_address_is_logged_at_the_machines_local_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A walk read "The live board is at http://0.0.0.0:8080/", an address no
    phone can open; the remote seat's links already said pi.local."""
    import logging

    from controller.store.archive import GameArchive
    from controller.web.server import WebServer
    from hardware.clock import monotonic

    class Nobody:
        def submit(self, command: object, reply: object = None) -> None: ...

        def join(self, link: object, reply: object = None) -> None: ...

        def leave(self, reply: object = None) -> None: ...

    monkeypatch.setattr(socket, "gethostname", lambda: "popref-pi")
    web = WebServer(
        WebConfig(host="0.0.0.0", port=0),
        Nobody(),
        GameArchive(tmp_path),
        columns=7,
        clock=monotonic,
    )
    with caplog.at_level(logging.INFO, logger="popref"):
        web.start()
    try:
        port = web.address[1]
        assert web.url == f"http://popref-pi.local:{port}/"
        assert f"The live board is at http://popref-pi.local:{port}/." in caplog.messages
    finally:
        web.close()
