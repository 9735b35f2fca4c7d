"""The page in a real browser, for the browser tests: Debian's headless
Chromium driven by Selenium (tests/run.sh installs both where apt-get
exists; elsewhere the tests skip with one line, by :data:`needs_chromium`).

With ``POPREF_WEB_SCREENSHOTS=1`` :func:`shot` also writes the screenshots in
docs/ (docs/web.md shows them).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.webclient import LOOKED, Table

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
DOCS = Path(__file__).resolve().parent.parent / "docs"
PHONE = (390, 844)  # a phone's window, in CSS pixels
WINDOW = (1200, 1400)  # every test's window to begin with

try:
    from selenium import webdriver
    from selenium.common.exceptions import (
        StaleElementReferenceException,
        TimeoutException,
        WebDriverException,
    )
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By as By  # for the tests too
    from selenium.webdriver.support.ui import Select as Select  # for the tests
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - the test extra installs it
    webdriver = None  # type: ignore[assignment]

needs_chromium = pytest.mark.skipif(
    webdriver is None or not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
    reason="no headless Chromium here: apt-get install chromium chromium-driver (tests/run.sh "
    "does where apt-get exists)",
)


class Browsers:
    """One headless Chromium for each Accept-Language, kept for the whole
    session (each takes seconds to start), and handed to one test at a time
    as a fresh one would be: blank, nothing stored for the page it showed
    (its language choice, its pairing token), no emulated media, its window
    at :data:`WINDOW`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.drivers: dict[str, Any] = {}

    def open(self, languages: str) -> Iterator[Any]:
        driver = self.drivers.get(languages)
        if driver is None:
            profile = self.directory / f"profile-{len(self.drivers)}"
            driver = self.drivers[languages] = start(profile, languages)
        try:
            yield driver
        finally:
            try:
                _forget(driver)
            except WebDriverException:  # it died with the test: start another next time
                del self.drivers[languages]
                driver.quit()

    def close(self) -> None:
        for driver in self.drivers.values():
            driver.quit()


def start(profile: Path, languages: str, trusting: str | None = None) -> Any:
    """A headless Chromium; ``trusting`` is the base64 SHA-256 of one more
    public key whose certificate it takes as valid (a test's own broker), as
    a phone trusts a broker's certificate from a public authority."""
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
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
        *([f"--ignore-certificate-errors-spki-list={trusting}"] if trusting else []),
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def _forget(driver: Any) -> None:
    """What the last test left in ``driver``, gone."""
    origin = driver.execute_script("return location.origin")
    if origin.startswith("http"):
        storage = {"origin": origin, "storageTypes": "all"}
        driver.execute_cdp_cmd("Storage.clearDataForOrigin", storage)
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.set_window_size(*WINDOW)


def wait(driver: Any, check: Callable[[Any], Any], what: str) -> Any:
    """Wait (up to 15 s) for ``check`` to hold, on the page's own events. An
    element the page redrew while ``check`` read it is read again, not an error."""
    try:
        waiting = WebDriverWait(
            driver, 15, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)
        )
        return waiting.until(check)
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


def pair_page(driver: Any, table: Table) -> None:
    driver.find_element(By.ID, "pair").click()
    wait(
        driver,
        lambda d: "pairing" in d.find_element(By.TAG_NAME, "body").get_attribute("class"),
        "the board blinking",
    )
    table.act(LOOKED, "press")  # the simulated mode button, once the code has shown
    wait(driver, lambda d: d.find_element(By.ID, "control-box").is_displayed(), "the controls")


def lit(driver: Any, lamp: str) -> list[str]:
    """The columns whose light shows ``lamp``, with the light's colour."""
    lights = driver.find_elements(By.CSS_SELECTOR, f"#board .light.lamp-{lamp}")
    return [
        f"{light.get_attribute('data-column')}:{colour}"
        for light in lights
        for colour in [c[7:] for c in light.get_attribute("class").split() if c[:7] == "colour-"]
    ]


def says(element: str, words: str) -> Callable[[Any], bool]:
    """A check for :func:`wait`: ``element``'s text holds ``words``."""
    return lambda driver: words in text(driver, element)


def shows(selector: str) -> Callable[[Any], bool]:
    """A check for :func:`wait`: ``selector`` finds something."""
    return lambda driver: bool(driver.find_elements(By.CSS_SELECTOR, selector))
