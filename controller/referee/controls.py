"""The players' controls away from the grid: the mode button and the page's
commands (:mod:`controller.referee.commands`), which make the same transitions.

A press picks the next rules (of this game while it has not begun); a second
press within :data:`~controller.referee.seat.DOUBLE_PRESS` puts the rules back
and asks instead for a hint mid-game, or for the next opponent between games;
a hold abandons a game in progress once confirmed by a second hold, then
begins the next. :class:`controller.referee.core.Referee` holds one
:class:`Controls` and hands it the button's events and the page's commands,
with itself: the controls keep only what the button is in the middle of.

A press says what it chose only once it cannot be the first of a double
press (:meth:`Controls.due`, or the next event), so a double press says only
what it did:

>>> from controller.referee.core import Referee, Table
>>> from hardware.events import ButtonPressed
>>> referee = Referee(Table(), "classic")
>>> referee.handle(ButtonPressed(at=1.0)).log, referee.controls.due(1.6)
((), ['Rules changed to Pop Out.'])
>>> referee.handle(ButtonPressed(at=2.0)).log, referee.handle(ButtonPressed(at=2.3)).log
((), ('This game: the computer plays Yellow.',))
>>> referee.game.rules.name, referee.computer is not None, referee.controls.due(9.0)
('popout', True, [])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.i18n import words
from controller.i18n.text import Text, _t
from controller.i18n.words import player
from controller.referee import remote_seat
from controller.referee.commands import (
    Command,
    HintAsked,
    LevelChosen,
    OpponentChosen,
    PairingEnded,
    PairingRequested,
    RemoteChosen,
    RemoteCommand,
    RemoteInvited,
    RemoteRequested,
    RulesChosen,
)
from controller.referee.seat import DOUBLE_PRESS, MAX_LEVEL, MIN_LEVEL, describe, next_seat
from controller.referee.verdict import Draft
from engine import RULES_NAMES
from engine.colour import Colour
from hardware.events import ButtonHeld, ButtonPressed, Event

if TYPE_CHECKING:
    from controller.referee.core import Referee


class Controls:
    """The mode button's unfinished business, and the transitions it and the
    page's commands make on a referee."""

    def __init__(self) -> None:
        self.last_press_at: float | None = None  # a press that may begin a double press
        self.rules_before_press: str | None = None  # what a double press puts back
        self.selecting = False  # presses are choosing the next rules
        self.abandon_armed = False  # the next hold abandons the game in progress
        # a single press's sentence and when it may be said: once no second
        # press can make the press the first of a double press
        self.held_back: tuple[float, Text] | None = None

    def before(self, event: Event | Command) -> list[Text]:
        """The last press's held-back sentence, said before ``event``, unless
        ``event`` is the second press of a double press (which takes back
        what the first chose)."""
        return [] if self._second_press(event) else self._release()

    def due(self, now: float) -> list[Text]:
        """The last press's held-back sentence, once its time has come."""
        deadline = self.deadline()
        return [] if deadline is None or now < deadline else self._release()

    def _release(self) -> list[Text]:
        if self.held_back is None:
            return []
        sentence = self.held_back[1]
        self.held_back = None
        return [sentence]

    def deadline(self) -> float | None:
        """When a held-back sentence is due, if one is."""
        return None if self.held_back is None else self.held_back[0]

    def _second_press(self, event: Event | Command) -> bool:
        last = self.last_press_at
        return (
            isinstance(event, ButtonPressed) and last is not None and event.at - last < DOUBLE_PRESS
        )

    def saw(self, event: Event) -> None:
        """Any event but a press ends a selection and a double press; any
        but a hold disarms the abandon."""
        if not isinstance(event, ButtonPressed):
            self.selecting = False
            self.last_press_at = None
        if not isinstance(event, ButtonHeld):
            self.abandon_armed = False

    def restarted(self) -> None:
        """The clock behind event times started again: no double press spans it."""
        self.last_press_at = None
        self.held_back = None

    def command(self, referee: Referee, command: Command, out: Draft) -> None:
        """A request from the page: the same transitions the mode button makes."""
        if isinstance(command, RemoteCommand):
            _remote(referee, command, out)
        elif isinstance(command, PairingRequested):
            out.changed = True
            out.log.append(referee.pairing.request(command.at, command.code))
        elif isinstance(command, PairingEnded):
            sentence = referee.pairing.ended()
            if sentence is not None:
                out.changed = True
                out.log.append(sentence)
        elif isinstance(command, RulesChosen):
            self.choose_rules(referee, command.rules, out)
        elif isinstance(command, OpponentChosen):
            self.choose_computer(referee, command.plays, out)
        elif isinstance(command, LevelChosen):
            self.choose_level(referee, command.level, out)
        elif isinstance(command, HintAsked):
            out.changed = True
            self._hint(referee, out)
        else:
            self.selecting = False
            self.abandon_armed = True  # the page asked for confirmation itself
            self.held(referee, out)

    def pressed(self, referee: Referee, event: ButtonPressed, out: Draft) -> None:
        """A press: the next rules, or the second of a double press."""
        if self._second_press(event):
            self.last_press_at = None
            self.held_back = None  # the first press's choice is taken back unsaid
            self._double_press(referee, out)
            return
        self.last_press_at = event.at
        self.rules_before_press = referee.next_rules
        rules = referee.next_rules
        index = RULES_NAMES.index(rules) if rules in RULES_NAMES else -1
        sentence = self._next_rules(referee, RULES_NAMES[(index + 1) % len(RULES_NAMES)], out)
        self.held_back = (event.at + DOUBLE_PRESS, sentence)
        self.selecting = True

    def _double_press(self, referee: Referee, out: Draft) -> None:
        """Mid-game, a hint for the player to move; between games (before the
        first move, or after the end), the next opponent. The first press of
        the pair moved the rules on: they go back."""
        before = self.rules_before_press
        out.changed = True
        if before is not None and before != referee.next_rules:
            referee.next_rules = before  # quietly: the double press says what it did
            _renew(referee, before, out)
        if referee.game.moves and not referee.game.is_over():
            self._hint(referee, out)
            return
        colour = next_seat(referee.next_computer)
        while colour is not None and referee.remote.holds(colour):
            colour = next_seat(colour)  # a friend plays it
        referee.seats.next_colour = colour
        who = describe(referee.next_computer)
        if _renew(referee, referee.game.rules.name, out):
            out.log.append(_t("This game: {who}.", who=who))
        else:
            out.log.append(_t("The next game: {who}.", who=who))
        self.selecting = True

    def _hint(self, referee: Referee, out: Draft) -> None:
        """A hint for the player to move, when one may be given."""
        self.selecting = False
        refused = referee.no_hint()
        if refused is not None:
            out.log.append(refused)
        else:
            assert referee.game.to_move is not None
            out.hint = True
            out.log.append(_t("{colour} asked for a hint.", colour=player(referee.game.to_move)))

    def choose_rules(self, referee: Referee, name: str, out: Draft) -> None:
        """The rules of the next game; a game not yet begun takes them now."""
        if name not in RULES_NAMES:
            out.log.append(_t("Ignored unknown rules {name}.", name=repr(name)))
            return
        settled = name == referee.next_rules and (
            not referee.not_begun() or referee.game.rules.name == name
        )
        if not settled:
            out.log.append(self._next_rules(referee, name, out))

    def choose_computer(self, referee: Referee, colour: Colour | None, out: Draft) -> None:
        """Who the computer plays in the next game (``None``: nobody); a game
        not yet begun takes it now."""
        seats = referee.seats
        if colour is not None and referee.remote.holds(colour):
            out.log.append(
                _t(
                    "Ignored: a friend plays {colour}; revoke the invitation first.",
                    colour=player(colour),
                )
            )
            return
        now = referee.not_begun() and referee.computer != seats.seat_for(
            colour, referee.game_number
        )
        if colour == referee.next_computer and not now:
            return
        out.changed = True
        seats.next_colour = colour
        if _renew(referee, referee.game.rules.name, out):
            out.log.append(_t("This game: {who}.", who=describe(colour)))
        else:
            out.log.append(_t("The next game: {who}.", who=describe(colour)))

    def choose_level(self, referee: Referee, level: int, out: Draft) -> None:
        """The computer's level in the next game; a game not yet begun takes it now."""
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
        if _renew(referee, referee.game.rules.name, out):
            out.log.append(_t("This game: the computer plays at level {level}.", level=level))
        else:
            out.log.append(_t("The next game: the computer plays at level {level}.", level=level))

    def _next_rules(self, referee: Referee, name: str, out: Draft) -> Text:
        """Choose ``name`` for the next game (for this one if it has not
        begun); the sentence that says so."""
        out.changed = True
        referee.next_rules = name
        if _renew(referee, name, out):
            return _t("Rules changed to {title}.", title=words.rules_title(referee.game.rules))
        return _t("The next game will be {title}.", title=words.title_of(name))

    def held(self, referee: Referee, out: Draft) -> None:
        """A hold: a game in progress is abandoned at the second (or at once
        when the slider already emptied it), and the next game begins."""
        out.changed = True
        game = referee.game
        in_progress = bool(game.moves) and not game.is_over()
        emptied = referee.rebuilding and not any(referee.grid)
        if in_progress and not emptied and not self.abandon_armed:
            self.abandon_armed = True
            out.log.append(_t("Hold the mode button again to abandon this game."))
            return
        self.abandon_armed = False
        if in_progress:
            out.finished = game
            out.log.append(_t("The game was abandoned."))
        referee.start_next(out)


def _remote(referee: Referee, command: RemoteCommand, out: Draft) -> None:
    """The remote player's inputs (controller.referee.remote_seat)."""
    if isinstance(command, RemoteChosen):
        remote_seat.choose(referee, command.plays, out)
    elif isinstance(command, RemoteInvited):
        remote_seat.invited(referee, command.invitation, out)
    elif isinstance(command, RemoteRequested):
        remote_seat.requested(referee, command, out)
    else:
        remote_seat.revoked(referee, command.expired, out)


def _renew(referee: Referee, rules: str, out: Draft) -> bool:
    """A game not yet begun starts again as a fresh game of ``rules`` (with
    what was just chosen for it); whether it did."""
    if not referee.not_begun():
        return False
    referee.game = referee.fresh_game(rules)
    out.new_game = True
    return True
