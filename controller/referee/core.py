"""The referee: follows a game from physical events, with no I/O and no clock.

It holds the engine's game (what the rules say the grid should hold) and its belief of
what is physically in the grid, built only from what the sensors proved. Each event
returns a :class:`~controller.referee.verdict.Verdict`;
:func:`controller.referee.view.display` turns the state into what the board shows. While
the two grids agree, legal drops and pops become moves; anything else changes only the
physical grid, and the board guides the players back until the grids agree again. The
page's commands (:mod:`controller.referee.commands`) and the mode button, whose timing
:mod:`controller.referee.controls` follows, ask for the same transitions: its methods
that say what they do (choose the rules, seat the computer, a hint, a new game). It hands
the computer's side to :mod:`controller.referee.computer_seat`, the remote player's to
:mod:`controller.referee.remote_seat`; what discs and the slider do is
:mod:`controller.referee.discs`, what is chosen for the next game
:mod:`controller.referee.choices`, a takeback :mod:`controller.referee.takeback`.

>>> from hardware.events import DiscEntered
>>> referee = Referee(Table(columns=7, rows=6), "classic")
>>> referee.handle(DiscEntered(4, at=1.0)).accepted
Move.drop(4)
>>> referee.game.to_move
<Colour.YELLOW: 'yellow'>
"""

from __future__ import annotations

import dataclasses
from typing import Any, assert_never

from controller.i18n import words
from controller.i18n.text import Text, _t
from controller.i18n.words import player, reason
from controller.referee import choices, commentary, discs, repair, takeback
from controller.referee.commands import (
    Command,
    HintAsked,
    Input,
    LevelChosen,
    NewGameAsked,
    OpponentChosen,
    PairingEnded,
    PairingRequested,
    RemoteChosen,
    RemoteInvited,
    RemoteRequested,
    RemoteRevoked,
    RulesChosen,
    TakebackAsked,
    TakebackDeclined,
    TakebackHeard,
)
from controller.referee.computer_seat import ComputerSeat, Seat
from controller.referee.controls import Controls
from controller.referee.pairing_window import PairingWindow
from controller.referee.proxy import ProxySeat
from controller.referee.remote_seat import RemoteSeat
from controller.referee.table import Grid
from controller.referee.table import Table as Table  # callers build a Referee from here
from controller.referee.verdict import Draft, Verdict
from engine import Game, Move, Rules, game_from_position, new_game, rules_named
from engine.colour import Colour, picture
from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    DiscEntered,
    DiscLeft,
    SensorCleared,
    SensorFault,
    SliderMoved,
)


