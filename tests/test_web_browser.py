"""The page in a real browser (tests/browser.py): the live board, the
archive, pairing and the controls, the languages. The page is served on
127.0.0.1 only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.i18n.text import LANGUAGES, translations
from controller.web.page_text import PLURALS, page_catalog
from tests.browser import (
    By,
    Select,
    cells,
    lit,
    needs_chromium,
    open_page,
    pair_page,
    says,
    shot,
    text,
    wait,
)
from tests.webclient import LOOKED, WIN, Table

pytestmark = needs_chromium


def test_the_board_follows_a_scripted_game(browser: Any, table: Table) -> None:
    open_page(browser, table)
    assert "Red to move" in text(browser, "status")
    table.act(WIN[0])
    wait(browser, lambda d: cells(d, ".red") == 1, "Red's disc")
    wait(browser, lambda d: "Yellow" in text(d, "turn"), "Yellow's turn")
    table.act(*WIN[1:6])
    wait(browser, lambda d: cells(d, ".yellow") == 3, "Yellow's discs")
    assert text(browser, "moves") == "1 2 1 2 1 2"
    table.act(WIN[6])
    wait(browser, lambda d: cells(d, ".winning") == 4, "the winning line")
    assert "Red wins" in text(browser, "status")
    lights = browser.find_elements(By.CSS_SELECTOR, "#board .light.lamp-winning")
    assert [light.get_attribute("data-column") for light in lights] == ["1"]
    shot(browser, "win")
    # the finished game is in the archive, replayable move by move
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "button.game"), "the archive")
    browser.find_element(By.CSS_SELECTOR, "button.game").click()
    wait(browser, lambda d: text(d, "replay-at") == "move 7 of 7", "the replay")
    assert text(browser, "replay-result") == "Red won"
    browser.execute_script("document.getElementById('replay').scrollIntoView()")
    shot(browser, "replay")
    browser.find_element(By.ID, "first").click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#replay-board .cell.red")) == 0
    browser.find_element(By.ID, "forward").click()
    assert text(browser, "replay-at") == "move 1 of 7"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#replay-board .cell.red")) == 1


def test_a_fault_and_its_repair_show(browser: Any, table: Table) -> None:
    open_page(browser, table)
    table.act("drop 4", "pop 4")
    wait(browser, lambda d: d.find_element(By.ID, "fault").is_displayed(), "the fault")
    assert "Drop a Red disc into column 4" in text(browser, "fault")
    chosen = browser.find_elements(By.CSS_SELECTOR, "#board .light.lamp-chosen")
    assert [light.get_attribute("data-column") for light in chosen] == ["4"]
    shot(browser, "fault")
    browser.set_window_size(412, 915)  # a phone
    assert browser.find_element(By.ID, "fault").is_displayed()
    shot(browser, "phone")
    table.act("drop 4")
    wait(browser, lambda d: not d.find_element(By.ID, "fault").is_displayed(), "the repair")
    assert "Yellow to move" in text(browser, "status")


def test_pairing_with_the_mode_button_then_control(browser: Any, table: Table) -> None:
    open_page(browser, table)
    assert not browser.find_element(By.ID, "control-box").is_displayed()
    # unpaired, a control gets 403 (the page's own fetch, as a script would send it)
    status = browser.execute_async_script(
        "const done = arguments[0];"
        "fetch('/api/rules', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({rules: 'pop10'})}).then(r => done(r.status));"
    )
    assert status == 403
    browser.find_element(By.ID, "pair").click()
    wait(
        browser,
        lambda d: "pairing" in d.find_element(By.TAG_NAME, "body").get_attribute("class"),
        "the board blinking",
    )
    # the page says so when its own POST returns, which may come after the
    # event stream has already shown the blinking board
    wait(browser, lambda d: "mode button" in text(d, "message"), "the pairing sentence")
    # the page draws the columns the board lights for this request
    drawn = [
        int(light.get_attribute("data-column"))
        for light in browser.find_elements(By.CSS_SELECTOR, "#pair-code .light.lamp-chosen")
    ]
    lit = table.get_json("/api/state")["lights"]
    assert drawn and drawn == [c + 1 for c, lamp in enumerate(lit) if lamp == "chosen"]
    assert f"columns {', '.join(map(str, drawn))}" in text(browser, "message")
    shot(browser, "pairing")
    table.act(LOOKED, "press")  # the simulated mode button, once the code has shown
    wait(browser, lambda d: d.find_element(By.ID, "control-box").is_displayed(), "the controls")
    assert "paired" in text(browser, "pair-text")
    Select(browser.find_element(By.ID, "rules-choice")).select_by_value("pop10")  # applies at once
    wait(browser, lambda d: "Pop 10" in text(d, "rules"), "the new rules")
    assert table.get_json("/api/state")["rules"] == "pop10"
    table.act("drop 3")
    browser.find_element(By.ID, "new-game").click()
    wait(browser, lambda d: d.find_element(By.ID, "confirm").is_displayed(), "the confirmation")
    shot(browser, "controls")
    browser.find_element(By.ID, "confirm-yes").click()
    wait(browser, lambda d: "game 2" in text(d, "rules"), "the new game")


def test_the_language_switches(browser: Any, table: Table) -> None:
    open_page(browser, table)
    assert text(browser, "status") == "Red to move, Classic."
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    Select(browser.find_element(By.ID, "language")).select_by_value("cs")
    wait(browser, lambda d: text(d, "status") == "Na tahu je Červený, Klasika.", "Czech")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "cs"
    assert text(browser, "rules") == "Klasika, hra 1"
    wait(browser, lambda d: text(d, "link") == "živě", "the live link in Czech")
    # the event stream follows in Czech, the page's own words too
    table.act(*WIN[:2])
    wait(browser, lambda d: text(d, "moves") == "1 2", "two moves")
    assert text(browser, "status") == "Na tahu je Červený, Klasika."
    assert text(browser, "turn") == "Na tahu je Červený"
    table.act("pop 2")  # Classic has no pops: the fault and its repair step in Czech
    wait(browser, lambda d: "Vhoďte žlutý disk do sloupce 2." in text(d, "fault"), "the fault")
    # the choice is remembered over a reload, whatever the browser asks for
    browser.refresh()
    wait(browser, lambda d: text(d, "link") == "živě", "the page again in Czech")
    assert "Vhoďte žlutý disk do sloupce 2." in text(browser, "status")
    assert browser.find_element(By.ID, "language").get_attribute("value") == "cs"
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    wait(browser, lambda d: text(d, "status") == "Drop a Yellow disc into column 2.", "English")


def test_accept_language_chooses_the_pages_language(finnish_browser: Any, table: Table) -> None:
    browser = finnish_browser
    browser.get(table.web.url)
    wait(browser, lambda d: text(d, "link") == "yhteys päällä", "the live link in Finnish")
    assert text(browser, "status") == "Vuorossa Punainen, Klassinen."
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fi"
    headings = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
    assert headings[:3] == ["Ohjaus", "Siirrot", "Päättyneet pelit"]
    table.act(*WIN)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "button.game"), "the archive")
    game = browser.find_element(By.CSS_SELECTOR, "button.game").text
    assert game.startswith("Peli 1: Klassinen, Punainen voitti, 7 siirtoa, ")
    browser.set_window_size(412, 915)  # a phone
    shot(browser, "phone-fi")


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Table]:
    """A served table whose computer thinks for at most 0.3 s."""
    served = Table(tmp_path / "state", opponent={"think_ms": 300})
    try:
        yield served
    finally:
        served.close()


def test_the_opponent_its_level_its_pending_move_and_a_hint(browser: Any, quick: Table) -> None:
    open_page(browser, quick)
    pair_page(browser, quick)
    assert Select(browser.find_element(By.ID, "opponent-choice")).first_selected_option.text == (
        "nobody (two players)"
    )
    Select(browser.find_element(By.ID, "opponent-choice")).select_by_value("yellow")
    wait(browser, lambda d: "plays Yellow at level 5" in text(d, "opponent"), "the opponent")
    wait(browser, lambda d: "This game: the computer plays Yellow" in text(d, "message"), "why")
    Select(browser.find_element(By.ID, "level-choice")).select_by_value("3")
    wait(browser, lambda d: "at level 3" in text(d, "opponent"), "the level")
    assert quick.get_json("/api/state")["level"] == 3
    quick.act("drop 4")  # Red; the computer (Yellow) answers at once in the simulator
    move = quick.get_json("/api/state")["computer"]
    assert move is not None and not move.startswith("p")  # Classic: a drop
    said = f"The computer's move: drop a Yellow disc into column {move}."
    wait(browser, lambda d: text(d, "status") == said, "its move")
    assert lit(browser, "computer-drop") == [f"{move}:yellow"]
    assert "computer's move" not in text(browser, "opponent")  # said once
    shot(browser, "computer")
    quick.act(f"drop {move}")  # a person makes the computer's move for it
    wait(browser, lambda d: "Red" in text(d, "turn"), "Red's turn")
    browser.find_element(By.ID, "hint").click()
    wait(browser, lambda d: "Hint:" in text(d, "opponent"), "the hint")
    assert text(browser, "message") == "Red asked for a hint."
    hint = quick.get_json("/api/state")["hint"]
    assert lit(browser, "hint-drop") == [f"{hint}:red"] and lit(browser, "computer-drop") == []
    assert f"Hint for Red: drop a Red disc into column {hint}" in text(browser, "status")
    shot(browser, "hint")
    quick.act("wait 6000")  # the board lights a hint for a few seconds
    wait(browser, lambda d: "Hint:" not in text(d, "opponent"), "the hint going out")
    assert lit(browser, "hint-drop") == []


def test_the_computer_opponents_fields_show_when_the_state_has_them(
    browser: Any, table: Table
) -> None:
    open_page(browser, table)
    assert not browser.find_element(By.ID, "opponent").is_displayed()
    state = table.get_json("/api/state")
    table.web.hub.publish({**state, "opponent": "yellow", "computer": "4", "hint": None})
    wait(browser, lambda d: d.find_element(By.ID, "opponent").is_displayed(), "the opponent")
    assert text(browser, "opponent") == "The computer plays Yellow."  # the status says its move
    # while a fault's repair takes the status, the computer's move is recalled beside it
    fault = {"fault": "A disc went into column 2.", "status": "Take it out."}
    table.web.hub.publish({**state, "opponent": "yellow", "computer": "4", **fault})
    wait(browser, lambda d: "make it on the grid" in text(d, "opponent"), "the reminder")
    assert text(browser, "opponent") == (
        "The computer plays Yellow. The computer's move: 4; make it on the grid."
    )


def test_a_refused_pairing_says_so(browser: Any, table: Table) -> None:
    open_page(browser, table)
    browser.find_element(By.ID, "pair").click()
    wait(browser, lambda d: "mode button" in text(d, "message"), "the pairing sentence")
    table.act("press")  # too soon: someone choosing rules
    wait(browser, lambda d: "not paired" in text(d, "message"), "the refusal")
    assert not browser.find_element(By.ID, "pair-code").is_displayed()
    assert browser.find_element(By.ID, "pair").is_displayed()


def test_a_pairing_nobody_answers_says_to_try_again(browser: Any, table: Table) -> None:
    open_page(browser, table)
    browser.find_element(By.ID, "pair").click()
    wait(
        browser,
        lambda d: "pairing" in d.find_element(By.TAG_NAME, "body").get_attribute("class"),
        "the board blinking",
    )
    table.act("wait 36000")  # 36 s of simulated time: the window and its grace are over
    wait(browser, lambda d: "try again" in text(d, "message"), "the failed pairing")
    assert "pairing" not in browser.find_element(By.TAG_NAME, "body").get_attribute("class")
    assert browser.find_element(By.ID, "pair").is_displayed()


def test_the_pages_plural_forms_are_gettexts(browser: Any, table: Table) -> None:
    """The page picks a sentence's form by the browser's Intl.PluralRules
    and the catalog's table of categories; for every count it must be the
    form gettext picks, in every language."""
    open_page(browser, table)
    counts = [*range(0, 201), 1_000_000]
    singular, plural = PLURALS["move_count"]
    for language in LANGUAGES:
        catalog = page_catalog(language)
        page = browser.execute_script(
            "return arguments[2].map(pluralChooser(arguments[0], arguments[1]));",
            language,
            catalog["plural"],
            counts,
        )
        forms = catalog["plurals"]["move_count"]
        found = translations(language)
        said = [forms[index] for index in page]
        assert said == [found.ngettext(singular, plural, n) for n in counts], language


def test_the_takeback_button_takes_the_last_move_back_and_the_board_shows_the_way_back(
    browser: Any, table: Table
) -> None:
    open_page(browser, table)
    pair_page(browser, table)
    table.act("drop 4", "drop 3")
    wait(browser, lambda d: "Red" in text(d, "turn"), "Red's turn")
    browser.find_element(By.ID, "takeback").click()
    wait(browser, lambda d: "Taken back: Yellow's drop into column 3" in text(d, "message"), "it")
    assert lit(browser, "error") == ["3:yellow"]  # the disc to take out, in its colour
    assert "column 3" in text(browser, "status")
    table.act("pop 3")
    wait(browser, lambda d: lit(d, "error") == [], "the grid back in step")
    assert table.get_json("/api/state")["moves"] == ["4"]


def test_a_joined_grid_hides_the_next_games_menus_and_the_link_is_said(
    browser: Any, table: Table
) -> None:
    open_page(browser, table)
    pair_page(browser, table)
    choices = browser.find_elements(By.CSS_SELECTOR, "label.choice")
    assert len(choices) == 3 and all(choice.is_displayed() for choice in choices)
    assert not browser.find_element(By.ID, "linked").is_displayed()
    state = table.get_json("/api/state")
    joined = {**state, "linked": "joined", "link": "up", "remote_colour": "red"}
    table.web.hub.publish(joined)
    wait(browser, says("linked", "Linked with another grid: the link is up."), "the link's line")
    # the inviting grid chooses the rules; each grid's person plays its colour
    assert not any(choice.is_displayed() for choice in choices)
    assert not browser.find_element(By.ID, "from-next-game").is_displayed()
    assert "that grid chooses the rules" in text(browser, "joined")
    assert text(browser, "link") == "live"
    shot(browser, "joined")
    cut = "The link to the other side is down; play goes on when it is back."
    table.web.hub.publish({**joined, "link": "down", "fault": cut})
    wait(browser, says("linked", "the link is down"), "the link down")
    # the badge cannot say the connection is up beside the fault
    assert text(browser, "link") == "link down"
    # the inviting grid keeps its menus, and says the link too
    table.web.hub.publish({**state, "linked": "inviting", "link": "up", "remote_colour": "yellow"})
    wait(browser, says("linked", "the link is up"), "the link up")
    assert all(choice.is_displayed() for choice in choices)
    assert not browser.find_element(By.ID, "joined").is_displayed()
    assert text(browser, "link") == "live"


def test_a_controls_answer_goes_once_the_game_moves_on(browser: Any, table: Table) -> None:
    """A family's page said "The game was abandoned. New game: Classic." under
    the next game's "Yellow wins.": a control's answer stood until the next
    control. It stands until the game moves on; New game's until that game's
    first move."""
    open_page(browser, table)
    pair_page(browser, table)
    table.act("drop 4")
    browser.find_element(By.ID, "new-game").click()
    wait(browser, lambda d: d.find_element(By.ID, "confirm").is_displayed(), "the confirmation")
    browser.find_element(By.ID, "confirm-yes").click()
    wait(browser, says("message", "The game was abandoned."), "the answer")
    table.act("pop 4")  # the grid emptied for the new game: still no move in it
    wait(browser, says("status", "Red to move"), "the new game in step")
    assert "The game was abandoned." in text(browser, "message")
    table.act("drop 1")
    wait(browser, lambda d: text(d, "message") == "", "the answer gone at the first move")
    Select(browser.find_element(By.ID, "rules-choice")).select_by_value("pop10")
    wait(browser, says("message", "The next game will be Pop 10."), "the choice's answer")
    table.act("drop 2")
    wait(browser, lambda d: text(d, "message") == "", "the answer gone at the next move")
    browser.find_element(By.ID, "hint").click()
    wait(browser, says("message", "Red asked for a hint."), "the hint's answer")
    table.act(*WIN[2:])  # Red wins in column 1
    wait(browser, says("status", "Red wins"), "the win")
    assert text(browser, "message") == ""


class Blackhole:
    """A TCP relay to the table's page whose event streams can go silent:
    :meth:`cut` leaves each stream open with nothing more passing, as a
    phone's network does when it drops a connection without a word; every
    other connection, and every stream after the cut, passes."""

    def __init__(self, port: int) -> None:
        import socket
        import threading

        self.target = port
        self.streams: list[threading.Event] = []
        self.sockets: list[socket.socket] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        for silent in self.streams:
            silent.set()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [client, server]
            silent = threading.Event()
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._relay, args=(a, b, silent), daemon=True).start()

    def _relay(self, source: Any, sink: Any, silent: Any) -> None:
        try:
            while data := source.recv(65536):
                if silent.is_set():
                    return  # nothing more, and nothing closed
                if data.startswith(b"GET /api/events"):  # this connection now holds a stream
                    self.streams.append(silent)
                sink.sendall(data)
        except OSError:
            return

    def close(self) -> None:
        self.listener.close()
        for held in self.sockets:
            held.close()


@pytest.mark.slow
def test_a_stream_that_went_silent_is_said_offline_and_followed_again(
    browser: Any, table: Table
) -> None:
    """A family's phone came back to the page after its network had dropped
    the event stream without a word: the page said "live" over an old
    board for as long as anyone looked. A stream silent past two keep-alives
    is dropped and followed again (about 40 s)."""
    from selenium.webdriver.support.ui import WebDriverWait

    relay = Blackhole(table.port)
    try:
        browser.get(f"http://127.0.0.1:{relay.port}/")
        wait(browser, lambda d: text(d, "link") == "live", "the live link")
        relay.cut()
        table.act("drop 4", "drop 3")
        WebDriverWait(browser, 70, poll_frequency=0.5).until(lambda d: text(d, "moves") == "4 3")
        assert text(browser, "link") == "live"
    finally:
        relay.close()
