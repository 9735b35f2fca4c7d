"""The page's own sentences, by the key ``t(key, values)`` in
``static/strings.js`` looks them up with; served in the reader's language by
``GET /api/strings`` from the same catalogs as the referee's sentences.

>>> strings("fi")["moves"], plurals("cs")["move_count"], titles("fi")["five"]
('Siirrot', ['{n} tah', '{n} tahy', '{n} tahů'], 'Viiden suora')
"""

from __future__ import annotations

import functools
from typing import Any

from controller.i18n.text import (
    ENGLISH,
    LANGUAGES,
    N_,
    Nn_,
    catalog,
    plural_categories,
    plural_forms,
    translations_file,
)
from controller.i18n.words import title_of
from engine import RULES_NAMES

PAGE: dict[str, str] = {
    "title": N_("popref"),
    "connecting": N_("connecting"),
    "live": N_("live"),
    "offline": N_("reconnecting"),
    # the badge while the page follows the board but the link to the other
    # side of a remote game is down (the fault says so too)
    "link_down": N_("link down"),
    # linked grids (docs/remote.md): the other side is a grid, and its link
    "linked_up": N_("Linked with another grid: the link is up."),
    "linked_down": N_("Linked with another grid: the link is down."),
    "joined": N_(
        "This grid joined another grid's game: that grid chooses the rules, "
        "and each grid's person plays their own colour."
    ),
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
    "take_back": N_("Take back the last move"),
    "decline_takeback": N_("Decline the takeback"),
    "from_next_game": N_(
        "The rules, the opponent and its level apply from the next game "
        "(to this one before its first move)."
    ),
    "computer_move": N_("The computer's move: {move}; make it on the grid."),
    "hint": N_("Hint: {move}."),
    "hint_unproven": N_("Hint: {move} (not proven)."),
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
    # the owner's invitation (a paired browser)
    "invite": N_("Invite a friend to play {colour}"),
    # while a friend holds the seat: their link again, not a new one
    "show_invitation": N_("Show the invitation link"),
    # linked grids: another grid's invitation link, given on this grid's page
    "join_label": N_("Another grid's link, to play its game on this grid"),
    "join": N_("Join its game"),
    # whatever the other grid does (it may be gone for good): the game here is this grid's own
    "leave": N_("Leave the other grid's game"),
    "invite_link": N_("Send this link to your friend; whoever holds it plays {colour}:"),
    "invite_same": N_(
        "The link you sent for the last game leads to this one too: no need to send it "
        "again. This game's own link (whoever holds either one plays {colour}):"
    ),
    "copy": N_("Copy the link"),
    "copied": N_("Copied."),
    "revoke": N_("Revoke the invitation"),
    "friend_plays": N_("A friend plays {colour} from afar."),
    # the link was not opened yet (state.friend_opened false)
    "friend_invited": N_(
        "A friend is invited to play {colour} from afar: the link has not been opened yet."
    ),
    # their page said it is gone (state.friend_here false): closed, or the phone asleep
    "friend_away": N_("A friend plays {colour} from afar; their page is closed for now."),
    # a finished game's share link
    "share": N_("Share this game"),
    "digits": N_("The position as digits, for other Connect Four tools:"),
    # the remote page, as the friend reads it
    "remote_title": N_("popref: a game from afar"),
    "you_play": N_("You play {colour}."),
    "your_turn": N_("Your turn: tap a column."),
    "you_won": N_("You won!"),
    "you_lost": N_("You lost."),
    "you_drew": N_("A draw."),
    "tap_drop": N_("Drop a disc into column {column}"),
    "tap_pop": N_("Pop the bottom disc of column {column}"),
    "asking": N_("Asking the board for {move}."),
    "waiting_grid": N_("Your move {move} waits to be made on the grid."),
    # what the board says to the people at the grid (its status or fault),
    # shown to the friend as theirs
    "at_grid": N_("At the grid: {sentence}"),
    "not_taken": N_("Not taken: {reason}"),
    "ended": N_(
        "This invitation has ended (revoked, expired, or a new game began); ask for a new link."
    ),
    "sequel": N_("The grid has begun its next game on this link: you play {colour} again."),
    "sequel_play": N_("Play the next game"),
    "no_board": N_("Waiting for the board; is popref running with this invitation?"),
    "bad_link": N_("This link is damaged or cut short; ask for a new one."),
    "link_version": N_(
        "This link is for protocol version {version}; this page speaks version {ours}."
    ),
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


def page_catalog(language: str, with_messages: bool = False) -> dict[str, Any]:
    """What ``GET /api/strings`` answers: the page's sentences in
    ``language``, the plural form each ``Intl.PluralRules`` category takes,
    the rules' titles, and the languages there are, each in its own name;
    ``with_messages`` (``?messages=1``, the remote page), every sentence of
    the catalog too."""
    found = {
        "language": language,
        "languages": LANGUAGES,
        "plural": plural_categories(language),
        "strings": strings(language),
        "plurals": plurals(language),
        "titles": titles(language),
    }
    return found | {"messages": messages(language)} if with_messages else found


@functools.cache  # the catalog is read once a language, not at every request
def messages(language: str) -> dict[str, str | list[str]]:
    """The whole catalog of ``language``, for a page that says the board's
    sentences itself (the remote page gets them over the broker as message
    and values, ``Text.data()``): each message by its id (``context`` and
    U+0004 before it, as gettext keys it), a sentence with a count as its
    list of plural forms. English is the ids themselves: empty.

    >>> messages("fi")["{colour} wins."], messages("cs")["{n} move"][2]
    ('{colour} voittaa.', '{n} tahů')
    """
    if language == ENGLISH or language not in LANGUAGES:
        return {}
    # Babel reads the compiled catalog whole (gettext keeps its table private);
    # imported by the first request that asks, not by every start of popref
    from babel.messages.mofile import read_mo

    with translations_file(language).open("rb") as mo:
        found = read_mo(mo)
    every: dict[str, str | list[str]] = {}
    for message in found:
        if not message.id:  # the catalog's header
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        if message.context:
            key = f"{message.context}\x04{key}"
        text = message.string
        every[key] = text if isinstance(text, str) else [form or "" for form in text or ()]
    return every
