"""The catalogs: every sentence in every language, current with the source,
placeholders kept, plural forms right; and the languages readers get."""

from __future__ import annotations

import gettext
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural

from controller.daemon.config import parse_config
from controller.i18n import catalogs
from controller.i18n import text as i18n
from controller.i18n.text import LANGUAGES, Text, _n, _t, choose, from_locale, sentences
from controller.simulator.simulation import Simulation
from controller.simulator.terminal import interact
from hardware.errors import ConfigError

TRANSLATED = [language for language in LANGUAGES if language != i18n.ENGLISH]


def read(language: str) -> Catalog:
    return catalogs.read(catalogs.po_path(language), language)


def forms(message: Message) -> tuple[str, ...]:
    string = message.string
    return tuple(string) if isinstance(string, list | tuple) else (string or "",)


def ids(message: Message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, list | tuple) else (message.id,)


def entries(catalog: Catalog) -> list[Message]:
    return [message for message in catalog if message.id]


# -- the catalogs -------------------------------------------------------------------------


def test_the_template_holds_every_sentence_of_the_source() -> None:
    """A sentence added (or changed) in the code without running
    ``python -m controller.i18n.catalogs`` fails here."""
    extracted = set(catalogs.messages(catalogs.extract()))
    assert extracted, "nothing extracted: are the markers still _t, _n, _p, N_, Nn_?"
    template = set(catalogs.messages(catalogs.read(catalogs.TEMPLATE)))
    assert not extracted - template, "run python -m controller.i18n.catalogs: the .pot is stale"
    assert not template - extracted, "run python -m controller.i18n.catalogs: the .pot has old ones"


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_message_is_translated(language: str) -> None:
    template = set(catalogs.messages(catalogs.extract()))
    catalog = read(language)
    assert set(catalogs.messages(catalog)) == template, f"{language}: run the catalog tool"
    missing = [m.id for m in entries(catalog) if not all(forms(m)) or m.fuzzy]
    assert not missing, f"{language} lacks translations for {missing}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_placeholders_are_kept(language: str) -> None:
    for message in entries(read(language)):
        wanted = set().union(*(i18n.placeholders(m) for m in ids(message)))
        for form in forms(message):
            assert i18n.placeholders(form) == wanted, f"{language}: {message.id!r} -> {form!r}"
            # and it formats: no stray brace
            form.format(**{name: "x" for name in wanted})


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_plural_forms_are_the_languages_own(language: str) -> None:
    catalog = read(language)
    expected = get_plural(language)
    assert catalog.num_plurals == expected.num_plurals
    rule = gettext.c2py(catalog.plural_expr)
    # every form is reachable (Italian's second is for millions)
    counts = [*range(1000), 1_000_000, 2_000_000]
    assert {rule(n) for n in counts} == set(range(catalog.num_plurals))
    for message in entries(catalog):
        if message.pluralizable:
            assert len(forms(message)) == catalog.num_plurals, message.id


def test_czech_and_finnish_counts_read_right() -> None:
    steps = [
        _n("({n} more step after this.)", "({n} more steps after this.)", n) for n in (1, 3, 5)
    ]
    assert [s.render("cs") for s in steps] == [
        "(Potom ještě 1 krok.)",
        "(Potom ještě 3 kroky.)",
        "(Potom ještě 5 kroků.)",
    ]
    assert [s.render("fi") for s in steps[:2]] == [
        "(Tämän jälkeen vielä 1 vaihe.)",
        "(Tämän jälkeen vielä 3 vaihetta.)",
    ]


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_compiled_catalogs_match_the_sources(language: str) -> None:
    """The .mo files are committed (an install compiles nothing): each must
    be exactly what its .po compiles to."""
    fresh = catalogs.compiled(read(language))
    assert catalogs.mo_path(language).read_bytes() == fresh, (
        "run python -m controller.i18n.catalogs"
    )


def test_the_plural_table_is_the_catalogs() -> None:
    """The page's table of plural categories (plurals.json) is made from the
    catalogs: a language whose Plural-Forms changes without the tool run
    fails here."""
    fresh = catalogs.plurals_file({language: read(language) for language in LANGUAGES})
    assert catalogs.PLURALS.read_bytes() == fresh, "run python -m controller.i18n.catalogs"


