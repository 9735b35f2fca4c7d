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
import json
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.resources.abc import Traversable
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
# A text read back from the journal (Text.from_data): at most this long in
# English, each template, literal piece and value at most PIECE_LIMIT
# characters, whole numbers within NUMBER_LIMIT, texts within values at most
# DEPTH_LIMIT deep.
TEXT_LIMIT = 2000
PIECE_LIMIT = 1000
NUMBER_LIMIT = 2**63 - 1
DEPTH_LIMIT = 4
MESSAGE_KEYS = frozenset({"id", "values", "plural", "count", "context"})

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
    def from_data(cls, data: Any, depth: int = 0) -> Text:
        """The text :meth:`data` wrote, exactly; ``ValueError`` (a short
        reason) for anything else, and for a text longer than
        :data:`TEXT_LIMIT` or nested deeper than :data:`DEPTH_LIMIT` (it
        comes from a file: a forged one must not make start-up format a
        field 10**10 characters wide).

        >>> Text.from_data([{"id": "Column {c}.", "values": {"c": 4}}])
        'Column 4.'
        >>> Text.from_data([{"id": "Column {c:>9999999999}.", "values": {"c": 4}}])
        Traceback (most recent call last):
        ...
        ValueError: the field {c:>9999999999} of a message is not a plain {name} of its values
        """
        if not isinstance(data, list):
            raise ValueError("a text is a list of pieces")
        if depth > DEPTH_LIMIT:
            raise ValueError(f"a text nested more than {DEPTH_LIMIT} deep")
        pieces = [_literal(p) if isinstance(p, str) else _message_from(p, depth) for p in data]
        if sum(len(p) if isinstance(p, str) else _english_size(p) for p in pieces) > TEXT_LIMIT:
            raise ValueError(f"a text longer than {TEXT_LIMIT} characters")
        return cls(pieces)


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
    with translations_file(language).open("rb") as mo:
        return gettext.GNUTranslations(mo)


def translations_file(language: str) -> Traversable:
    """Where the compiled catalog of ``language`` (not English) is installed."""
    path = importlib.resources.files("controller.i18n") / "locale" / language / "LC_MESSAGES"
    return path / f"{DOMAIN}.mo"


def catalog(language: str, messages: Mapping[str, str]) -> dict[str, str]:
    """``messages`` (key: English) in ``language``: the page's own sentences."""
    found = translations(language)
    return {key: found.gettext(english) for key, english in messages.items()}


@functools.cache
def _plurals() -> dict[str, Any]:
    with (importlib.resources.files("controller.i18n") / "locale" / "plurals.json").open() as f:
        table: dict[str, Any] = json.load(f)
    return table


def plural_categories(language: str) -> dict[str, int]:
    """The plural form (its index among a sentence's :func:`plural_forms`)
    that each CLDR plural category takes in ``language``: what a browser's
    ``Intl.PluralRules`` says of a count picks the form gettext would
    (``controller.i18n.catalogs`` works it out with the catalogs).

    >>> plural_categories("cs")
    {'few': 1, 'one': 0, 'other': 2}
    """
    return dict(_plurals()[known(language) or ENGLISH]["categories"])


def plural_forms(language: str, singular: str, plural: str) -> list[str]:
    """Every plural form of a sentence in ``language``, in the catalog's order."""
    found = translations(language)
    counts = _plurals()[known(language) or ENGLISH]["counts"]
    return [found.ngettext(singular, plural, n) for n in counts]


# -- who reads which language ------------------------------------------------------------


def choose(accept_language: str | None) -> str:
    """The best language of ours for an ``Accept-Language`` header (English
    when none of ours is wanted): its tags by weight, matched by Babel
    (``fi-FI`` is Finnish)."""
    # imported by the first request that asks, not by every start of popref
    from babel.core import negotiate_locale

    found = negotiate_locale(_by_weight(accept_language or ""), LANGUAGES, sep="-", aliases={})
    return known(found) or ENGLISH


def _by_weight(header: str) -> list[str]:
    """The language tags of an ``Accept-Language`` header, the most wanted
    first (a tag weighted ``q=0`` is not wanted at all)."""
    weighted: list[tuple[float, int, str]] = []
    for index, item in enumerate(header.split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag.strip() and quality > 0:
            weighted.append((-quality, index, tag.strip()))
    return [tag for _, _, tag in sorted(weighted)]


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


def _message_from(data: Any, depth: int) -> Message:
    """A message as :func:`_message_data` writes it, and nothing else."""
    if not isinstance(data, dict) or not data.keys() <= MESSAGE_KEYS or "id" not in data:
        raise ValueError("a message is an object of id and maybe values, plural, count, context")
    if ("plural" in data) != ("count" in data):
        raise ValueError("a message has a plural and its count, or neither")
    msgid = _literal(data["id"])
    values = _values(data["values"], depth) if "values" in data else ()
    plural = _literal(data["plural"]) if "plural" in data else None
    count = data.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or abs(count) > NUMBER_LIMIT:
        raise ValueError("a message's count is not a whole number")
    context = _literal(data["context"]) if "context" in data else None
    message = Message(msgid, values, plural, count, context)
    if values or plural is not None:  # formatted when rendered: every field a plain name
        names = {name for name, _ in values}
        for pattern in (msgid, plural or ""):
            _check_fields(pattern, names)
    return message


def _values(data: Any, depth: int) -> tuple[tuple[str, Value], ...]:
    if not isinstance(data, dict) or not data:
        raise ValueError("a message's values are not an object of names")
    values: list[tuple[str, Value]] = []
    for name, value in data.items():
        if not name.isidentifier():
            raise ValueError(f"a message value's name {name[:20]!r} is not a name")
        if isinstance(value, list):
            values.append((name, Text.from_data(value, depth + 1)))
        elif isinstance(value, str):
            values.append((name, _literal(value)))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) <= NUMBER_LIMIT:
            values.append((name, value))
        else:
            raise ValueError(f"message value {name[:20]!r} is neither text nor a whole number")
    return tuple(values)


def _literal(data: Any) -> str:
    if not isinstance(data, str) or len(data) > PIECE_LIMIT:
        raise ValueError(f"a piece of a text is not a string of at most {PIECE_LIMIT} characters")
    return data


def _check_fields(pattern: str, names: set[str]) -> None:
    try:
        fields = list(string.Formatter().parse(pattern))
    except ValueError:
        raise ValueError("a message whose braces do not pair up") from None
    for _, name, spec, conversion in fields:
        if name is not None and (name not in names or spec or conversion):
            field = (
                "{"
                + name
                + (f"!{conversion}" if conversion else "")
                + (f":{spec}" if spec else "")
                + "}"
            )
            raise ValueError(
                f"the field {field[:40]} of a message is not a plain {{name}} of its values"
            )


def _english_size(message: Message) -> int:
    """How long ``message`` is in English at most (its values' English sizes
    are known: a text's English is its own string)."""
    sizes = {name: len(str(value)) for name, value in message.values}
    longest = 0
    for pattern in (message.msgid, message.plural or ""):
        if not (message.values or message.plural is not None):
            longest = max(longest, len(pattern))
            continue
        parsed = string.Formatter().parse(pattern)
        size = sum(len(literal) + (sizes[name] if name else 0) for literal, name, _, _ in parsed)
        longest = max(longest, size)
    return longest


def placeholders(pattern: str) -> set[str]:
    """The ``{names}`` in a message (for the catalog checks)."""
    return {name for _, name, _, _ in string.Formatter().parse(pattern) if name}
