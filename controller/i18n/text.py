"""The players' languages: which one a reader gets, and each sentence in it.

A sentence for people is a :class:`Text`: a ``str`` holding its English (so
logs, ``simulate --json`` and every comparison see plain English) that also
keeps the message and its values, so each reader can have it in their own
language at the last moment: the page in the browser's, the terminal in the
locale's. The catalogs are gettext's, compiled, under ``controller/i18n/locale``
(docs/languages.md says how to extract, translate and compile them).

>>> text = _t("Pop the bottom disc out of column {column}.", column=4)
>>> text
'Pop the bottom disc out of column 4.'
>>> text.render("it")
'Togli il disco in basso dalla colonna 4.'
>>> steps = _n("({n} more step after this.)", "({n} more steps after this.)", 3)
>>> sentences(text, steps).render("cs")
'Vysuňte spodní disk ze sloupce 4. (Potom ještě 3 kroky.)'
>>> choose("fi-FI,fi;q=0.9,en;q=0.8"), choose("de, it;q=0.5"), choose("")
('fi', 'it', 'en')
"""

from __future__ import annotations

import functools
import gettext
import importlib.resources
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Union

DOMAIN = "popref"
ENGLISH = "en"
# The languages of the game's web table, with their own names for the menu.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "fi": "Suomi",
    "it": "Italiano",
    "el": "Ελληνικά",
    "cs": "Čeština",
}
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# The fields of the state object that are sentences for people.
TEXT_FIELDS = ("status", "fault", "title")

Value = Union[int, str, "Text"]


@dataclass(frozen=True, slots=True)
class Message:
    """One catalog entry with its values: ``plural`` and ``count`` for a
    sentence with a number in it, ``context`` for a word with several uses."""

    msgid: str
    values: tuple[tuple[str, Value], ...] = ()
    plural: str | None = None
    count: int = 1
    context: str | None = None

    def render(self, language: str) -> str:
        catalog = translations(language)
        if self.plural is not None:
            pattern = catalog.ngettext(self.msgid, self.plural, self.count)
        elif self.context is not None:
            pattern = catalog.pgettext(self.context, self.msgid)
        else:
            pattern = catalog.gettext(self.msgid)
        values = {name: _rendered(value, language) for name, value in self.values}
        return pattern.format(**values) if values or self.plural else pattern


class Text(str):
    """A sentence (or several) for people: English as a string, any other
    language by :meth:`render`. Literal ``str`` pieces are never translated
    (moves in notation, file names); :class:`Message` pieces are."""

    pieces: tuple[Message | str, ...]

    def __new__(cls, pieces: Iterable[Message | str]) -> Text:
        kept = tuple(pieces)
        self = super().__new__(cls, "".join(_piece(p, ENGLISH) for p in kept))
        self.pieces = kept
        return self

    def render(self, language: str) -> str:
        """This text in ``language`` (English for a language without a catalog)."""
        if language == ENGLISH:
            return str.__str__(self)
        return "".join(_piece(p, language) for p in self.pieces)

    def data(self) -> list[Any]:
        """A JSON-able form, for the journal (see :meth:`from_data`)."""
        return [p if isinstance(p, str) else _message_data(p) for p in self.pieces]

    @classmethod
    def from_data(cls, data: Any) -> Text:
        """A text from :meth:`data`; raises ``ValueError`` for anything else."""
        if not isinstance(data, list):
            raise ValueError("a text is a list of pieces")
        return cls(p if isinstance(p, str) else _message_from(p) for p in data)


def _t(msgid: str, **values: Value) -> Text:
    """The sentence ``msgid`` (its English, ``{name}`` for each value)."""
    return Text([Message(msgid, tuple(values.items()))])


def _n(singular: str, plural: str, n: int, **values: Value) -> Text:
    """A sentence with a count ``n`` (``{n}`` in it), in the plural form each
    language needs for it."""
    return Text([Message(singular, (("n", n), *values.items()), plural, n)])


def _p(context: str, msgid: str) -> Text:
    """A word in one of its uses (``context``), for languages that inflect it."""
    return Text([Message(msgid, context=context)])


