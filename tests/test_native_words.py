"""The sentences native readers corrected (issue 20, "The words"), as they
wrote them, and what keeps them right: one word for the board in each
language, the same word for abandoning a game everywhere."""

from __future__ import annotations

import re

import pytest

from controller.i18n import catalogs
from controller.i18n.words import rules_named, rules_title
from controller.referee.commentary import instead
from controller.referee.core import Referee, Table
from controller.web.page_text import strings, titles
from engine import Move
from hardware.events import ButtonHeld, DiscEntered


def page(language: str, key: str, **values: object) -> str:
    return strings(language)[key].format(**values)


def test_finnish() -> None:
    assert page("fi", "computer_move", move="2") == "Tietokoneen siirto: 2 – tee se pelilaudalla."
    assert page("fi", "from_next_game").endswith(
        "tulevat voimaan seuraavassa pelissä (tässä pelissä vain ennen ensimmäistä siirtoa)."
    )
    yellow = page("fi", "colour_yellow")
    assert page("fi", "opponent_level", colour=yellow, level=10) == (
        "Tietokone pelaa keltaisilla, taso 10."
    )
    assert page("fi", "live") == "yhteys päällä"
    assert titles("fi")["five"] == "Viiden suora"
    assert rules_title(rules_named("five+popout")).render("fi") == "Viiden suora Pop Out"


def test_italian() -> None:
    said = instead(Move.drop(2), 2, Move.drop(7), 7).render("it")
    assert said == "La mossa del computer è un inserimento nella colonna 2, non nella colonna 7."
    assert page("it", "computer_move", move="2").endswith("eseguila tu sulla griglia.")
    assert page("it", "result_draw") == "pareggio"
    assert page("it", "archive") == "Partite concluse"
    assert page("it", "result_unknown") == "non conclusa"
    assert page("it", "download") == "Scarica la partita"
    assert page("it", "level_highest", level=10) == "10: massima forza"


def test_greek() -> None:
    said = instead(Move.drop(2), 2, Move.drop(7), 7).render("el")
    assert said == "Η κίνηση του υπολογιστή είναι ρίξιμο στη στήλη 2, όχι στη στήλη 7."
    assert page("el", "computer_move", move="2").endswith("κάντε τη εσείς στο ταμπλό.")
    assert page("el", "from_next_game").endswith("(στο τρέχον, μόνο πριν από την πρώτη κίνηση).")
    # the "Ορισμός" buttons are gone: each menu applies its choice on change
    # "10: πλήρης δύναμη" was cut off in the level menu
    assert len(page("el", "level_highest", level=10)) < len("10: πλήρης δύναμη")


def test_czech() -> None:
    assert page("cs", "confirm_abandon") == "Ukončit rozehranou hru?"
    assert page("cs", "abandon") == "Ukončit"
    referee = Referee(Table(), "classic")
    referee.handle(DiscEntered(4, at=1.0))
    asked = referee.handle(ButtonHeld(at=2.0)).log[0]
    assert _czech(asked) == "Dalším podržením tlačítka režimu tuto hru ukončíte."
    ignored = referee.choose_level(11).log[0]
    assert _czech(ignored) == "Úroveň 11 se nepoužije: počítač hraje na úrovních 1 až 10."
    said = instead(Move.drop(2), 2, Move.drop(7), 7).render("cs")
    assert said == "Tah počítače je vhození do sloupce 2, ne do sloupce 7."
    assert page("cs", "computer_move", move="2").endswith("proveďte ho za něj na desce.")


def _czech(sentence: str) -> str:
    from controller.i18n.text import render

    czech = render(sentence, "cs")
    assert czech is not None
    return czech


# Each language's one word for the board (English says "grid" for the discs'
# frame and "board" for the whole of it; a player sees one thing), and the
# words it replaced. "Abandon" a game: Czech "vzdát" is to resign.
NOT_SAID = {
    "fi": re.compile(r"\b(ruudu|ruutu|lauta|laud)"),  # "pelilauta" only
    "it": re.compile(r"\btabellon"),
    "el": re.compile(r"πλέγμα"),
    "cs": re.compile(r"\b(mřížk|vzd)"),
}


@pytest.mark.parametrize("language", list(NOT_SAID))
def test_one_word_for_the_board(language: str) -> None:
    catalog = catalogs.read(catalogs.po_path(language), language)
    for message in catalog:
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple | list) else [message.string]
        for form in forms:
            assert not NOT_SAID[language].search((form or "").lower()), (message.id, form)


# Each language's one word for the slider that empties the grid, in whatever
# form its sentence needs (two words for it crept in with linked grids).
SLIDER = {"fi": "liukuluuk", "it": "barra scorrevole", "el": "συρτ", "cs": "šoupát"}


@pytest.mark.parametrize("language", list(SLIDER))
def test_one_word_for_the_slider(language: str) -> None:
    catalog = catalogs.read(catalogs.po_path(language), language)
    for message in catalog:
        ids = message.id if isinstance(message.id, tuple | list) else [message.id]
        # the simulator's commands ('slider open') are not words to translate
        words = [re.sub(r"'slider [a-z]+'", "", one or "").lower() for one in ids]
        if not any("slider" in one for one in words):
            continue
        forms = message.string if isinstance(message.string, tuple | list) else [message.string]
        for form in forms:
            assert SLIDER[language] in (form or "").lower(), (message.id, form)
