"""The pages checked by axe-core, Deque's accessibility engine (the npm
package at a pinned version and integrity, fetched as the vendored files
are by tests/test_remote_vendor.py; a test's tool, never shipped): the live
page and the friend's page at a phone's size, in the states people meet
them, in English and Finnish, with no violation of any impact. Playing
without looking at the screen is what users of smart boards ask for most;
this keeps what the pages give a screen reader from slipping."""

from __future__ import annotations

import base64
import hashlib
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.broker import Mosquitto
from tests.browser import By, needs_chromium, open_page, pair_page, wait
from tests.test_remote_page import invite, serving, state, tap
from tests.test_remote_vendor import tarball
from tests.webclient import WIN, Table

pytestmark = needs_chromium

AXE = ("axe-core", "4.14.1")
INTEGRITY = (  # the registry's, for that version
    "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2r"
    "hu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
)
PHONE = (390, 844)


@pytest.fixture
def served(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Table]:
    with serving(mosquitto, tmp_path) as table:
        yield table


@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core's script, from the package npm packed and the registry signed."""
    packed = tarball(*AXE)
    algorithm, _, digest = INTEGRITY.partition("-")
    assert base64.b64encode(hashlib.new(algorithm, packed.read_bytes()).digest()).decode() == digest
    with tarfile.open(packed) as archive:
        member = archive.extractfile("package/axe.min.js")
        assert member is not None
        return member.read().decode("utf-8")


def violations(driver: Any, axe: str) -> list[str]:
    """What axe-core finds wrong on the page as it is, one line each."""
    driver.execute_script(axe)
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations));"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
    ]


def test_the_live_page_as_its_owner_meets_it(browser: Any, served: Table, axe: str) -> None:
    browser.set_window_size(*PHONE)
    open_page(browser, served)
    assert violations(browser, axe) == []  # a visitor's: the board, the moves
    pair_page(browser, served)
    assert violations(browser, axe) == []  # the controls
    with served.sim.lock:
        served.act(*WIN)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#board .cell.winning"), "the win")
    assert violations(browser, axe) == []  # the result, the share link
    browser.find_element(By.ID, "invite").click()
    wait(browser, lambda d: d.find_element(By.ID, "invitation").is_displayed(), "the invitation")
    assert violations(browser, axe) == []  # the link, its QR code, copy and revoke


def test_the_friends_page_in_finnish(finnish_browser: Any, served: Table, axe: str) -> None:
    browser = finnish_browser
    browser.set_window_size(*PHONE)
    browser.get(invite(served))
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .cell")) == 42, "a board")
    assert violations(browser, axe) == []  # Red's turn: the friend waits
    with served.sim.lock:
        served.act("drop 4")
    tap(browser, "5")
    wait(browser, lambda d: state(served)["remote"] == "5", "the friend's move lit on the grid")
    assert violations(browser, axe) == []  # the move waiting to be made on the grid
