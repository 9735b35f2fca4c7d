"""A link given to this grid's page: it joins the other grid's game with
no restart (docs/remote.md, "Linked grids"). The daemon swaps its linked
side (``controller.remote.guest``) for the new link's and keeps the link in
the state directory (``controller.store.joined``); these are the rules of
when it may, and what the table becomes.

>>> from controller.referee.core import Referee
>>> referee = Referee(Table(), "classic")
>>> refusal(referee, inviting=False) is None
True
>>> from engine import Move
>>> referee.game.play(Move.drop(4))
>>> str(refusal(referee, inviting=False)).startswith("A game is in progress")
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from controller.i18n.text import Text, _t
from controller.referee.core import Referee, Table
from engine.colour import Colour


@dataclass(frozen=True, slots=True)
class Home:
    """This grid as its owner set it up, kept while a link given on the page
    holds: its table (its house rules), the rules and the computer's colour
    chosen for its next game; all of it back once the link is spent."""

    table: Table
    rules: str
    computer: Colour | None


def refusal(referee: Referee, inviting: bool) -> Text | None:
    """Why this grid may not join another's game now, or None. A game of
    its own in progress would be lost (the linked game begins on an empty
    grid), and a friend invited here would find the seat gone."""
    if inviting:
        return _t(
            "This grid invites a friend to play: revoke the invitation (and remove "
            "[remote] plays) before it joins another grid's game."
        )
    if referee.linked_here():
        return _t(
            "This grid is in a linked game: it ends when it is over, or when the grid that "
            "invited begins a new one; join the next link then."
        )
    if referee.in_progress():
        return _t(
            "A game is in progress on this grid: finish it or begin a new one, then join "
            "the other grid's game (it begins on an empty grid)."
        )
    return None


def joined_table(
    home: Table, repetition: int | None, both_lines: Literal["popper", "opponent"]
) -> Table:
    """The table while this grid plays the other grid's game: its house
    rules are the link's, and a new game here may not end a linked one."""
    return dataclasses.replace(home, joined=True, repetition=repetition, both_lines=both_lines)


def joined(colour: Text, rules: Text, now: bool) -> Text:
    """What the board says once it joined: whom it plays, and when."""
    if now:
        return _t(
            "This grid joins the other grid's game: it plays {colour}, in {rules}; the other "
            "grid's moves light up here to be copied.",
            colour=colour,
            rules=rules,
        )
    return _t(
        "This grid joins the other grid's game with its next game: it plays {colour}, in "
        "{rules}; open the slider to begin.",
        colour=colour,
        rules=rules,
    )


def already(colour: Text) -> Text:
    """What the board says when the page gives the link it follows again."""
    return _t("This grid already plays that game, as {colour}.", colour=colour)


def parted() -> Text:
    """What the board says when the link it joined is spent and a game of
    its own begins."""
    return _t(
        "This grid plays on its own again: the other grid's game is over. To play its next "
        "game together, join its new link on this grid's page."
    )


def left() -> Text:
    """What the board says when its owner left the linked game."""
    return _t(
        "This grid left the other grid's game: the game on it is this grid's own now, and "
        "the next is as this grid was set up."
    )


def not_joined(by_configuration: bool) -> Text:
    """Why there is no linked game to leave from the page."""
    if by_configuration:
        return _t(
            "This grid joined by its configuration: remove [remote] join (or --join) and "
            "start it again to leave."
        )
    return _t("This grid has joined no other grid's game.")
