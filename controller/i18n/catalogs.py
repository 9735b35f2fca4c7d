"""The catalogs under controller/i18n/locale, made with Babel, in a checkout.

``python -m controller.i18n.catalogs`` extracts every marked sentence of
``controller/`` (and the Sentences of ``engine/`` and ``hardware/``) into
``popref.pot``, in the order of their files' paths and lines (so every
checkout writes the same files), merges it into each language's
``popref.po`` (new sentences empty, for a translator; English is the
messages themselves), compiles each ``popref.mo``, which popref reads at
runtime with the standard library's gettext, and writes ``plurals.json``:
for each language, the CLDR plural category of each of its gettext plural
forms (what the browser's ``Intl.PluralRules`` says), and a count that takes
each form. tests/test_i18n.py uses the same functions to fail on a catalog
that is stale or incomplete.
"""

from __future__ import annotations

import copy
import gettext
import io
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from controller.i18n.text import DOMAIN, ENGLISH, LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
LOCALE = Path(__file__).resolve().parent / "locale"
TEMPLATE = LOCALE / f"{DOMAIN}.pot"
PLURALS = LOCALE / "plurals.json"
# every count up to here, and two millions (Italian's second form is for millions)
COUNTS = (*range(1001), 1_000_000, 2_000_000)
# controller.i18n.text's markers: _t(msgid), _n(singular, plural, n), _p(context, msgid),
# N_(msgid), Nn_(singular, plural); and the sentences made in engine/ and hardware/
# (the engine's reasons and titles, the sensors' faults, the simulated grid's
# refusals), Sentence(template, ...)
KEYWORDS = {
    "_t": None,
    "_n": (1, 2),
    "_p": ((1, "c"), 2),
    "N_": None,
    "Nn_": (1, 2),
    "Sentence": None,
}
SOURCES = [
    ("controller/**.py", "python"),
    ("engine/**.py", "python"),
    ("hardware/**.py", "python"),
]
HEADER = """\
# popref's sentences in {name}: the referee's, the page's, the simulator's.
# Made by `python -m controller.i18n.catalogs`; translate the empty msgstr, then run it again.
#"""
TEMPLATE_HEADER = "# popref's sentences for people, by `python -m controller.i18n.catalogs`.\n#"
EPOCH = datetime(2026, 12, 1, tzinfo=UTC)  # fixed dates: no churn in the files


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def extract() -> Catalog:
    """Every marked sentence of :data:`SOURCES`, by file path and line."""
    template = Catalog(
        project="popref",
        version="0.1",
        copyright_holder="popref",
        header_comment=TEMPLATE_HEADER,
        creation_date=EPOCH,
        revision_date=EPOCH,
        fuzzy=False,
    )
    found = extract_from_dir(
        str(ROOT),
        method_map=SOURCES,
        keywords=KEYWORDS,
        comment_tags=("Translators:",),
        strip_comment_tags=True,
    )
    # by path and line, not in the order the filesystem lists the files
    for filename, line, message, comments, context in sorted(found, key=lambda f: f[:2]):
        template.add(message, None, [(filename, line)], auto_comments=comments, context=context)
    return template


def read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=language, domain=DOMAIN)


def written(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=88, no_location=True, ignore_obsolete=True)
    return out.getvalue()


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def merged(template: Catalog, language: str) -> Catalog:
    """The language's catalog with ``template``'s messages: translations kept,
    new messages empty (English: the message itself)."""
    path = po_path(language)
    if path.exists():
        catalog = read(path, language)
    else:
        catalog = Catalog(
            locale=language, domain=DOMAIN, project="popref", version="0.1", fuzzy=False
        )
        catalog.creation_date = catalog.revision_date = EPOCH
    # a copy: update() may take the template's own message objects
    catalog.update(copy.deepcopy(template), no_fuzzy_matching=True, update_creation_date=False)
    catalog.header_comment = HEADER.format(name=LANGUAGES[language])
    catalog.last_translator = "popref"
    catalog.language_team = f"{LANGUAGES[language]} <{language}>"
    if language == ENGLISH:
        for message in catalog:
            if message.id:
                message.string = message.id
    return catalog


def messages(catalog: Catalog) -> Iterator[tuple[object, str | None]]:
    """The (id, context) of each message of ``catalog`` but the header."""
    for message in catalog:
        if message.id:
            yield message.id, message.context


def plural_categories(catalog: Catalog, language: str) -> dict[str, Any]:
    """For ``language``: ``categories``, the gettext form (its index in the
    catalog's plural forms) that each CLDR plural category takes, and
    ``counts``, a count that takes each form. ``ValueError`` where the
    catalog's ``Plural-Forms`` and CLDR disagree about a count."""
    rule = gettext.c2py(catalog.plural_expr)
    cldr = Locale.parse(language)
    categories: dict[str, int] = {}
    counts: dict[int, int] = {}
    for n in COUNTS:
        form, category = rule(n), cldr.plural_form(n)
        if categories.setdefault(category, form) != form:
            raise ValueError(
                f"{language}: the catalog's Plural-Forms gives {n} form {form}, but CLDR's "
                f"{category!r} is form {categories[category]}: fix its Plural-Forms"
            )
        counts.setdefault(form, n)
    return {"categories": categories, "counts": [counts[f] for f in sorted(counts)]}


def plurals_file(catalogs: dict[str, Catalog]) -> bytes:
    table = {language: plural_categories(c, language) for language, c in catalogs.items()}
    return (json.dumps(table, indent=2, sort_keys=True) + "\n").encode()


def main() -> int:
    template = extract()
    LOCALE.mkdir(exist_ok=True)
    TEMPLATE.write_bytes(written(template))
    catalogs = {}
    for language in LANGUAGES:
        catalog = catalogs[language] = merged(template, language)
        po_path(language).parent.mkdir(parents=True, exist_ok=True)
        po_path(language).write_bytes(written(catalog))
        mo_path(language).write_bytes(compiled(catalog))
        missing = sum(1 for m in catalog if m.id and not all(_strings(m.string)))
        print(f"{language}: {len(catalog)} messages, {missing} untranslated")
    PLURALS.write_bytes(plurals_file(catalogs))
    return 0


def _strings(string: object) -> tuple[str, ...]:
    if isinstance(string, tuple | list):
        return tuple(string)
    return (str(string or ""),)


if __name__ == "__main__":
    sys.exit(main())
