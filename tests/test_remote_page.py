"""The remote page in headless Chromium (tests/browser.py) against a real
Mosquitto (tests/broker.py): a friend plays from the invitation link, the
owner invites from a paired page, a share link replays a game with no popref
at all, and the page's HMAC signs docs/remote.md's test vectors."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from PIL import Image

from controller.remote.client import RemoteClient
from controller.remote.link import Link, parse_link
from controller.remote.message import BOARD, Message, body, seal, topics
from controller.remote.presence import Presence
from controller.simulator.simulation import Simulation
from controller.web.api import RULES
from controller.web.page_text import strings
from controller.web.remote_page import write_page
from controller.web.replay import replay
from controller.web.share import MOST_MOVES, share_fragment
from tests.broker import Mosquitto
from tests.browser import By, needs_chromium, pair_page, text, wait
from tests.qrcodes import qr_texts
from tests.test_remote_doc import vectors
from tests.test_remote_seat import WAIT
from tests.webclient import WIN, Table

pytestmark = needs_chromium


class Running:
    """A simulated table in real time, on a thread of its own, so that the
    broker's messages are taken while the test waits on a page (the tests
    act on the grid under the same lock)."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            with self.sim.lock:
                self.sim.wait_real(0.02)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


@pytest.fixture
def static_page(tmp_path: Path) -> Iterator[str]:
    """The page as `popref remote-page` writes it, served by a second
    Mosquitto's static server (its http_dir); the page's own URL."""
    page = tmp_path / "page"
    write_page(page, "ws://127.0.0.1:1", RULES)
    (tmp_path / "static").mkdir()
    broker = Mosquitto(tmp_path / "static", http_dir=page)
    broker.start()
    try:
        yield f"http://127.0.0.1:{broker.ws_port}/"
    finally:
        broker.stop()


@pytest.fixture
def served(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Table]:
    with serving(mosquitto, tmp_path) as table:
        yield table


@contextmanager
def serving(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Table]:
    """A table with a broker for invitations, its page served, in real time."""
    remote = {"broker": mosquitto.url, "web_broker": mosquitto.ws_url}
    table = Table(tmp_path / "state", remote=remote)
    running = Running(table.sim)
    try:
        yield table
    finally:
        running.close()
        table.close()


def invite(table: Table, colour: str = "yellow") -> str:
    status, answer = table.post("/api/remote/invite", {"colour": colour}, table.pair())
    assert status == 202, answer
    link: str = answer["link"]
    return link


def state(table: Table) -> dict[str, Any]:
    with table.sim.lock:
        return table.sim.daemon.state()


def tap(browser: Any, move: str) -> None:
    selector = f".tap[data-move='{move}']"
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, selector).is_enabled(), move)
    browser.find_element(By.CSS_SELECTOR, selector).click()


