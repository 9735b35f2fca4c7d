"""What the page and the mode button choose: the next game's rules, the computer's seat and level.

A game not yet begun takes a choice at once (:meth:`Chooser.renew`); one in
progress keeps its own, and the next game takes it.
"""

from __future__ import annotations

from typing import Protocol

from controller.i18n import words
from controller.i18n.text import Text, _t
from controller.i18n.words import player
from controller.referee.computer_seat import MAX_LEVEL, MIN_LEVEL, ComputerSeat, Seat, describe
from controller.referee.verdict import Draft
from engine import RULES_NAMES, Game
from engine.colour import Colour


class Chooser(Protocol):
    """What a choice for the next game reads and changes of the referee."""

    next_rules: str
    game: Game
    game_number: int
    seats: ComputerSeat

    @property
    def computer(self) -> Seat | None: ...

    @property
    def next_computer(self) -> Colour | None: ...

    def not_begun(self) -> bool: ...

    def friend_plays(self, colour: Colour) -> bool: ...

    def renew(self, rules: str, out: Draft) -> bool: ...


def rules_chosen(referee: Chooser, name: str, out: Draft) -> None:
    """The rules ``name`` chosen for the next game, unless chosen already."""
    if name not in RULES_NAMES:
        out.log.append(_t("Ignored unknown rules {name}.", name=repr(name)))
        return
    begun = not referee.not_begun()
    settled = name == referee.next_rules and (begun or referee.game.rules.name == name)
    if not settled:
        out.log.append(pick_rules(referee, name, out))


def computer_chosen(referee: Chooser, colour: Colour | None, out: Draft) -> None:
    """The computer chosen to play ``colour`` (``None``: nobody), unless a friend has it."""
    if colour is not None and referee.friend_plays(colour):
        out.log.append(
            _t(
                "Ignored: a friend plays {colour}; revoke the invitation first.",
                colour=player(colour),
            )
        )
        return
    seat = referee.seats.seat_for(colour, referee.game_number)
    now = referee.not_begun() and referee.computer != seat
    if colour != referee.next_computer or now:
        seat_computer(referee, colour, out)


def level_chosen(referee: Chooser, level: int, out: Draft) -> None:
    """The computer's ``level`` chosen for the next game, if it is one."""
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        out.log.append(
            _t(
                "Ignored level {level}: the computer plays at {low} to {high}.",
                level=level,
                low=MIN_LEVEL,
                high=MAX_LEVEL,
            )
        )
        return
    seat = referee.computer
    now = referee.not_begun() and seat is not None and seat.level != level
    if level == referee.seats.next_level and not now:
        return
    out.changed = True
    referee.seats.next_level = level
    if referee.renew(referee.game.rules.name, out):
        out.log.append(_t("This game: the computer plays at level {level}.", level=level))
    else:
        out.log.append(_t("The next game: the computer plays at level {level}.", level=level))


def pick_rules(referee: Chooser, name: str, out: Draft) -> Text:
    """Choose ``name`` for the next game (for this one if it has not
    begun); the sentence that says so, left for the caller to say (the
    mode button holds it back)."""
    out.changed = True
    referee.next_rules = name
    if referee.renew(name, out):
        return _t("Rules changed to {title}.", title=words.rules_title(referee.game.rules))
    return _t("The next game will be {title}.", title=words.title_of(name))


def take_back_rules(referee: Chooser, name: str, out: Draft) -> None:
    """Put the rules chosen back to ``name``, saying nothing (a double
    press says what it did instead)."""
    if name != referee.next_rules:
        referee.next_rules = name
        referee.renew(name, out)


def seat_computer(referee: Chooser, colour: Colour | None, out: Draft) -> None:
    """The computer plays ``colour`` in the next game (``None``: nobody),
    in this one if it has not begun."""
    out.changed = True
    referee.seats.next_colour = colour
    if referee.renew(referee.game.rules.name, out):
        out.log.append(_t("This game: {who}.", who=describe(colour)))
    else:
        out.log.append(_t("The next game: {who}.", who=describe(colour)))
