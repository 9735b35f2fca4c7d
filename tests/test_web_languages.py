"""The page in the reader's language: Accept-Language chooses, ``?lang=``
(the page's own menu) overrides; without either, English, as the contract
in docs/web.md has it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from controller.i18n.text import LANGUAGES
from controller.web.page_text import PAGE, PLURALS
from hardware import looks
from tests.webclient import Stream, Table

FINNISH = {"Accept-Language": "fi-FI,fi;q=0.9,en;q=0.5"}


def get(table: Table, path: str, headers: dict[str, str] | None = None) -> Any:
    status, _, body = table.request("GET", path, headers=headers)
    assert status == 200, body
    return json.loads(body)


def test_the_state_is_english_unless_asked(table: Table) -> None:
    state = get(table, "/api/state")
    assert state["status"] == "Red to move, Classic." and state["title"] == "Classic"


def test_accept_language_fi_gets_the_state_in_finnish(table: Table) -> None:
    table.act("drop 4", "pop 4")  # a fault with its repair step
    state = get(table, "/api/state", FINNISH)
    assert state["status"] == "Pudota punainen kiekko sarakkeeseen 4."
    assert state["fault"].endswith("Pudota punainen kiekko sarakkeeseen 4.")
    # every other field as in English: moves, lights, colours, names
    english = get(table, "/api/state")
    assert {k: v for k, v in state.items() if k not in ("status", "fault", "title")} == {
        k: v for k, v in english.items() if k not in ("status", "fault", "title")
    }


def test_the_page_choice_overrides_the_browser(table: Table) -> None:
    state = get(table, "/api/state?lang=el", FINNISH)
    assert state["status"] == "Παίζει ο Κόκκινος, Κλασικό."
    # an unknown choice falls back to the browser's languages
    assert get(table, "/api/state?lang=xx", FINNISH)["status"] == "Vuorossa Punainen, Klassinen."


def test_the_event_stream_speaks_each_clients_language(table: Table) -> None:
    czech = Stream(table, path="/api/events?lang=cs")
    italian = Stream(table, headers={"Accept-Language": "it"})
    english = Stream(table)
    try:
        assert czech.next()["status"] == "Na tahu je Červený, Klasika."
        assert italian.next()["status"] == "Tocca al Rosso, Classico."
        assert english.next()["status"] == "Red to move, Classic."
        table.act("drop 4")
        assert czech.until(lambda s: s["moves"] == ["4"])["status"] == (
            "Na tahu je Žlutý, Klasika."
        )
        moved = italian.until(lambda s: s["moves"] == ["4"])
        assert moved["status"] == "Tocca al Giallo, Classico."
        assert english.until(lambda s: s["moves"] == ["4"])["status"] == "Yellow to move, Classic."
    finally:
        for stream in (czech, italian, english):
            stream.close()


def test_the_pages_own_sentences_come_from_the_catalogs(table: Table) -> None:
    finnish = get(table, "/api/strings", FINNISH)
    assert finnish["language"] == "fi"
    assert finnish["strings"]["moves"] == "Siirrot"
    assert finnish["plurals"]["move_count"] == ["{n} siirto", "{n} siirtoa"]
    assert finnish["languages"]["el"] == "Ελληνικά"
    czech = get(table, "/api/strings?lang=cs")
    assert czech["plural"] == {"one": 0, "few": 1, "other": 2}
    assert czech["plurals"]["move_count"] == ["{n} tah", "{n} tahy", "{n} tahů"]
    english = get(table, "/api/strings")
    assert english["language"] == "en" and english["strings"]["moves"] == "Moves"
    assert set(english["strings"]) == set(finnish["strings"])


def test_a_refusal_says_how_to_pair_in_the_readers_language(table: Table) -> None:
    status, _, body = table.request("POST", "/api/rules?lang=it", {"rules": "pop10"})
    assert status == 403
    assert json.loads(body)["error"].startswith("Questo browser non è associato")
    status, _, body = table.request("POST", "/api/rules", {"rules": "pop10"})
    assert json.loads(body)["error"].startswith("This browser is not paired")
    # in every language too, for a page that changes its language afterwards
    error_in = json.loads(body)["error_in"]
    assert set(error_in) == set(LANGUAGES) and error_in["it"].startswith("Questo browser")


def test_every_key_the_page_asks_for_is_in_the_catalog() -> None:
    """A sentence added to the pages (their scripts and HTML, the live
    page's and the remote page's) without its entry in
    controller/web/page_text.py would show as its bare key."""
    static = Path(__file__).resolve().parent.parent / "controller" / "web" / "static"
    script = "".join((static / name).read_text() for name in ("app.js", "board.js", "remote.js"))
    page = (static / "index.html").read_text() + (static / "remote.html").read_text()
    asked = set(re.findall(r"""\b(?:t|say)\(\s*"(\w+)"\s*[,)]""", script))
    for either in re.findall(r"""\bt\(\s*\w+\s*\?\s*"(\w+)"\s*:\s*"(\w+)"\s*\)""", script):
        asked |= set(either)
    asked |= set(re.findall(r'data-t(?:-label)?="(\w+)"', page))
    # keys made from a prefix and a value: every value the state can have
    for prefix, values in {
        "result_": ("red", "yellow", "draw", "unknown"),
        "turn_": ("red", "yellow"),
        "colour_": ("red", "yellow"),
        "lamp_": tuple(looks.CODES),
    }.items():
        assert f't("{prefix}" +' in script or f't("{prefix}"' in script
        asked |= {prefix + value for value in values}
    plural = set(re.findall(r"""\b(?:tn|sayPlural)\(\s*"(\w+)\"""", script))
    assert len(asked) > 40 and plural
    assert asked <= set(PAGE), f"not in page_text.PAGE: {sorted(asked - set(PAGE))}"
    assert plural <= set(PLURALS), f"not in page_text.PLURALS: {sorted(plural - set(PLURALS))}"