def test_a_friend_plays_from_the_link(browser: Any, served: Table) -> None:
    link = invite(served)
    browser.get(link)
    wait(browser, lambda d: text(d, "link") == "live", "the broker's link")
    wait(browser, lambda d: text(d, "you") == "You play Yellow.", "the friend's colour")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .cell")) == 42, "a board")
    assert text(browser, "turn") == "Red's turn"
    # the board's sentence for the people at the grid, said as theirs
    status = state(served)["status"].render("en")
    wait(browser, lambda d: text(d, "status") == f"At the grid: {status}", "the grid's status")
    with served.sim.lock:
        served.act("drop 4")
    wait(browser, lambda d: text(d, "turn") == "Your turn: tap a column.", "the friend's turn")
    # each button stands over its column, on a phone's width too
    for width in (390, 1000):
        browser.set_window_size(width, 900)
        cells = browser.find_elements(By.CSS_SELECTOR, "#board .row")[-1].find_elements(
            By.CSS_SELECTOR, ".cell"
        )
        for column, cell in enumerate(cells, start=1):
            button = browser.find_element(By.CSS_SELECTOR, f".tap[data-move='{column}']")
            centre = [e.rect["x"] + e.rect["width"] / 2 for e in (button, cell)]
            assert abs(centre[0] - centre[1]) < 3, (width, column, centre)
    # on the friend's own turn the board's sentence ("waiting for your
    # friend") is not theirs to read
    wait(browser, lambda d: not d.find_element(By.ID, "status").is_displayed(), "no status")
    tap(browser, "5")
    # lit on the grid for a person to make, and said on the page
    wait(browser, lambda d: state(served)["remote"] == "5", "the request on the board")
    assert state(served)["lights"][4] == "computer-drop"
    wait(browser, lambda d: "Your move 5 waits" in text(d, "waiting"), "the move waiting")
    assert "friend" not in browser.find_element(By.ID, "live").text
    with served.sim.lock:
        served.act("drop 5")
    wait(browser, lambda d: text(d, "moves") == "4 5", "the move made")
    assert not browser.find_element(By.ID, "waiting").is_displayed()
    with served.sim.lock:
        served.act("drop 4")
    wait(browser, lambda d: text(d, "turn") == "Your turn: tap a column.", "the friend's turn")
    # a request the board does not take shows its reason (the page only
    # offers the engine's moves: this one is sent as a script would)
    browser.execute_script("tap('p4')")
    wait(browser, lambda d: text(d, "message").startswith("Not taken: "), "the refusal")
    assert "pop" in text(browser, "message")
    assert state(served)["remote"] is None


def test_the_owner_knows_whether_the_friends_page_is_open(
    browser: Any, served: Table, mosquitto: Mosquitto
) -> None:
    """The page says ``here`` as it connects and leaves the broker a will
    saying it is gone: the owner's page tells a friend who closed the page
    (or whose phone slept) from one who is thinking."""
    link = invite(served)
    assert state(served)["friend_here"] is None and state(served)["friend_opened"] is False
    browser.get(link)
    wait(browser, lambda d: state(served)["friend_here"] is True, "the friend's page open")
    assert state(served)["friend_opened"] is True
    browser.get("about:blank")  # the tab goes elsewhere: its connection ends with no goodbye
    wait(browser, lambda d: state(served)["friend_here"] is False, "the friend's page closed")
    browser.get(link)
    wait(browser, lambda d: state(served)["friend_here"] is True, "the friend back")
    # a board started again knows nothing of the page until it says its own
    # presence, which the page answers
    with served.sim.lock:
        assert served.sim.daemon.remote is not None
        served.sim.daemon.remote.friend_page = Presence()
    assert state(served)["friend_here"] is None
    parsed = parse_link(link)
    up = Message(parsed.game, BOARD, 2**40, "presence", body({"up": True, "conn": "0" * 16}))
    board = mqtt.Client(CallbackAPIVersion.VERSION2)
    board.connect("127.0.0.1", mosquitto.port)
    board.loop_start()
    try:
        board.publish(topics(parsed.game).board, seal(parsed.key, up), qos=1).wait_for_publish(5)
    finally:
        board.disconnect()
        board.loop_stop()
    wait(browser, lambda d: state(served)["friend_here"] is True, "the page's answer")
    # connected again (the broker restarted): a new name, and a will naming it
    remote = served.sim.daemon.remote
    said = remote.friend_page.seq
    mosquitto.restart()
    wait(browser, lambda d: remote.friend_page.seq > said, "the page's word on its new connection")
    browser.get("about:blank")
    wait(browser, lambda d: state(served)["friend_here"] is False, "the new connection's will")


def test_the_remote_page_speaks_the_readers_language(finnish_browser: Any, served: Table) -> None:
    browser = finnish_browser
    browser.get(invite(served))
    fi = strings("fi")
    you = fi["you_play"].format(colour=fi["colour_yellow"])
    wait(browser, lambda d: text(d, "you") == you, "the friend's colour in Finnish")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fi"
    # the board's own sentences, sent as message and values, in Finnish too
    status = fi["at_grid"].format(sentence=state(served)["status"].render("fi"))
    wait(browser, lambda d: text(d, "status") == status, "the board's status in Finnish")


