"""The page's own sentences, by the key ``t(key, values)`` in
``static/strings.js`` looks them up with; served in the reader's language by
``GET /api/strings`` from the same catalogs as the referee's sentences.

>>> strings("fi")["moves"], plurals("cs")["move_count"], titles("fi")["five"]
('Siirrot', ['{n} tah', '{n} tahy', '{n} tahů'], 'Viiden suora')
"""

from __future__ import annotations

from typing import Any

from controller.i18n.text import LANGUAGES, N_, Nn_, catalog, plural_categories, plural_forms
from controller.i18n.words import title_of
from engine import RULES_NAMES

PAGE: dict[str, str] = {
    "title": N_("popref"),
    "connecting": N_("connecting"),
    "live": N_("live"),
    "offline": N_("reconnecting"),
    "language": N_("Language"),
    "moves": N_("Moves"),
    "no_moves": N_("No moves yet."),
    "controls": N_("Controls"),
    "not_paired": N_(
        "This browser is not paired: press Pair, then the mode button on the board "
        "when its lights match the ones shown here."
    ),
    "paired": N_("This browser is paired: it may change the game."),
    "pair": N_("Pair this browser"),
    "pair_failed": N_("Nobody pressed the mode button in time; press Pair to try again."),
    "pair_done": N_("Paired."),
    "next_rules": N_("Rules of the next game"),
    "next_game": N_("Next game: {rules}, two players."),
    "next_game_computer": N_("Next game: {rules}, the computer plays {colour} at level {level}."),
    "new_game": N_("New game"),
    "confirm_abandon": N_("Abandon the game in progress?"),
    "abandon": N_("Abandon it"),
    "keep": N_("Keep playing"),
    "archive": N_("Finished games"),
    "no_games": N_("No finished games yet."),
    "download": N_("Download the record"),
    "game_line": N_("Game {number}: {rules}, {result}, {moves}, {finished}"),
    "replay_title": N_("Game {number}: {rules}"),
    "replay_at": N_("move {at} of {total}"),
    "first": N_("first move"),
    "back": N_("one move back"),
    "forward": N_("one move forward"),
    "last": N_("last move"),
    "board": N_("the board"),
    "turn_red": N_("Red's turn"),
    "turn_yellow": N_("Yellow's turn"),
    "scores": N_("Red {red} : {yellow} Yellow"),
    "result_red": N_("Red won"),
    "result_yellow": N_("Yellow won"),
    "result_draw": N_("draw"),
    "result_unknown": N_("unfinished"),
    "sent": N_("Sent."),
    "error": N_("Error: {message}"),
    "rules_line": N_("{rules}, game {number}"),
    "colour_red": N_("Red"),
    "colour_yellow": N_("Yellow"),
    "opponent": N_("The computer plays {colour}."),
    "opponent_level": N_("The computer plays {colour} at level {level}."),
    "opponent_choice": N_("The computer plays"),
    "opponent_none": N_("nobody (two players)"),
    "level_choice": N_("Its level"),
    "level_lowest": N_("{level}: a child can beat it"),
    "level_highest": N_("{level}: full strength"),
    "ask_hint": N_("Hint for the player to move"),
    "from_next_game": N_(
        "The rules, the opponent and its level apply from the next game "
        "(to this one before its first move)."
    ),
    "computer_move": N_("The computer's move: {move}; make it on the grid."),
    "hint": N_("Hint: {move}."),
    # each column light, for screen readers and as its tooltip: the lamp's meaning
    "light": N_("Column {column}: {meaning}"),
    "lamp_off": N_("off"),
    "lamp_drop": N_("drop here"),
    "lamp_pop": N_("pop here"),
    "lamp_drop-or-pop": N_("drop or pop here"),
    "lamp_chosen": N_("do the next step here"),
    "lamp_error": N_("something is wrong here"),
    "lamp_winning": N_("part of the winning line"),
    "lamp_computer-drop": N_("the computer's move: drop here"),
    "lamp_computer-pop": N_("the computer's move: pop here"),
    "lamp_hint-drop": N_("hint: drop here"),
    "lamp_hint-pop": N_("hint: pop here"),
}

# Sentences with a count: every plural form of the language, ``{n}`` for it.
PLURALS: dict[str, tuple[str, str]] = {
    "move_count": Nn_("{n} move", "{n} moves"),
    "pairing": Nn_(
        "The board now lights columns {columns}, as drawn here. If its lights match, "
        "press the mode button after {n} second.",
        "The board now lights columns {columns}, as drawn here. If its lights match, "
        "press the mode button after {n} seconds.",
    ),
}


def strings(language: str) -> dict[str, str]:
    return catalog(language, PAGE)


def plurals(language: str) -> dict[str, list[str]]:
    return {key: plural_forms(language, *pair) for key, pair in PLURALS.items()}


def titles(language: str) -> dict[str, str]:
    """Each rules preset's title (:attr:`engine.Rules.title`), by name."""
    return {name: title_of(name).render(language) for name in RULES_NAMES}


def page_catalog(language: str) -> dict[str, Any]:
    """What ``GET /api/strings`` answers: the page's sentences in
    ``language``, the plural form each ``Intl.PluralRules`` category takes,
    the rules' titles, and the languages there are, each in its own name."""
    return {
        "language": language,
        "languages": LANGUAGES,
        "plural": plural_categories(language),
        "strings": strings(language),
        "plurals": plurals(language),
        "titles": titles(language),
    }