class Referee:
    """The referee's whole state and its transitions."""

    def __init__(
        self, table: Table, rules: str = "classic", computer: Colour | None = None
    ) -> None:
        self.table = table
        self.next_rules = rules
        # the computer opponent (controller.referee.computer_seat) and a remote
        # player (controller.referee.remote_seat): seats whose moves a person makes
        self.seats = ComputerSeat(table.computer_level, table.computer_seed, computer)
        self.remote = RemoteSeat()
        # the mode button and the page's commands (controller.referee.controls)
        self.controls = Controls()
        self.grid: Grid = [[] for _ in range(table.columns)]
        self.slider_open = False
        self.rebuilding = False
        self.problem: Text | None = None
        self.faults: dict[str, str] = {}
        self.last_entry_at: float | None = None
        self.start_rows: list[str] | None = None
        self.game_number = 1
        # takebacks in this game: a move number after one names another move
        self.takebacks = 0
        # a browser's pending pairing request (controller.referee.pairing_window)
        self.pairing = PairingWindow()
        # model_grid's last answer, by the rules object and the position: the
        # loop asks whether the grid is in step at every step, many a drop
        self._model: tuple[Rules, Any, list[tuple[Colour, ...]]] | None = None
        self.game = self.fresh_game(rules)

    # -- rules and geometry -------------------------------------------------

    def rules_for(self, name: str) -> Rules:
        """The rules ``name`` sized to this table's grid, with its house rules."""
        base = rules_named(name)
        width = self.table.columns + (2 if base.strips else 0)
        rules = rules_named(name, (width, self.table.rows))
        return dataclasses.replace(
            rules, repetition=self.table.repetition, both_lines=self.table.both_lines
        )

    @property
    def offset(self) -> int:
        """Engine column = physical column + offset (the left edge strip)."""
        return 1 if self.game.rules.strips else 0

    def label(self, column: int) -> int:
        """How sentences name physical ``column``: the grid's own number, as
        its lights and the simulator show it. (Notation counts 5-in-a-Row's
        left edge strip; it stays in records and ``popref replay``.)"""
        return column

    def physical(self, move: Move) -> Text:
        """``move`` as the hands make it, naming the grid's own column."""
        return commentary.physical(move, self.column_of(move))

    def column_of(self, move: Move) -> int:
        """The physical column of ``move``: the grid's own number."""
        return self.label(move.column - self.offset)

    def model_grid(self) -> list[tuple[Colour, ...]]:
        """What the game says each physical column holds, bottom up."""
        rules, key = self.game.rules, self.game.position_key()
        if self._model is None or self._model[0] is not rules or self._model[1] != key:
            columns = range(1, self.table.columns + 1)
            self._model = (rules, key, [self.game.column(c + self.offset) for c in columns])
        return list(self._model[2])  # the caller's own list

    def in_step(self) -> bool:
        """Whether the physical grid is exactly what the game needs."""
        if self.slider_open:
            return False
        return all(
            tuple(have) == want for have, want in zip(self.grid, self.model_grid(), strict=True)
        )

    def repair_plan(self) -> list[repair.Step]:
        return repair.plan(self.grid, self.model_grid())

    def expected_colour(self, column: int) -> Colour | None:
        """The colour the board is asking for in ``column`` right now."""
        if self.in_step():
            return self.game.to_move
        steps = self.repair_plan()
        if steps and isinstance(steps[0], repair.DropStep) and steps[0].column == column:
            return steps[0].colour
        return None

    @property
    def pairing_since(self) -> float | None:
        """When a pending pairing request began (event time): the board blinks."""
        return self.pairing.since

    def restarted(self) -> None:
        """The clock behind event times has started again (a restart): times
        before and after cannot be compared."""
        self.last_entry_at = None
        self.pairing.end()
        self.controls.restarted()
        self.remote.starts += 1

    @property
    def selecting(self) -> bool:
        """Whether presses of the mode button are choosing the next rules."""
        return self.controls.selecting

    @property
    def abandon_armed(self) -> bool:
        """Whether the next hold of the mode button abandons the game."""
        return self.controls.abandon_armed

    # -- events ---------------------------------------------------------------

    def handle(self, event: Input) -> Verdict:
        out = Draft()
        out.log += self.controls.before(event)
        button = isinstance(event, ButtonPressed | ButtonHeld)
        if button and self.pairing.answered(event.at, isinstance(event, ButtonHeld), out):
            return out.verdict()
        if isinstance(event, Command):
            self._command(event, out)
            return out.verdict()
        self.controls.saw(event)
        if isinstance(event, DiscEntered):
            discs.entered(self, event, out)
        elif isinstance(event, DiscLeft):
            discs.left(self, event, out)
        elif isinstance(event, SliderMoved):
            discs.slider(self, event, out)
        elif isinstance(event, ButtonPressed):
            self.controls.pressed(self, event, out)
        elif isinstance(event, ButtonHeld):
            self.controls.held(self, out)
        elif isinstance(event, SensorFault):
            self.faults[event.sensor] = reason(event.message)
            out.log.append(
                _t(
                    "Sensor fault on {sensor}: {message}",
                    sensor=event.sensor,
                    message=reason(event.message),
                )
            )
        elif isinstance(event, SensorCleared):
            if self.faults.pop(event.sensor, ""):
                out.log.append(_t("The fault on {sensor} has cleared.", sensor=event.sensor))
        else:
            assert_never(event)
        if out.changed and self.in_step() and self.problem is not None:
            self.problem = None
            self.rebuilding = False
            if self.game.is_over():
                out.log.append(_t("The grid matches the finished game again."))
            else:
                out.log.append(_t("The grid matches the game again; play resumes."))
        return out.verdict()

    def _command(self, command: Command, out: Draft) -> None:
        """A request from the page (or the daemon's configuration): the same
        transitions the mode button asks for. Each kind is named; none falls
        through to another's transition."""
        if isinstance(command, RulesChosen):
            choices.rules_chosen(self, command.rules, out)
        elif isinstance(command, OpponentChosen):
            choices.computer_chosen(self, command.plays, out)
        elif isinstance(command, LevelChosen):
            choices.level_chosen(self, command.level, out)
        elif isinstance(command, HintAsked):
            self.controls.hint(self, out)
        elif isinstance(command, NewGameAsked):
            self.controls.new_game(self, out)
        elif isinstance(command, TakebackAsked):
            self.take_back(out)
        elif isinstance(command, TakebackDeclined):
            takeback.decline(self, out)
        elif isinstance(command, TakebackHeard):
            takeback.heard(self, command, out)
        elif isinstance(command, PairingRequested):
            out.changed = True
            out.log.append(self.pairing.request(command.at, command.code))
        elif isinstance(command, PairingEnded):
            sentence = self.pairing.ended()
            if sentence is not None:
                out.changed = True
                out.log.append(sentence)
        elif isinstance(command, RemoteChosen):
            if self.remote.choose(command.plays, out) and self.seats.next_colour is command.plays:
                self.seats.next_colour = None
        elif isinstance(command, RemoteInvited):
            colour = command.invitation.colour
            self.remote.invited(command.invitation, self.game.is_over(), out, self.table.joined)
            if self.seats.leave(colour):
                out.log.append(self.remote.computer_left(colour))
        elif isinstance(command, RemoteRequested):
            waiting = self.remote.move
            self.remote.requested(command, self, out)
            if waiting is None and self.remote.move is not None:
                self.controls.gave_way()  # the move to make shows at once
        elif isinstance(command, RemoteRevoked):
            self.remote.revoked(command.expired, out, self.table.joined)
        else:
            assert_never(command)

    # -- the games, one after another -------------------------------------------

    def choose_rules(self, name: str) -> Verdict:
        """Pick the rules of the next game; a game not yet begun takes them now."""
        out = Draft()
        choices.rules_chosen(self, name, out)
        return out.verdict()

    def choose_computer(self, colour: Colour | None) -> Verdict:
        """Who the computer plays in the next game (``None``: nobody); a game
        not yet begun takes it now."""
        out = Draft()
        choices.computer_chosen(self, colour, out)
        return out.verdict()

    def choose_level(self, level: int) -> Verdict:
        """The computer's level in the next game; a game not yet begun takes it now."""
        out = Draft()
        choices.level_chosen(self, level, out)
        return out.verdict()

    def pick_rules(self, name: str, out: Draft) -> Text:
        """Choose ``name`` for the next game (for this one if it has not
        begun); the sentence that says so, left for the caller to say (the
        mode button holds it back)."""
        return choices.pick_rules(self, name, out)

    def take_back_rules(self, name: str, out: Draft) -> None:
        """Put the rules chosen back to ``name``, saying nothing (a double
        press says what it did instead)."""
        choices.take_back_rules(self, name, out)

    def seat_computer(self, colour: Colour | None, out: Draft) -> None:
        """The computer plays ``colour`` in the next game (``None``: nobody),
        in this one if it has not begun."""
        choices.seat_computer(self, colour, out)

    def ask_hint(self, out: Draft) -> None:
        """A hint for the player to move, or the sentence why there is none."""
        refused = self.no_hint()
        if refused is not None:
            out.log.append(refused)
            return
        assert self.game.to_move is not None
        out.hint = True
        out.log.append(_t("{colour} asked for a hint.", colour=player(self.game.to_move)))

    def new_game(self, out: Draft) -> None:
        """The next game begins now; a game in progress is abandoned, except
        a linked one on the grid that joined it (the two grids would part)."""
        out.changed = True
        if self.linked_here():
            out.log.append(
                _t(
                    "This game is linked with another grid: it ends when it is over, "
                    "or when the grid that invited begins a new one."
                )
            )
            return
        if self.in_progress():
            out.finished = self.game
            out.log.append(_t("The game was abandoned."))
        self.start_next(out)

    def take_back(self, out: Draft) -> None:
        """Take back the last move (against the computer, the person's last
        turn); with a remote seat, only once the other side agrees too."""
        takeback.ask(self, out)

    def last_move(self) -> Text:
        """The last move as a takeback names it: who made it and how."""
        return takeback.last_move(self)

    def takeback_question(self) -> Text:
        """What this side is asked when the other side wants the last move back."""
        return takeback.question(self)

    def takeback_asked(self) -> Text:
        """What this side sees while its own takeback waits for the other's word."""
        return takeback.asked(self)

    def renew(self, rules: str, out: Draft) -> bool:
        """A game not yet begun starts again as a fresh game of ``rules`` (with
        what was just chosen for it); whether it did."""
        if not self.not_begun():
            return False
        self.game = self.fresh_game(rules)
        out.new_game = True
        return True

    def not_begun(self) -> bool:
        """Whether this game may still change its rules and players: no move,
        no result, not begun from a full grid."""
        return not self.game.moves and not self.game.is_over() and self.start_rows is None

    def in_progress(self) -> bool:
        """Whether a game has begun and is not over."""
        return bool(self.game.moves) and not self.game.is_over()

    def linked_here(self) -> bool:
        """Whether a linked game is in progress on the grid that joined it:
        no new game here may end it."""
        return self.table.joined and self.in_progress() and self.remote.invitation is not None

    def at_stake(self) -> bool:
        """Whether a new game now would abandon a game in progress whose
        position is still on the grid (the slider has not emptied it)."""
        return self.in_progress() and not (self.rebuilding and not any(self.grid))

    def start_next(self, out: Draft) -> None:
        """The next game begins, with the rules chosen for it."""
        self.game_number += 1
        self.takebacks = 0
        # a joining grid's invitation is the other grid's, whose next one it follows
        self.remote.next_game(finished=self.game.is_over() and not self.table.joined)
        self.game = self.fresh_game(self.next_rules)
        self.problem = None
        self.rebuilding = False
        self.last_entry_at = None
        out.new_game = True
        out.log.append(_t("New game: {title}.", title=words.rules_title(self.game.rules)))

    def fresh_game(self, name: str) -> Game:
        """A new game of ``name``; Pop 10 starts in its pop phase when the grid
        is already full of discs whose colours the referee knows."""
        rules = self.rules_for(name)
        self.start_rows = None
        self.seats.sit(self.game_number)
        self.remote.move = None  # asked for in a game that is gone
        full = all(len(c) == self.table.rows for c in self.grid)
        if rules.pop10 and full and all(d is not None for c in self.grid for d in c):
            game = new_game(rules)
            rows = self._rows_with_strips(game)
            self.start_rows = rows
            return game_from_position(rules, rows, Colour.RED)
        return new_game(rules)

    def _rows_with_strips(self, empty: Game) -> list[str]:
        """The physical grid as engine rows (top first), edge strips included."""
        known = [[d for d in column if d is not None] for column in self.grid]
        strips = [empty.column(1)] if empty.rules.strips else []
        right = [empty.column(empty.rules.width)] if empty.rules.strips else []
        return picture([*strips, *known, *right], self.table.rows)

    # -- the computer opponent (controller.referee.computer_seat) ----------------------

    @property
    def next_computer(self) -> Colour | None:
        """The colour the computer plays in the next game (``None``: nobody)."""
        return self.seats.next_colour

    @property
    def computer(self) -> Seat | None:
        """The computer's seat in this game."""
        return self.seats.seat

    @property
    def computer_move(self) -> Move | None:
        """The move the computer chose that a person is to make for it."""
        return self.seats.move

    def computer_to_move(self) -> bool:
        return self.seats.to_move(self.game)

    def needs_computer(self) -> Seat | None:
        """The computer's seat when it must choose a move now: its turn, no move
        chosen yet, and the grid not emptied by the slider."""
        return self.seats.needs(self.game, self.slider_open or self.rebuilding)

    def computer_chose(self, move: Move) -> Verdict:
        """The computer's choice: a person is to make ``move`` for it. Raises
        ``ValueError`` when the computer is not to move or the move is illegal
        (a journal that does not fit)."""
        seat = self.seats.chose(self.game, move, self.slider_open or self.rebuilding)
        self.controls.gave_way()  # the move to make shows at once
        what = _t(
            "The computer ({colour}) plays a {move}.",
            colour=player(seat.colour),
            move=self.physical(move),
        )
        return Verdict(changed=True, log=(what,))

    # -- the seats whose moves a person makes (controller.referee.proxy) ----------------

    def proxies(self) -> tuple[ProxySeat, ...]:
        return (self.seats, self.remote)

    def friend_plays(self, colour: Colour) -> bool:
        """Whether a remote player has ``colour``, in this game or the next."""
        return self.remote.holds(colour)

    def proxy_to_move(self) -> ProxySeat | None:
        """The computer's or the remote player's seat when it is to move."""
        return next((seat for seat in self.proxies() if seat.to_move(self.game)), None)

    def no_hint(self) -> Text | None:
        """Why the player to move gets no hint now, or ``None`` if they may."""
        if self.game.is_over():
            return _t("No hint: the game is over.")
        proxy = self.proxy_to_move()
        if proxy is not None:
            return proxy.no_hint()
        if not self.in_step():
            return _t("No hint while the grid does not match the game.")
        return None