def test_the_extraction_order_is_the_files_and_lines() -> None:
    """Every checkout writes the same catalogs: messages in the order of
    their files' paths and lines, not of the filesystem's listing."""
    template = catalogs.extract()
    places = [message.locations[0] for message in template if message.id]
    assert places == sorted(places)


# -- texts --------------------------------------------------------------------------------


def test_a_text_is_its_english_and_travels_the_journal() -> None:
    text = sentences(_t("Sensor fault on {sensor}.", sensor="entry 3"), "p4")
    assert text == "Sensor fault on entry 3. p4"
    assert json.dumps({"status": text}) == '{"status": "Sensor fault on entry 3. p4"}'
    again = Text.from_data(json.loads(json.dumps(text.data())))
    assert again.render("fi") == text.render("fi") == "Anturivika: entry 3. p4"
    with pytest.raises(ValueError):
        Text.from_data({"id": 3})


def test_accept_language_and_the_locale_choose() -> None:
    assert choose("el-GR,el;q=0.9") == "el"
    assert choose("de-DE, cs;q=0.4, it;q=0.6") == "it"
    assert choose("fi;q=0, en") == "en"
    assert choose("*") == choose(None) == "en"
    assert from_locale({"LANG": "cs_CZ.UTF-8"}) == "cs"
    assert from_locale({"LANGUAGE": "de:it", "LANG": "fi_FI.UTF-8"}) == "it"
    assert from_locale({"LC_ALL": "C", "LANG": "fi_FI.UTF-8"}) == "en"
    assert from_locale({"LC_MESSAGES": "el_GR.UTF-8"}) == "el"
    assert from_locale({}) == "en"


# -- the terminal ---------------------------------------------------------------------------


def test_the_terminal_speaks_czech_by_ui_language(tmp_path: Path) -> None:
    config = parse_config({"ui": {"language": "cs"}}, "test.toml")
    assert config.ui.language == "cs"
    simulation = Simulation(config, tmp_path / "state")
    out = io.StringIO()
    try:
        interact(simulation, io.StringIO("4\np4\n?\nx\np1\n"), out, config.ui.language)
    finally:
        simulation.close()
    said = out.getvalue()
    assert "Na tahu je Červený, Klasika." in said
    assert "světlo tahu: Žlutý" in said
    assert "Vhoďte červený disk do sloupce 4." in said  # the repair after the stray pop
    assert "Akce (jedna na řádek):" in said
    assert "'x' není akce; pro nápovědu napište ?" in said
    assert "ve sloupci 1 není žádný disk k vysunutí" in said  # the simulated grid refuses
    assert "Red" not in said and "Yellow" not in said


def test_ui_language_is_checked() -> None:
    with pytest.raises(ConfigError, match=r"^test.toml: \[ui\] language: 'de' is not a language"):
        parse_config({"ui": {"language": "de"}}, "test.toml")
    assert parse_config({}, "test.toml").ui.language is None


def test_the_terminal_follows_the_locale_log_lines_too(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in i18n.LOCALE_VARIABLES}
    env["LANG"] = "fi_FI.UTF-8"
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "simulate", "--state-dir", str(tmp_path)],
        input="4\np4\nq\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert "Kirjoita ? saadaksesi ohjeet." in done.stdout
    assert "Vuorossa Keltainen, Klassinen." in done.stdout
    # the referee's own sentences, logged to the terminal as they happen
    assert "Punainen teki siirron: pudotus sarakkeeseen 4." in done.stderr
    assert "Keltainen: ulostyöntö sarakkeesta 4 ei ole sallittu: Klassinen: kiekkoja ei" in (
        done.stderr
    )


def test_a_sensor_fault_is_said_in_the_readers_language(tmp_path: Path) -> None:
    # The diagnosis comes from hardware/ (a stuck beam on the sensor board);
    # the referee keeps its template, so the page in Finnish says all of it.
    from hardware.events import SensorFault
    from hardware.serial_counts import _blocked

    sim = Simulation(parse_config({}, "test"), tmp_path)
    message = _blocked("exit", 3)
    assert message == (
        "The exit beam of column 3 has been blocked for seconds; "
        "clear the bottom of the column or check that sensor's wiring."
    )
    sim.daemon.referee.handle(SensorFault("exit 3", message))
    fault = sim.display().fault
    assert isinstance(fault, Text)
    assert message in fault  # the English is unchanged
    finnish = fault.render("fi")
    assert "Sarakkeen 3 poistumissäde on ollut katki sekunteja" in finnish
    assert "blocked" not in finnish
