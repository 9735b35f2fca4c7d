"""The page under simulated colour blindness: screenshots of its states
(discs and turn, every lamp look, the winning line live and replayed, a
fault), transformed by Machado et al.'s protanopia, deuteranopia and
tritanopia matrices (tests/colourvision.py), must keep apart what means
different things.

The page is shown with reduced motion, so no light is caught in a dark
blink step and nothing may rest on motion alone. Checks are on meaning, not
pixels: a mark (a ring, a star, a lamp's shape) counts where its pixels have
3:1 contrast against what they sit on (WCAG's bar for graphics); two colours
count as different at Delta E*ab 20; text needs 4.5:1.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image as Pillow

from hardware import looks
from tests.browser import Browsers, By, needs_chromium, open_page, says, wait
from tests.colourvision import (
    APART,
    GRAPHIC,
    KINDS,
    TEXT,
    contrasts,
    delta_e,
    simulate,
)
from tests.webclient import Table

pytestmark = needs_chromium
VISIONS = (None, *KINDS)
# Red wins in column 1 (its disc in column 5 is no part of it); then Yellow
# in column 2 (its disc in column 7 is none).
RED_WINS = tuple(f"drop {c}" for c in (1, 2, 1, 2, 1, 3, 5, 3, 1))
YELLOW_WINS = tuple(f"drop {c}" for c in (1, 2, 1, 2, 3, 7, 4, 2, 5, 2))


@pytest.fixture
def browser(browsers: Browsers) -> Iterator[Any]:
    for driver in browsers.open("en-US,en"):
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
        )
        yield driver


def screen(driver: Any) -> np.ndarray:
    image = Pillow.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    return np.asarray(image, dtype=float)


def places(driver: Any, selector: str) -> list[list[float]]:
    """Where the elements ``selector`` finds are on the screen, in one go (the
    page may redraw them any time after)."""
    found: list[list[float]] = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.getBoundingClientRect())"
        ".map(r => [r.left, r.top, r.right, r.bottom])",
        selector,
    )
    return found


def crop(image: np.ndarray, place: list[float], margin: int = 0) -> np.ndarray:
    """The pixels at ``place`` (and ``margin`` around it) in a screenshot."""
    left, top, right, bottom = (round(v) for v in place)
    return image[top - margin : bottom + margin, left - margin : right + margin]


def first(driver: Any, selector: str) -> list[float]:
    return places(driver, selector)[0]


def body(pixels: np.ndarray) -> np.ndarray:
    """The colour most of ``pixels`` have (a disc's, a light's)."""
    result: np.ndarray = np.median(pixels.reshape(-1, 3), axis=0)
    return result


def centre(pixels: np.ndarray) -> np.ndarray:
    h, w = pixels.shape[:2]
    return body(pixels[h // 3 : 2 * h // 3, w // 3 : 2 * w // 3])


def marked(pixels: np.ndarray, under: np.ndarray) -> float:
    """The share of ``pixels`` that stand out from ``under`` as a mark."""
    return float(np.mean(contrasts(pixels, under) >= GRAPHIC))


def test_discs_and_the_turn_are_told_apart(browser: Any, table: Table) -> None:
    open_page(browser, table)
    table.act("drop 4", "drop 3")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .cell.yellow")) == 1, "")
    image = screen(browser)
    red, yellow = (crop(image, first(browser, f"#board .cell.{c}")) for c in ("red", "yellow"))
    empty = crop(image, first(browser, "#board .cell:not(.red):not(.yellow)"))
    turn = crop(image, first(browser, "#turn"))
    for vision in VISIONS:
        discs = [centre(simulate(cell, vision)) for cell in (red, yellow, empty)]
        for a, b in itertools.combinations(discs, 2):
            assert delta_e(a, b) >= APART, vision
        # the turn's disc is ringed: it shows on the white card whatever its colour
        seen = simulate(turn, vision)
        assert marked(seen[:, : seen.shape[0]], np.array([255, 255, 255])) > 0.1, vision


def show_lamps(browser: Any, table: Table, lamps: list[str], disc: str) -> None:
    state = table.get_json("/api/state")
    table.web.hub.publish({**state, "lights": lamps, "colours": [disc] * len(lamps)})
    wait(
        browser,
        lambda d: (
            [e.get_attribute("data-lamp") for e in d.find_elements(By.CSS_SELECTOR, ".light")]
            == lamps
            and d.find_elements(By.CSS_SELECTOR, f"#board .colour-{disc}")
        ),
        f"the lamps in {disc}",
    )


def look(image: np.ndarray, place: list[float], vision: str | None) -> Any:
    """A light as seen: its colour, the mask of its mark (the pixels that
    stand out from that colour; not its rounded corners) and whether a frame
    is drawn around it."""
    inside = simulate(crop(image, place)[5:-5, 5:-5], vision)
    # beside the light, left and right (above and below are text and the grid)
    around = simulate(crop(image, place, margin=5), vision)[5:-5]
    sides = np.concatenate([around[:, :5], around[:, -5:]]).reshape(-1, 3)
    colour = body(inside)
    framed = marked(sides, simulate(np.array([255, 255, 255]), vision)) > 0.1
    return colour, contrasts(inside, colour) >= GRAPHIC, framed


def apart(a: Any, b: Any) -> bool:
    """Two lights are told apart by colour, by the shape of their marks
    (less than 70% of their marks' pixels in common), or by a frame."""
    (colour_a, mask_a, frame_a), (colour_b, mask_b, frame_b) = a, b
    shared = np.sum(mask_a & mask_b) / max(1, np.sum(mask_a | mask_b))
    return delta_e(colour_a, colour_b) >= APART or shared < 0.7 or frame_a != frame_b


def test_every_lamp_look_is_told_apart_by_shape_and_from_an_unlit_light(
    browser: Any, table: Table
) -> None:
    """Each lit lamp has a mark on a colour unlike an unlit light's, and
    every two lamps differ, a hint and the computer's move included, even in
    the same colour and whatever colours one sees."""
    open_page(browser, table)
    lit = [name for name in looks.CODES if name != "off"]
    for disc in ("red", "yellow"):
        seen: dict[str | None, dict[str, Any]] = {vision: {} for vision in VISIONS}
        for part in (lit[:5], lit[5:]):
            show_lamps(browser, table, ["off", *part], disc)
            image = screen(browser)
            lights = places(browser, "#board .light")
            for vision in VISIONS:
                for name, place in zip(["off", *part], lights, strict=True):
                    seen[vision][name] = look(image, place, vision)
        for vision, shown in seen.items():
            unlit = shown.pop("off")[0]
            for name, (colour, mask, _) in shown.items():
                assert delta_e(colour, unlit) >= APART, (name, disc, vision)
                assert np.mean(mask) > 0.05, (name, disc, vision)
            for a, b in itertools.combinations(shown, 2):
                assert apart(shown[a], shown[b]), (a, b, disc, vision)


def test_the_winning_line_stands_out_on_either_disc(browser: Any, table: Table) -> None:
    """Live and replayed: a winning disc carries a mark a plain disc of its
    colour has not."""
    open_page(browser, table)
    for game, (moves, winner) in enumerate(((RED_WINS, "red"), (YELLOW_WINS, "yellow")), 1):
        table.act(*moves)
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".cell.winning")) == 4, "")
        check_winning(browser, "#board", winner)
        table.act("slider open", "slider close")  # the next game
        wait(browser, says("rules", f"game {game + 1}"), "a new game")
    for game, winner in ((1, "Red"), (2, "Yellow")):
        browser.find_element(By.CSS_SELECTOR, f"button.game[data-number='{game}']").click()
        wait(browser, says("replay-result", f"{winner} won"), "the replay")
        check_winning(browser, "#replay-board", winner.lower())


