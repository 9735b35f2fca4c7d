"""The page in a real browser: Debian's headless Chromium driven by Selenium
(tests/run.sh installs both where apt-get exists; elsewhere these tests skip
with one line). The page is served on 127.0.0.1 only.

With ``POPREF_WEB_SCREENSHOTS=1`` the tests also write the screenshots in
docs/ (docs/web.md shows them).
"""

from __future__ import annotations

import gettext
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.i18n import LANGUAGES, plural_rule
from tests.webclient import WIN, Table

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
DOCS = Path(__file__).resolve().parent.parent / "docs"

try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # pragma: no cover - the test extra installs it
    webdriver = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    webdriver is None or not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
    reason="no headless Chromium here: apt-get install chromium chromium-driver (tests/run.sh "
    "does where apt-get exists)",
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    yield from chromium(tmp_path, "en-US,en")


@pytest.fixture
def finnish_browser(tmp_path: Path) -> Iterator[Any]:
    """A browser whose Accept-Language asks for Finnish first."""
    yield from chromium(tmp_path, "fi-FI,fi,en")


def chromium(tmp_path: Path, languages: str) -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.add_experimental_option("prefs", {"intl.accept_languages": languages})
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1200,1400",
        f"--user-data-dir={tmp_path / 'chromium'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: Any, check: Callable[[Any], Any], what: str) -> Any:
    """Wait (up to 15 s) for ``check`` to hold, on the page's own events."""
    try:
        return WebDriverWait(driver, 15, poll_frequency=0.05).until(check)
    except TimeoutException:
        raise AssertionError(f"the page never showed {what}") from None


def cells(driver: Any, kind: str) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, f"#board .cell{kind}"))


def text(driver: Any, element: str) -> str:
    found: str = driver.find_element(By.ID, element).text
    return found


def shot(driver: Any, name: str) -> None:
    if os.environ.get("POPREF_WEB_SCREENSHOTS"):
        driver.save_screenshot(str(DOCS / f"web-{name}.png"))


def open_page(driver: Any, table: Table) -> None:
    driver.get(table.web.url)
    wait(driver, lambda d: text(d, "link") == "live", "the live link")
    wait(driver, lambda d: cells(d, "") == 42, "a 7 x 6 board")


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
    browser.find_element(By.ID, "first").click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#replay-board .cell.red")) == 0
    browser.find_element(By.ID, "forward").click()
    assert text(browser, "replay-at") == "move 1 of 7"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#replay-board .cell.red")) == 1
    shot(browser, "replay")


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
    shot(browser, "pairing")
    table.act("press")  # the simulated mode button
    wait(browser, lambda d: d.find_element(By.ID, "control-box").is_displayed(), "the controls")
    assert "paired" in text(browser, "pair-text")
    Select(browser.find_element(By.ID, "rules-choice")).select_by_value("pop10")
    browser.find_element(By.ID, "set-rules").click()
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
    assert headings[:3] == ["Siirrot", "Ohjaus", "Päättyneet pelit"]
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


def pair_page(driver: Any, table: Table) -> None:
    driver.find_element(By.ID, "pair").click()
    wait(
        driver,
        lambda d: "pairing" in d.find_element(By.TAG_NAME, "body").get_attribute("class"),
        "the board blinking",
    )
    table.act("press")
    wait(driver, lambda d: d.find_element(By.ID, "control-box").is_displayed(), "the controls")


def lit(driver: Any, lamp: str) -> list[str]:
    """The columns whose light shows ``lamp``, with the light's colour."""
    lights = driver.find_elements(By.CSS_SELECTOR, f"#board .light.lamp-{lamp}")
    return [
        f"{light.get_attribute('data-column')}:{light.get_attribute('class').split('colour-')[-1]}"
        for light in lights
    ]


def test_the_opponent_its_level_its_pending_move_and_a_hint(browser: Any, quick: Table) -> None:
    open_page(browser, quick)
    pair_page(browser, quick)
    assert Select(browser.find_element(By.ID, "opponent-choice")).first_selected_option.text == (
        "nobody (two players)"
    )
    Select(browser.find_element(By.ID, "opponent-choice")).select_by_value("yellow")
    browser.find_element(By.ID, "set-opponent").click()
    wait(browser, lambda d: "plays Yellow at level 5" in text(d, "opponent"), "the opponent")
    wait(browser, lambda d: "This game: the computer plays Yellow" in text(d, "message"), "why")
    Select(browser.find_element(By.ID, "level-choice")).select_by_value("3")
    browser.find_element(By.ID, "set-level").click()
    wait(browser, lambda d: "at level 3" in text(d, "opponent"), "the level")
    assert quick.get_json("/api/state")["level"] == 3
    quick.act("drop 4")  # Red; the computer (Yellow) answers at once in the simulator
    move = quick.get_json("/api/state")["computer"]
    assert move is not None and not move.startswith("p")  # Classic: a drop
    wait(browser, lambda d: f"The computer's move: {move}" in text(d, "opponent"), "its move")
    assert lit(browser, "computer-drop") == [f"{move}:yellow"]
    assert "Yellow" in text(browser, "status")
    shot(browser, "computer")
    quick.act(f"drop {move}")  # a person makes the computer's move for it
    wait(browser, lambda d: "Red" in text(d, "turn"), "Red's turn")
    browser.find_element(By.ID, "hint").click()
    wait(browser, lambda d: "Hint:" in text(d, "opponent"), "the hint")
    assert text(browser, "message") == "Red asked for a hint."
    hint = quick.get_json("/api/state")["hint"]
    assert lit(browser, "computer-drop") == [f"{hint}:red"]
    assert f"Hint for Red: drop a Red disc into column {hint}" in text(browser, "status")
    shot(browser, "hint")
    quick.act("wait 6000")  # the board lights a hint for a few seconds
    wait(browser, lambda d: "Hint:" not in text(d, "opponent"), "the hint going out")
    assert lit(browser, "computer-drop") == []


def test_the_computer_opponents_fields_show_when_the_state_has_them(
    browser: Any, table: Table
) -> None:
    open_page(browser, table)
    assert not browser.find_element(By.ID, "opponent").is_displayed()
    state = table.get_json("/api/state")
    table.web.hub.publish({**state, "opponent": "yellow", "computer": "4", "hint": None})
    wait(browser, lambda d: d.find_element(By.ID, "opponent").is_displayed(), "the opponent")
    assert text(browser, "opponent") == (
        "The computer plays Yellow. The computer's move: 4; make it on the grid."
    )


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


def test_the_pages_plural_rule_is_the_catalogs(browser: Any, table: Table) -> None:
    """The page reads each catalog's Plural-Forms itself (its policy allows
    no eval); it must pick the form gettext picks, for every language."""
    open_page(browser, table)
    counts = [*range(0, 130), 1_000_000]
    for language in LANGUAGES:
        rule = plural_rule(language)
        page = browser.execute_script(
            "return arguments[1].map(pluralRule(arguments[0]));", rule, counts
        )
        expression = rule.partition("plural=")[2].rstrip(";")
        assert page == [gettext.c2py(expression)(n) for n in counts], language
