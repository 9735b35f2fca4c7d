"""The game's own words in every language: the colours (a player, or a disc),
the rules' titles, who plays. Sentences take them as values
(:mod:`controller.i18n.text`), so each language keeps one word for each thing.

>>> player(Colour.RED).render("fi"), disc(Colour.YELLOW).render("el")
('Punainen', 'κίτρινο')
>>> title_of("five+pop10"), rules_title(rules_named("pop10")).render("it")
('5-in-a-Row Pop 10', 'Pop 10')
"""

from __future__ import annotations

from controller.i18n.text import Message, Text, Value, _p, _t
from engine import Rules, rules_named
from engine.colour import Colour
from engine.sentence import Sentence

__all__ = ["disc", "player", "plays_with", "reason", "rules_named", "rules_title", "title_of"]


def player(colour: Colour) -> Text:
    """The player of ``colour``, as a sentence names them ("Red wins")."""
    return _p("player", "Red") if colour is Colour.RED else _p("player", "Yellow")


def disc(colour: Colour) -> Text:
    """The colour of a disc, as "drop a Red disc" names it."""
    return _p("disc", "Red") if colour is Colour.RED else _p("disc", "Yellow")


def plays_with(colour: Colour) -> Text:
    """The colour the computer plays with, as the page's menu "The computer
    plays: [Red]" names it (the same words: Finnish says "pelaa punaisilla")."""
    # Translators: the colour the computer plays with ("The computer plays Red.")
    return _t("Red") if colour is Colour.RED else _t("Yellow")


def rules_title(rules: Rules) -> Text:
    """The rules' title (:attr:`engine.Rules.title`) in the reader's language."""
    return reason(rules.title)


def title_of(name: str) -> Text:
    """The title of the rules called ``name`` (``"five+popout"``)."""
    return rules_title(rules_named(name))


def reason(why: str) -> Text:
    """A sentence made where no language is known (an
    :class:`engine.sentence.Sentence`: the engine's reason a move is not
    allowed, a rules title, a sensor fault), to be said in the reader's
    language; any other str stays as it is.

    >>> reason(Sentence("column {column} is full", column=3)).render("it")
    'la colonna 3 è piena'
    """
    if not isinstance(why, Sentence):
        return Text([why])
    values: list[tuple[str, Value]] = []
    for name, value in why.values.items():
        if isinstance(value, Colour):
            values.append((name, player(value)))
        elif isinstance(value, Rules):
            values.append((name, rules_title(value)))
        elif isinstance(value, int | str):
            values.append((name, value))
        else:
            values.append((name, str(value)))
    return Text([Message(why.template, tuple(values))])