def test_the_owner_invites_and_gets_the_link_and_its_qr_code(browser: Any, served: Table) -> None:
    browser.get(served.web.url)
    wait(browser, lambda d: text(d, "link") == "live", "the live link")
    pair_page(browser, served)
    assert text(browser, "invite") == "Invite a friend to play Yellow"
    browser.find_element(By.ID, "invite").click()
    field = browser.find_element(By.ID, "invite-link")
    wait(browser, lambda d: field.get_attribute("value").startswith("http"), "the link")
    link = field.get_attribute("value")
    assert link.startswith(f"http://127.0.0.1:{served.port}/remote#v=1&")
    not_yet = "A friend is invited to play Yellow from afar: the link has not been opened yet."
    wait(browser, lambda d: text(d, "friend") == not_yet, "the friend's seat")
    picture = Image.open(io.BytesIO(browser.find_element(By.ID, "qr").screenshot_as_png))
    assert qr_texts(picture) == [link]
    opener = RemoteClient(parse_link(link), name="friend")  # its hello says it opened the link
    opener.start()
    try:
        wait(browser, lambda d: text(d, "friend") == "A friend plays Yellow from afar.", "opened")
    finally:
        opener.close()
    browser.find_element(By.ID, "copy").click()
    wait(browser, lambda d: text(d, "message") == "Copied.", "the copy")
    # pressed again while the friend holds the seat: the same link, still valid
    wait(browser, lambda d: text(d, "invite") == "Show the invitation link", "the button")
    browser.find_element(By.ID, "invite").click()
    wait(browser, lambda d: field.get_attribute("value") == link, "the same link")
    with served.sim.lock:
        assert served.sim.daemon.remote is not None
        assert served.sim.daemon.remote.current_link() == link
    browser.find_element(By.ID, "revoke").click()
    wait(browser, lambda d: not d.find_element(By.ID, "friend").is_displayed(), "the revoke")
    assert state(served)["remote_colour"] is None
    assert text(browser, "invite") == "Invite a friend to play Yellow"


def test_no_invitation_is_offered_without_a_broker(browser: Any, tmp_path: Path) -> None:
    table = Table(tmp_path / "state")
    running = Running(table.sim)
    try:
        browser.get(table.web.url)
        wait(browser, lambda d: text(d, "link") == "live", "the live link")
        pair_page(browser, table)
        wait(browser, lambda d: d.find_element(By.ID, "level-choice").is_displayed(), "controls")
        assert table.get_json("/api/remote", table.pair())["broker"] is False
        assert not browser.find_element(By.ID, "invite-box").is_displayed()
    finally:
        running.close()
        table.close()


def test_a_share_link_replays_a_game_with_no_server(
    browser: Any, served: Table, static_page: str
) -> None:
    with served.sim.lock:
        served.act(*WIN)
    share = served.get_json("/api/games/1/replay")["share"]
    fragment = share.partition("#")[2]
    # from a broker's own static server: no popref answers there; in a tab
    # that showed another link (only the fragment changes: no new load)
    browser.get(f"{static_page}#v=2")
    wait(browser, lambda d: "version 2" in text(d, "problem"), "the refused link")
    browser.get(f"{static_page}#{fragment}")
    wait(browser, lambda d: text(d, "share-at") == "move 7 of 7", "the replay at its end")
    assert text(browser, "share-result") == "Red won"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#share-board .cell.winning")) == 4
    assert text(browser, "digits") == "1212121"  # the test sets' convention
    browser.find_element(By.ID, "first").click()
    assert text(browser, "share-at") == "move 0 of 7"
    assert not browser.find_elements(By.CSS_SELECTOR, "#share-board .cell.red")
    browser.find_element(By.ID, "forward").click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#share-board .cell.red")) == 1


def _share(rules: str, size: str, moves: list[str], by: str, more: str = "") -> str:
    return f"share=1&n=1&r={rules}&z={size}&m={'+'.join(moves)}&b={by}{more}"


