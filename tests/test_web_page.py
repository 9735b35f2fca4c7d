"""The page as a new owner meets it (issue 20), in a real browser
(tests/browser.py): menus that apply on change and show what the board will
do next, the rules and the lamp table from the server, the replay's result,
winning line and scores, dates and messages in the page's own language, and
a phone's layout in every language."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from controller.i18n.text import LANGUAGES, translations
from engine import RULES_NAMES, new_game, write_record
from hardware import looks
from tests.browser import (
    PHONE,
    Browsers,
    By,
    Select,
    needs_chromium,
    open_page,
    pair_page,
    shows,
    text,
    wait,
)
from tests.webclient import WIN, Table

pytestmark = needs_chromium
STATIC = Path(__file__).resolve().parent.parent / "controller" / "web" / "static"


@pytest.fixture
def browser(browsers: Browsers) -> Iterator[Any]:
    yield from browsers.open("en-US,en")


def choose_language(driver: Any, code: str) -> None:
    Select(driver.find_element(By.ID, "language")).select_by_value(code)
    wait(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == code, code)


def test_the_rules_menu_and_the_next_game_follow_the_board(browser: Any, table: Table) -> None:
    open_page(browser, table)
    assert not browser.find_element(By.ID, "next").is_displayed()  # the next game is this one's
    table.act("drop 4", "press")  # mid-game, a press chooses the next game's rules
    chosen = table.get_json("/api/state")["next_rules"]
    assert chosen != "classic"
    menu = browser.find_element(By.ID, "rules-choice")
    wait(browser, lambda d: menu.get_attribute("value") == chosen, "the menu on the next rules")
    title = translations("en").gettext({"popout": "Pop Out"}.get(chosen, chosen))
    assert text(browser, "next") == f"Next game: {title}, two players."


def test_a_menu_applies_its_choice_at_once(browser: Any, table: Table) -> None:
    open_page(browser, table)
    pair_page(browser, table)
    assert not browser.find_elements(By.CSS_SELECTOR, "#control-box select + button")
    Select(browser.find_element(By.ID, "level-choice")).select_by_value("7")
    Select(browser.find_element(By.ID, "opponent-choice")).select_by_value("red")
    wait(browser, lambda d: table.get_json("/api/state")["opponent"] == "red", "the opponent")
    assert table.get_json("/api/state")["level"] == 7
    wait(browser, lambda d: "plays Red at level 7" in text(d, "opponent"), "the page saying so")


def test_the_rules_and_the_lamp_looks_come_from_the_server(browser: Any, table: Table) -> None:
    open_page(browser, table)
    options = "#rules-choice option"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, options), "the rules")
    values = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, options)]
    assert values == list(RULES_NAMES)
    state = table.get_json("/api/state")
    for disc in ("red", "yellow"):
        table.web.hub.publish({**state, "lights": list(looks.CODES), "colours": [disc] * 11})
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .light")) == 11, "11")
        wait(browser, shows(f"#board .colour-{disc}"), disc)
        for light in browser.find_elements(By.CSS_SELECTOR, "#board .light"):
            name = light.get_attribute("data-lamp")
            colour, blink = looks.rgb_look(looks.CODES[name], disc)
            pattern = "".join(map(str, looks.PATTERNS[blink]))
            assert (light.get_attribute("data-pattern") or "1") == pattern, name
            assert (f"look-{colour}" in light.get_attribute("class").split()) == bool(colour), name
    # no copy of either table in the page's own files
    assert not any(name in (STATIC / "app.js").read_text() for name in ("popout", "five+pop10"))
    assert "animation" not in (STATIC / "app.css").read_text()


def scored_pop10() -> str:
    """A Pop 10 record (4 x 4) in which both players have scored."""
    rng = random.Random(0)
    game = new_game("pop10", (4, 4))
    while sum(game.scores.values()) < 2:
        game.play(rng.choice(list(game.legal_moves())))
    return write_record(game)


def test_the_replay_shows_the_result_the_winning_line_and_the_scores(
    browser: Any, table: Table
) -> None:
    table.act(*WIN)  # game 1, Red wins in column 1
    record = scored_pop10()
    table.web.archive.save(record, rules="pop10", result="?", finished=datetime.now(UTC))
    open_page(browser, table)
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "button.game")) == 2, "games")
    browser.find_element(By.CSS_SELECTOR, "button.game[data-number='1']").click()
    wait(browser, lambda d: text(d, "replay-at") == "move 7 of 7", "the replay")
    assert text(browser, "replay-result") == "Red won"
    winning = browser.find_elements(By.CSS_SELECTOR, "#replay-board .cell.winning")
    assert len(winning) == 4
    browser.find_element(By.ID, "back").click()
    assert text(browser, "replay-result") == ""
    assert not browser.find_elements(By.CSS_SELECTOR, "#replay-board .cell.winning")
    browser.find_element(By.CSS_SELECTOR, "button.game[data-number='2']").click()
    replay = table.get_json("/api/games/2/replay")
    red, yellow = replay["scores"][-1]
    wait(browser, lambda d: text(d, "replay-scores") == f"Red {red} : {yellow} Yellow", "scores")
    browser.find_element(By.ID, "first").click()
    assert text(browser, "replay-scores") == "Red 0 : 0 Yellow"


def test_dates_and_the_message_line_follow_the_pages_language(browser: Any, table: Table) -> None:
    table.act(*WIN)
    open_page(browser, table)
    pair_page(browser, table)
    wait(browser, lambda d: text(d, "message") == "Paired.", "the pairing's message")
    finished = table.get_json("/api/games")[0]["finished"]
    date = "new Intl.DateTimeFormat(arguments[0], {dateStyle: 'medium', timeStyle: 'short'})"
    english, finnish = (
        browser.execute_script(f"return {date}.format(new Date(arguments[1]))", code, finished)
        for code in ("en-US", "fi")
    )
    assert english != finnish
    wait(browser, lambda d: text(d, "games").endswith(english), "the dates in English")
    choose_language(browser, "fi")
    wait(browser, lambda d: text(d, "message") == translations("fi").gettext("Paired."), "fi")
    wait(browser, lambda d: text(d, "games").endswith(finnish), "the dates in Finnish")
    browser.find_element(By.ID, "hint").click()  # the game is over: the referee says so
    no_hint = "No hint: the game is over."
    wait(browser, lambda d: text(d, "message") == translations("fi").gettext(no_hint), "why")
    choose_language(browser, "cs")
    wait(browser, lambda d: text(d, "message") == translations("cs").gettext(no_hint), "cs")


def boxes(driver: Any, selector: str) -> list[dict[str, float]]:
    found: list[dict[str, float]] = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.getBoundingClientRect())"
        ".map(r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom}))",
        selector,
    )
    return found


def test_on_a_phone_in_every_language_nothing_wraps_apart(browser: Any, table: Table) -> None:
    """Each menu stays under its own label, nothing runs off the screen, the
    replay's buttons stay on one line, and Pair (then Hint) comes before the
    move list, in every language."""
    table.act(*WIN)
    browser.set_window_size(*PHONE)
    open_page(browser, table)
    assert boxes(browser, "#pair")[0]["bottom"] < boxes(browser, "#history")[0]["top"]
    pair_page(browser, table)
    browser.find_element(By.CSS_SELECTOR, "button.game").click()
    wait(browser, lambda d: d.find_element(By.ID, "replay").is_displayed(), "the replay")
    for code in LANGUAGES:
        choose_language(browser, code)
        width = browser.execute_script("return document.documentElement.clientWidth")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width, code
        words, menus = boxes(browser, ".choice span"), boxes(browser, ".choice select")
        assert len(words) == len(menus) == 3
        for above, menu in zip(words, menus, strict=True):
            assert menu["top"] >= above["bottom"] - 1 and menu["left"] == above["left"], code
            assert menu["right"] <= width, code
        nav = boxes(browser, ".replay-nav > *")  # on one line: every item spans one height
        assert max(b["top"] for b in nav) < min(b["bottom"] for b in nav), code
        assert nav[-1]["right"] <= width, code
        assert boxes(browser, "#hint")[0]["bottom"] < boxes(browser, "#history")[0]["top"], code