def N_(msgid: str) -> str:
    """Marks ``msgid`` for the catalogs where it is translated later."""
    return msgid


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a sentence with a count for the catalogs (see :func:`plural_forms`)."""
    return singular, plural


def sentences(*parts: str | None, separator: str = " ") -> Text:
    """``parts`` (those that are set) one after another, each in the reader's
    language; a plain ``str`` part stays as it is."""
    pieces: list[Message | str] = []
    for part in parts:
        if not part:
            continue
        if pieces and separator:
            pieces.append(separator)
        pieces.extend(part.pieces if isinstance(part, Text) else (str(part),))
    return Text(pieces)


def render(text: str | None, language: str) -> str | None:
    """``text`` for a reader of ``language``; a plain ``str`` is English only."""
    if isinstance(text, Text):
        return text.render(language)
    return text


def localized(state: Mapping[str, Any], language: str) -> dict[str, Any]:
    """A state object (:mod:`controller.referee.state`) with its sentences in
    ``language``; every other field as it is."""
    shown = dict(state)
    if language != ENGLISH:
        for name in TEXT_FIELDS:
            if isinstance(shown.get(name), Text):
                shown[name] = shown[name].render(language)
    return shown


# -- the catalogs -----------------------------------------------------------------------


@functools.cache
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of ``language`` (English: the messages themselves)."""
    if language == ENGLISH or language not in LANGUAGES:
        return gettext.NullTranslations()
    path = importlib.resources.files("controller.i18n") / "locale" / language / "LC_MESSAGES"
    with (path / f"{DOMAIN}.mo").open("rb") as mo:
        return gettext.GNUTranslations(mo)


def catalog(language: str, messages: Mapping[str, str]) -> dict[str, str]:
    """``messages`` (key: English) in ``language``: the page's own sentences."""
    found = translations(language)
    return {key: found.gettext(english) for key, english in messages.items()}


def plural_forms(language: str, singular: str, plural: str) -> list[str]:
    """Every plural form of a sentence in ``language``, in the catalog's order."""
    found = getattr(translations(language), "_catalog", {})
    forms: list[str] = []
    while (singular, len(forms)) in found:
        forms.append(found[(singular, len(forms))])
    return forms or [singular, plural]


def plural_rule(language: str) -> str:
    """The catalog's ``Plural-Forms`` header for ``language``."""
    if language == ENGLISH or language not in LANGUAGES:
        return "nplurals=2; plural=(n != 1);"
    info = translations(language).info()
    return info.get("plural-forms", "nplurals=2; plural=(n != 1);")


# -- who reads which language ------------------------------------------------------------


def choose(accept_language: str | None) -> str:
    """The best language of ours for an ``Accept-Language`` header (English
    when none of ours is wanted)."""
    wanted: list[tuple[float, int, str]] = []
    for index, item in enumerate((accept_language or "").split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and quality > 0:
            wanted.append((-quality, index, code))
    return min(wanted)[2] if wanted else ENGLISH


def known(code: str | None) -> str | None:
    """``code`` (``fi``, ``fi_FI.UTF-8``, ``fi-FI``) as one of ours, or ``None``."""
    if not code:
        return None
    base = code.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return base if base in LANGUAGES else None


def from_locale(environ: Mapping[str, str]) -> str:
    """The terminal's language from the locale variables, in gettext's order
    (``LANGUAGE`` may list several, ``a:b``); English when none is ours."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if not value:
            continue
        if variable == "LANGUAGE":
            for code in value.split(":"):
                if (found := known(code)) is not None:
                    return found
            continue
        # C and POSIX mean "no translation", as they do for gettext
        return known(value) or ENGLISH
    return ENGLISH


# -- the pieces ---------------------------------------------------------------------------


def _piece(piece: Message | str, language: str) -> str:
    return piece if isinstance(piece, str) else piece.render(language)


def _rendered(value: Value, language: str) -> str:
    if isinstance(value, Text):
        return value.render(language)
    return str(value)


def _message_data(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {"id": message.msgid}
    values = {n: v.data() if isinstance(v, Text) else v for n, v in message.values}
    if values:
        data["values"] = values
    if message.plural is not None:
        data["plural"], data["count"] = message.plural, message.count
    if message.context is not None:
        data["context"] = message.context
    return data


def _message_from(data: Any) -> Message:
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise ValueError("a message has an id")
    values: list[tuple[str, Value]] = []
    for name, value in dict(data.get("values", {})).items():
        if isinstance(value, list):
            values.append((str(name), Text.from_data(value)))
        elif isinstance(value, int | str) and not isinstance(value, bool):
            values.append((str(name), value))
        else:
            raise ValueError(f"message value {name!r} is neither text nor a number")
    plural = data.get("plural")
    return Message(
        data["id"],
        tuple(values),
        plural if isinstance(plural, str) else None,
        int(data.get("count", 1)),
        data.get("context") if isinstance(data.get("context"), str) else None,
    )


def placeholders(pattern: str) -> set[str]:
    """The ``{names}`` in a message (for the catalog checks)."""
    return {name for _, name, _, _ in string.Formatter().parse(pattern) if name}