# Share links as nobody's board writes them (docs/remote.md, "Share links"):
# each field damaged, cut short or forged in turn.
DAMAGED = [
    _share("classic", "7x6", ["9"], "r"),  # a column the board does not have
    _share("classic", "3000x3000", ["1", "1", "1"], "ryr"),  # far beyond the engine's sizes
    _share("classic", "21x6", ["1"], "r"),  # a column wider than Classic's most
    _share("five", "23x6", ["2"], "r"),  # ... and than 5-in-a-Row's, strips included
    _share("classic", "7x3", ["1"], "r"),  # a row lower than the least
    _share("classic", "7x6", ["p4"], "r"),  # a pop from an empty column
    _share("classic", "4x4", ["1"] * 5, "ryryr"),  # a drop into a full column
    _share("classic", "7x6", ["04"], "r"),  # not the notation
    _share("classic", "7x6", ["4", "", "5"], "ryr"),
    _share("classic", "7x6", ["-1"], "r"),
    _share("classic", "7x6", ["4"], ""),  # a move without its mover
    _share("classic", "7x6", ["4"], "x"),
    _share("classic", "7x6", ["4", "p4"] * 5001, "ry" * 5001),  # more moves than any game
    _share("classic", "4x4", [], "", "&i=..../..../..../..."),  # a row cut short
    _share("classic", "4x4", [], "", "&i=..../..../...."),  # a row missing
    _share("classic", "4x4", [], "", "&i=..../..../..../...X"),  # no disc's colour
    _share("classic", "4x4", [], "", "&i=..../..../R.../...."),  # a disc above nothing
    _share("classic", "7x6", ["4"], "r", "&e=red&x=8.1"),  # a winning cell off the board
    _share("classic", "7x6", ["4"], "r", "&e=red&x=4.7"),
    _share("classic", "7x6", ["4"], "r", "&e=red&x=4"),
    _share("classic", "7x6", ["4"], "r", "&e=blue"),
    _share("chess", "7x6", ["4"], "r"),  # no rules of the board's
    _share("constructor", "7x6", ["4"], "r"),
    _share("classic", "7x6", ["4"], "r").replace("n=1", "n=x"),
    _share("classic", "7x6", ["4"], "r").replace("&z=7x6", ""),  # a field missing
    _share("classic", "7x6", ["4"], "r").replace("&b=r", ""),
]


