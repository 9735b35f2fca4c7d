"""A sentence for people, made where no language is known: its English, and
its template and values, so the controller can say it in each reader's own
(its catalogs hold the templates; ``Sentence("...")`` marks them for the
catalog tool). The engine's reasons for a refused move and its rules'
titles, the sensors' faults and the simulated grid's refusals are all
Sentences; the controller renders any of them
(:func:`controller.i18n.words.reason`).

>>> said = Sentence("column {column} is full", column=3)
>>> said, said.template, said.values
('column 3 is full', 'column {column} is full', {'column': 3})

A value that has a ``title`` (a :class:`~engine.colour.Colour`, a rules
value) reads as it in English.
"""

from __future__ import annotations

from engine.colour import Colour


class Sentence(str):
    """A sentence as its English that keeps its template and values."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, **values: object) -> Sentence:
        english = template.format(**{name: _english(value) for name, value in values.items()})
        self = super().__new__(cls, english)
        self.template = template
        self.values = values
        return self


def _english(value: object) -> object:
    if isinstance(value, Colour):  # a str too, whose value is lower case
        return value.title
    if isinstance(value, int | str):
        return value
    return getattr(value, "title", value)  # the rules
