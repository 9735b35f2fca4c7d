"""The mode button, away from the grid: what its presses, double presses and
holds ask the referee for.

A press picks the next rules (of this game while it has not begun); a second
press within :data:`DOUBLE_PRESS` puts the rules back and asks instead for a
hint mid-game, or for the next opponent between games; a hold abandons a game
in progress once confirmed by a second hold, then begins the next. The page's
commands (:mod:`controller.referee.commands`) ask for the same transitions.
:class:`controller.referee.core.Referee` holds one :class:`Controls` and hands
it the button's events with itself: the controls keep only what the button is
in the middle of, and ask the referee through the methods of
:class:`Transitions`, each of which says what it does.

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

from typing import Protocol

from controller.i18n.text import Text, _t
from controller.referee.commands import Command
from controller.referee.verdict import Draft
from engine import RULES_NAMES
from engine.colour import Colour
from hardware.events import ButtonHeld, ButtonPressed, Event

# A press of the mode button this soon after the last one makes a double press.
DOUBLE_PRESS = 0.6
# What a double press between games cycles through: nobody, then the computer as
# Yellow (it moves second), then as Red.
SEATS: tuple[Colour | None, ...] = (None, Colour.YELLOW, Colour.RED)


class Transitions(Protocol):
    """What the mode button asks of the referee
    (:class:`controller.referee.core.Referee`). Each transition collects
    what it did, and the sentences that say so, in ``out``."""

    @property
    def next_rules(self) -> str:
        """The rules chosen for the next game."""

    @property
    def next_computer(self) -> Colour | None:
        """The colour the computer plays in the next game (``None``: nobody)."""

    def in_progress(self) -> bool:
        """Whether a game has begun and is not over."""

    def at_stake(self) -> bool:
        """Whether a new game now would abandon a game in progress whose
        position is still on the grid."""

    def linked_here(self) -> bool:
        """Whether a linked game is in progress on the grid that joined it."""

    def friend_plays(self, colour: Colour) -> bool:
        """Whether a remote player has ``colour``, in this game or the next."""

    def pick_rules(self, name: str, out: Draft) -> Text:
        """Choose ``name`` for the next game (for this one if it has not
        begun); the sentence that says so, left for the caller to say."""

    def take_back_rules(self, name: str, out: Draft) -> None:
        """Put the rules chosen back to ``name``, saying nothing."""

    def seat_computer(self, colour: Colour | None, out: Draft) -> None:
        """The computer plays ``colour`` in the next game (``None``: nobody),
        in this one if it has not begun."""

    def ask_hint(self, out: Draft) -> None:
        """A hint for the player to move, or why there is none."""

    def new_game(self, out: Draft) -> None:
        """The next game begins now; a game in progress is abandoned."""


class Controls:
    """The mode button's unfinished business, and the transitions its
    presses and holds ask the referee for."""

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

    def gave_way(self) -> None:
        """A move a person is to make for another seat (the computer's, a
        friend's, the other grid's) arrived: the lights show it instead of
        the rules chosen, which stand. A second press may still follow."""
        self.selecting = False

    def restarted(self) -> None:
        """The clock behind event times started again: no double press spans it."""
        self.last_press_at = None
        self.held_back = None

    def pressed(self, referee: Transitions, event: ButtonPressed, out: Draft) -> None:
        """A press: the next rules, or the second of a double press."""
        if self._second_press(event):
            self.last_press_at = None
            self.held_back = None  # the first press's choice is taken back unsaid
            self._double_press(referee, out)
            return
        self.last_press_at = event.at
        rules = self.rules_before_press = referee.next_rules
        index = RULES_NAMES.index(rules) if rules in RULES_NAMES else -1
        sentence = referee.pick_rules(RULES_NAMES[(index + 1) % len(RULES_NAMES)], out)
        self.held_back = (event.at + DOUBLE_PRESS, sentence)
        self.selecting = True

    def _double_press(self, referee: Transitions, out: Draft) -> None:
        """Mid-game, a hint for the player to move; between games (before the
        first move, or after the end), the next opponent. The first press of
        the pair moved the rules on: they go back."""
        out.changed = True
        if self.rules_before_press is not None:
            referee.take_back_rules(self.rules_before_press, out)
        if referee.in_progress():
            self.hint(referee, out)
            return
        colour = next_seat(referee.next_computer)
        while colour is not None and referee.friend_plays(colour):
            colour = next_seat(colour)  # a friend plays it
        referee.seat_computer(colour, out)
        self.selecting = True

    def hint(self, referee: Transitions, out: Draft) -> None:
        """A hint for the player to move (a double press mid-game, or the
        page's): it ends a selection."""
        out.changed = True
        self.selecting = False
        referee.ask_hint(out)

    def held(self, referee: Transitions, out: Draft) -> None:
        """A hold: a game in progress is abandoned at the second (or at once
        when the slider already emptied it), and the next game begins."""
        out.changed = True
        # a linked game on the grid that joined it is not abandoned here: new_game says why
        if referee.at_stake() and not self.abandon_armed and not referee.linked_here():
            self.abandon_armed = True
            out.log.append(_t("Hold the mode button again to abandon this game."))
            return
        self.abandon_armed = False
        referee.new_game(out)

    def new_game(self, referee: Transitions, out: Draft) -> None:
        """The page's new game: the page asked for confirmation itself."""
        self.selecting = False
        self.abandon_armed = False
        referee.new_game(out)


def next_seat(colour: Colour | None) -> Colour | None:
    """The computer's colour after a double press between games."""
    return SEATS[(SEATS.index(colour) + 1) % len(SEATS)]