def test_a_damaged_share_link_says_so_at_once_and_the_page_still_answers(
    browser: Any, table: Table
) -> None:
    """The attack: a crafted share link threw (a column not there), leaving a
    blank page, or hung the page for a board of 3000 x 3000. (Popref's own
    page, for speed: a broker's static server answers each file in a
    quarter of a second; the test above replays from one.)"""
    page = table.web.url + "remote"
    damaged = strings("en")["bad_link"]
    browser.set_script_timeout(2)
    for fragment in DAMAGED:
        browser.get("about:blank")
        browser.get(f"{page}#{fragment}")
        wait(browser, lambda d: text(d, "problem") == damaged, f"the damaged link: {fragment[:80]}")
        assert not browser.find_element(By.ID, "share").is_displayed()
        assert browser.execute_async_script("setTimeout(() => arguments[0](true), 0)")
    # what the board writes replays: 5-in-a-Row's strips in the start
    # position, and a game of the most moves on the largest board
    fragment = share_fragment(replay("Rules: five\nSize: 9x6\n\n3 4\n"), 2)
    browser.get("about:blank")
    browser.get(f"{page}#{fragment}")
    wait(browser, lambda d: text(d, "share-at") == "move 2 of 2", "the replay at its end")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#share-board .cell.red")) == 7
    most = _share("five", "22x20", ["2", "p2"] * (MOST_MOVES // 2), "ry" * (MOST_MOVES // 2))
    browser.get("about:blank")
    browser.get(f"{page}#{most}")
    end = f"move {MOST_MOVES} of {MOST_MOVES}"
    wait(browser, lambda d: text(d, "share-at") == end, "the longest replay at its end")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#share-board .cell")) == 22 * 20
    assert not browser.find_element(By.ID, "problem").is_displayed()


SIGN = (
    "const [key, game, from, kind, seq, body, done] = arguments;"
    "const bytes = Uint8Array.from(key.match(/../g), (h) => parseInt(h, 16));"
    "Promise.all([protocol.signer(), protocol.signature(bytes, game, from, kind, seq, body)])"
    ".then(done, (error) => done(['error', String(error)]));"
)

SEQUEL = (
    "const [key, done] = arguments;"
    "const bytes = Uint8Array.from(key.match(/../g), (h) => parseInt(h, 16));"
    "protocol.sequel(bytes).then(done, (error) => done(['error', String(error)]));"
)


def signed_in(browser: Any) -> set[str]:
    """Which code signed docs/remote.md's test vectors in this page (and
    worked out the next game's id and secret, the same code)."""
    lines = vectors()
    key, game = lines[0].split()[1], lines[1].split()[1]
    used = set()
    for line in lines[3:]:
        if not line.startswith("{"):
            continue
        message = json.loads(line)
        args = (key, game, message["from"], message["kind"], message["seq"], message["body"])
        signer, sig = browser.execute_async_script(SIGN, *args)
        assert sig == message["sig"], message
        used.add(signer)
    game, secret = next(line for line in lines if line.startswith("sequel ")).split()[1:]
    assert browser.execute_async_script(SEQUEL, key) == {"game": game, "key": secret}
    return used


def test_the_pages_hmac_signs_the_documented_test_vectors(
    browser: Any, served: Table, static_page: str
) -> None:
    browser.get(served.web.url + "remote#v=2")
    wait(browser, lambda d: "version 2" in text(d, "problem"), "the refused link")
    assert signed_in(browser) == {"vendored"}  # the Pi's page: the vendored HMAC
    # a broker's static server sends no Content-Type: no modules run from
    # it, so WebCrypto signs (a secure context: https, or here loopback)
    browser.get(f"{static_page}#v=2")
    wait(browser, lambda d: "version 2" in text(d, "problem"), "the refused link")
    assert signed_in(browser) == {"webcrypto"}


def test_a_flood_on_the_boards_topics_waits_in_a_bounded_queue(browser: Any, served: Table) -> None:
    browser.get(invite(served))
    wait(browser, lambda d: text(d, "link") == "live", "the broker's link")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .cell")) == 42, "a board")
    # as a stranger's messages reach the page: far more than it checks at once
    flooded = browser.execute_script(
        "const junk = new Uint8Array(60000).fill(123);"
        "for (let i = 0; i < 5000; i++) arrived(names.state, junk);"
        "return waiting;"
    )
    assert 0 < flooded <= 64
    with served.sim.lock:
        served.act("drop 4")
    wait(browser, lambda d: text(d, "moves") == "4", "the board's next state, taken all the same")


def test_a_share_link_names_its_rules_as_the_page_does(
    browser: Any, table: Table, finnish_browser: Any
) -> None:
    """A family's share link of a finished game read "Game 1: rules_classic":
    the title looked up a page sentence that is not there, not the rules'
    own title (GET /api/strings' titles), in every language."""
    table.act(*WIN)
    share = table.get_json("/api/games/1/replay")["share"]
    for reader, title in ((browser, "Game 1: Classic"), (finnish_browser, "Peli 1: Klassinen")):
        reader.get(share)
        wait(reader, lambda d: "7" in text(d, "share-at"), "the replay at its end")
        assert text(reader, "share-title") == title


def asked(table: Table, move: str) -> Callable[[Any], bool]:
    return lambda _: state(table)["remote"] == move


def test_the_friend_plays_the_next_game_on_the_same_link(browser: Any, served: Table) -> None:
    """After a finished game the grid's next one is on the same link: the
    friend's page offers it, and one tap opens it (the link's game and
    secret, and so a reload, are the new game's); nothing is sent again."""
    first = invite(served)
    token = served.pair()
    assert served.get_json("/api/remote", token)["same_link"] is False
    browser.get(first)
    wait(browser, lambda d: text(d, "link") == "live", "the broker's link")
    for ply, move in enumerate(("4", "5", "4", "5", "4", "5", "4"), start=1):
        if ply % 2 == 0:  # Yellow's, the friend's: asked on the page, made at the grid
            tap(browser, move)
            wait(browser, asked(served, move), "the request")
        with served.sim.lock:
            served.act(f"drop {move}")
    wait(browser, lambda d: text(d, "turn") == "You lost.", "the result, the friend's")
    assert not browser.find_element(By.ID, "sequel").is_displayed()
    with served.sim.lock:
        served.act("slider open", "slider close")  # the grid's next game
    wait(browser, lambda d: d.find_element(By.ID, "sequel").is_displayed(), "the next game offered")
    assert text(browser, "turn") == "You lost."
    # the grid's last word on the finished game ("open the slider") is old news
    assert not browser.find_element(By.ID, "status").is_displayed()
    assert text(browser, "next-note") == (
        "The grid has begun its next game on this link: you play Yellow again."
    )
    with served.sim.lock:
        game = served.sim.daemon.referee.remote.invitation
    assert game is not None and f"g={game.game}" not in first
    # the owner's page says the link sent before leads here too
    assert served.get_json("/api/remote", token)["same_link"] is True
    browser.find_element(By.ID, "sequel").click()
    wait(browser, lambda d: f"g={game.game}" in d.current_url, "the next game's link")
    wait(browser, lambda d: text(d, "turn") == "Red's turn", "the new game")
    assert text(browser, "moves") == ""
    with served.sim.lock:
        served.act("drop 3")
    tap(browser, "3")
    wait(browser, lambda d: state(served)["remote"] == "3", "the friend's move in the next game")


def test_an_old_link_opened_late_reaches_the_game_being_played_with_one_tap(
    browser: Any, served: Table
) -> None:
    """The grid moved two games on (the friend played the second from the
    link of its own); the first game's link, opened late, shows its result
    and one tap passes the finished game between to the one being played."""
    first = invite(served)
    finish_through(served, parse_link(first))
    with served.sim.lock:
        served.act("slider open", "slider close")  # the second game, on the same link
        second = served.sim.links[-1]
    finish_through(served, parse_link(second))
    with served.sim.lock:
        served.act("slider open", "slider close")  # the third
        third = served.sim.daemon.referee.remote.invitation
    assert third is not None
    browser.get(first)
    wait(browser, lambda d: d.find_element(By.ID, "sequel").is_displayed(), "the next game offered")
    assert text(browser, "turn") == "You lost."
    browser.find_element(By.ID, "sequel").click()
    wait(browser, lambda d: f"g={third.game}" in d.current_url, "the game being played")
    wait(browser, lambda d: text(d, "turn") == "Red's turn", "its board")
    assert not browser.find_element(By.ID, "sequel").is_displayed()


def finish_through(table: Table, link: Link) -> None:
    """Red wins in column 1 at the grid; the friend plays Yellow in column 2
    from ``link`` (a terminal client, as popref play is)."""
    client = RemoteClient(link, name="friend")
    client.start()
    try:
        for ply, column in enumerate((1, 2, 1, 2, 1, 2, 1)):
            if ply % 2:
                assert client.wait(at_ply(client, ply), WAIT)
                seq = client.request(str(column), ply)
                assert client.wait(answered(client, seq), WAIT)
                assert client.replies[seq]["ok"], client.replies[seq]
            with table.sim.lock:
                table.act(f"drop {column}")
        assert state(table)["result"] == "red"
    finally:
        client.close()


def at_ply(client: RemoteClient, ply: int) -> Callable[[], bool]:
    return lambda: (client.state or {}).get("ply") == ply


def answered(client: RemoteClient, seq: int) -> Callable[[], bool]:
    return lambda: seq in client.replies