def check_winning(browser: Any, board: str, disc: str) -> None:
    browser.execute_script(f"document.querySelector('{board}').scrollIntoView()")
    image = screen(browser)
    winning, plain = (
        crop(image, first(browser, f"{board} .cell.{disc}{k}"))
        for k in (".winning", ":not(.winning)")
    )
    for vision in VISIONS:
        disc_colour = centre(simulate(plain, vision))
        assert marked(round_part(simulate(winning, vision)), disc_colour) > 0.2, (disc, vision)
        assert marked(round_part(simulate(plain, vision)), disc_colour) < 0.05, (disc, vision)


def round_part(square: np.ndarray) -> np.ndarray:
    """The pixels of the disc inscribed in a cell's square (not the grid's
    blue around it)."""
    h, w = square.shape[:2]
    y, x = np.mgrid[:h, :w]
    inside = (y - (h - 1) / 2) ** 2 + (x - (w - 1) / 2) ** 2 <= (0.47 * min(h, w)) ** 2
    result: np.ndarray = square[inside]
    return result


def test_a_fault_reads_whatever_colours_one_sees(browser: Any, table: Table) -> None:
    open_page(browser, table)
    table.act("drop 4", "pop 4")
    wait(browser, lambda d: d.find_element(By.ID, "fault").is_displayed(), "the fault")
    image = screen(browser)
    fault = crop(image, first(browser, "#fault"))
    card = np.array([255, 255, 255])
    for vision in VISIONS:
        seen = simulate(fault, vision)
        inside = seen[4:-4, 4:-4]
        assert np.max(contrasts(inside, body(inside))) >= TEXT, vision  # its words
        edge = np.concatenate([seen[:2].reshape(-1, 3), seen[:, :2].reshape(-1, 3)])
        assert marked(edge, simulate(card, vision)) > 0.5, vision  # its frame on the card
