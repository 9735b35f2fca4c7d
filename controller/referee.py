"""The referee: follows a game from physical events, with no I/O and no clock.

It holds the engine's game (what the rules say the grid should hold) and its
belief of what is physically in the grid, built only from what the sensors
proved. Each event returns a :class:`Verdict`; :func:`controller.view.display`
turns the state into what the board shows. While the two grids agree, legal
drops and pops become moves; anything else changes only the physical grid,
and the board guides the players back until the grids agree again.

>>> from hardware.events import DiscEntered
>>> referee = Referee(Table(columns=7, rows=6), "classic")
>>> referee.handle(DiscEntered(4, at=1.0)).accepted
Move.drop(4)
>>> referee.game.to_move
<Colour.YELLOW: 'yellow'>
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from controller import repair, words
from controller.commands import (
    Command,
    HintAsked,
    Input,
    LevelChosen,
    OpponentChosen,
    PairingEnded,
    PairingRequested,
    RulesChosen,
)
from controller.computer import DOUBLE_PRESS, MAX_LEVEL, MIN_LEVEL, Seat, describe, next_seat
from controller.computer_seat import ComputerSeat
from controller.i18n import Text, _n, _t
from controller.pairing_window import PairingWindow
from controller.words import player, reason
from engine import (
    RULES_NAMES,
    Game,
    Move,
    MoveKind,
    Rules,
    game_from_position,
    new_game,
    rules_named,
)
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

SLIDER_OPENED = _t("The slider was opened mid-game.")


@dataclass(frozen=True, slots=True)
class Table:
    """The physical set-up the referee works with.

    ``simultaneous`` is the shortest time in seconds between two players'
    drops: a second disc sooner than that after the first is two discs at once.
    """

    columns: int = 7
    rows: int = 6
    colour_sensing: bool = False
    simultaneous: float = 0.5
    repetition: int | None = None
    both_lines: Literal["popper", "opponent"] = "popper"
    computer_level: int = 5
    computer_seed: int = 0


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one event did.

    ``changed``: the state changed, so the event must be journalled before the
    display is shown. ``new_game``: a new game began (the journal may be
    compacted to a snapshot). ``finished``: a game that just ended, to archive.
    ``mistake``: a short kind name when the event broke the rules. ``hint``:
    the player to move asked for the best move (a double press).
    ``paired``: the mode button granted a pending pairing request.
    """

    changed: bool = False
    accepted: Move | None = None
    mistake: str | None = None
    new_game: bool = False
    finished: Game | None = None
    log: tuple[str, ...] = ()
    hint: bool = False
    paired: bool = False


Grid = list[list[Colour | None]]


@dataclass
class _Outcome:
    """Collects the parts of a verdict while an event is handled."""

    changed: bool = False
    accepted: Move | None = None
    mistake: str | None = None
    new_game: bool = False
    finished: Game | None = None
    log: list[str] = field(default_factory=list)
    hint: bool = False
    paired: bool = False

    def verdict(self) -> Verdict:
        return Verdict(
            self.changed,
            self.accepted,
            self.mistake,
            self.new_game,
            self.finished,
            tuple(self.log),
            self.hint,
            self.paired,
        )


class Referee:
    """The referee's whole state and its transitions."""

    def __init__(
        self, table: Table, rules: str = "classic", computer: Colour | None = None
    ) -> None:
        self.table = table
        self.next_rules = rules
        # the computer opponent (controller.computer_seat)
        self.seats = ComputerSeat(table.computer_level, table.computer_seed, computer)
        self.last_press_at: float | None = None
        self.rules_before_press: str | None = None
        self.grid: Grid = [[] for _ in range(table.columns)]
        self.slider_open = False
        self.selecting = False
        self.abandon_armed = False
        self.rebuilding = False
        self.problem: Text | None = None
        self.faults: dict[str, str] = {}
        self.last_entry_at: float | None = None
        self.start_rows: list[str] | None = None
        self.game_number = 1
        # a browser's pending pairing request (controller.pairing_window)
        self.pairing = PairingWindow()
        self.game = self._fresh_game(rules)

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

    def model_grid(self) -> list[tuple[Colour, ...]]:
        """What the game says each physical column holds, bottom up."""
        return [self.game.column(c + self.offset) for c in range(1, self.table.columns + 1)]

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
        self.pairing.since = None
        self.last_press_at = None

    # -- events ---------------------------------------------------------------

    def handle(self, event: Input) -> Verdict:
        out = _Outcome()
        if isinstance(event, ButtonPressed) and self.pairing.answered_by(event.at):
            out.changed = out.paired = True
            out.log.append(_t("The mode button paired a browser."))
            return out.verdict()
        if isinstance(event, Command):
            self._command(event, out)
            return out.verdict()
        if not isinstance(event, ButtonPressed):
            self.selecting = False
        if not isinstance(event, ButtonHeld):
            self.abandon_armed = False
        if not isinstance(event, ButtonPressed):
            self.last_press_at = None
        if isinstance(event, DiscEntered):
            self._entered(event, out)
        elif isinstance(event, DiscLeft):
            self._left(event, out)
        elif isinstance(event, SliderMoved):
            self._slider(event, out)
        elif isinstance(event, ButtonPressed):
            self._pressed(event, out)
        elif isinstance(event, ButtonHeld):
            self._held(out)
        elif isinstance(event, SensorFault):
            self.faults[event.sensor] = reason(event.message)
            out.log.append(
                _t(
                    "Sensor fault on {sensor}: {message}",
                    sensor=event.sensor,
                    message=reason(event.message),
                )
            )
        elif isinstance(event, SensorCleared) and self.faults.pop(event.sensor, ""):
            out.log.append(_t("The fault on {sensor} has cleared.", sensor=event.sensor))
        if out.changed and self.in_step() and self.problem is not None:
            self.problem = None
            self.rebuilding = False
            if self.game.is_over():
                out.log.append(_t("The grid matches the finished game again."))
            else:
                out.log.append(_t("The grid matches the game again; play resumes."))
        return out.verdict()

    def _command(self, command: Command, out: _Outcome) -> None:
        """A request from the page: the same transitions the mode button makes."""
        if isinstance(command, PairingRequested):
            out.changed = True
            out.log.append(self.pairing.request(command.at))
        elif isinstance(command, PairingEnded):
            sentence = self.pairing.ended()
            if sentence is not None:
                out.changed = True
                out.log.append(sentence)
        elif isinstance(command, RulesChosen):
            self._chosen(command.rules, out)
        elif isinstance(command, OpponentChosen):
            self._opponent(command.plays, out)
        elif isinstance(command, LevelChosen):
            self._level(command.level, out)
        elif isinstance(command, HintAsked):
            out.changed = True
            self._hint(out)
        else:
            self.selecting = False
            self.abandon_armed = True  # the page asked for confirmation itself
            self._held(out)

    def _entered(self, event: DiscEntered, out: _Outcome) -> None:
        column = event.column
        if self.slider_open:
            out.log.append(
                _t(
                    "A disc fell through column {column} while the slider was open.",
                    column=self.label(column),
                )
            )
            return
        if not 1 <= column <= self.table.columns:
            out.log.append(
                _t(
                    "Ignored a drop reported in column {column}: the grid has no such column.",
                    column=column,
                )
            )
            return
        if len(self.grid[column - 1]) >= self.table.rows:
            out.log.append(
                _t(
                    "Ignored a drop into column {column}, which the referee believes full.",
                    column=self.label(column),
                )
            )
            return
        out.changed = True
        playing = self.in_step() and not self.game.is_over()
        simultaneous = (
            self.last_entry_at is not None
            and event.at - self.last_entry_at < self.table.simultaneous
        )
        if self.table.colour_sensing:
            colour = event.colour
        elif simultaneous:
            # Nobody was asked for a disc that follows another this closely:
            # its colour is unknown, so a repair must take it out of the grid
            # rather than trust a guess (docs/soak.md, "Two discs at once").
            colour = None
        else:
            colour = self.expected_colour(column)
        self.last_entry_at = event.at
        steps = 0 if playing else self._steps_left()
        self.grid[column - 1].append(colour)
        if not playing:
            self._unasked(steps, "in", self.label(column), out)
            return
        mover = self.game.to_move
        assert mover is not None
        move = Move.drop(column + self.offset)
        if simultaneous:
            self._mistake(
                out,
                "two-discs",
                _t(
                    "Two discs went in at once; the one in column {column} is extra.",
                    column=self.label(column),
                ),
            )
        elif colour is not mover:
            if colour is not None:
                sentence = _t(
                    "{colour}'s disc went into column {column}, but it is {mover}'s turn.",
                    colour=player(colour),
                    column=self.label(column),
                    mover=player(mover),
                )
            else:
                sentence = _t(
                    "A disc of unknown colour went into column {column}, but it is {mover}'s turn.",
                    column=self.label(column),
                    mover=player(mover),
                )
            self._mistake(out, "wrong-colour", sentence)
        else:
            self._play(move, out)

    def _left(self, event: DiscLeft, out: _Outcome) -> None:
        column = event.column
        if self.slider_open:
            return
        if not 1 <= column <= self.table.columns or not self.grid[column - 1]:
            out.log.append(
                _t(
                    "Ignored a disc leaving column {column}, which the referee believes empty.",
                    column=self.label(column),
                )
            )
            return
        out.changed = True
        playing = self.in_step() and not self.game.is_over()
        steps = 0 if playing else self._steps_left()
        self.grid[column - 1].pop(0)
        if playing:
            self._play(Move.pop(column + self.offset), out)
        else:
            self._unasked(steps, "out", self.label(column), out)

    def _steps_left(self) -> int:
        """How many steps the board still asks for to bring the grid back."""
        return 0 if self.in_step() else len(self.repair_plan())

    def _unasked(self, before: int, way: str, column: int, out: _Outcome) -> None:
        """Say so when a disc went ``way`` (in or out) of ``column`` while the board asked
        for something else, and it brought the grid no closer to the game:
        ``before`` steps were left before it. After a finished game (none
        left), the board asks only for the slider."""
        if before and self._steps_left() < before:
            return
        went_in = way == "in"
        if before == 0:
            # the board's own message adds what to do next (controller.view)
            if went_in:
                self.problem = _t(
                    "A disc went into column {column} after the game ended.", column=column
                )
            else:
                self.problem = _t(
                    "A disc left column {column} after the game ended.", column=column
                )
            out.log.append(
                _t(
                    "A disc went into column {column} after the game ended; "
                    "open the slider for a new game.",
                    column=column,
                )
                if went_in
                else _t(
                    "A disc left column {column} after the game ended; "
                    "open the slider for a new game.",
                    column=column,
                )
            )
        else:
            if went_in:
                self.problem = _t(
                    "A disc went into column {column}; that was not the step the board asked for.",
                    column=column,
                )
            else:
                self.problem = _t(
                    "A disc left column {column}; that was not the step the board asked for.",
                    column=column,
                )
            out.log.append(self.problem)

    def _play(self, move: Move, out: _Outcome) -> None:
        mover = self.game.to_move
        assert mover is not None
        if self.computer_to_move() and move != self.computer_move:
            self._not_computers(move, out)
            return
        reason = self.game.why_illegal(move, shift=self.offset)
        if reason is not None:
            what = _t(
                "{colour}'s {move} is not allowed: {reason}.",
                colour=player(mover),
                move=self._physical(move),
                reason=words.reason(reason),
            )
            self._mistake(out, f"illegal-{move.kind.value}", what)
            return
        scored = self.game.scores[mover]
        self.game.play(move)
        self.seats.move = None
        out.accepted = move
        scored = self.game.scores[mover] - scored
        if scored:
            column = self.label(move.column - self.offset)
            out.log.append(
                _t(
                    "{colour} scored: the disc popped from column {column} was in a line "
                    "and is set aside ({score} for {colour}).",
                    colour=player(mover),
                    column=column,
                    score=self.game.scores[mover],
                )
            )
        else:
            out.log.append(
                _t("{colour} played a {move}.", colour=player(mover), move=self._physical(move))
            )
        if self.game.passed is not None:
            out.log.append(
                _t(
                    "{colour} has no disc in the bottom row; the turn passes.",
                    colour=player(self.game.passed),
                )
            )
        if self.game.is_over():
            out.finished = self.game
            out.log.append(self.result_sentence())

    def _physical(self, move: Move) -> Text:
        column = self.label(move.column - self.offset)
        if move.kind is MoveKind.POP:
            return _t("pop from column {column}", column=column)
        return _t("drop into column {column}", column=column)

    def _mistake(self, out: _Outcome, kind: str, sentence: Text) -> None:
        out.mistake = kind
        self.problem = sentence
        out.log.append(sentence)

    def _slider(self, event: SliderMoved, out: _Outcome) -> None:
        if event.open == self.slider_open:
            return
        out.changed = True
        asked = not self.in_step() and self.repair_plan()[:1] == [repair.SliderStep()]
        self.slider_open = event.open
        if not event.open:
            out.log.append(_t("The slider is closed."))
            return
        self.grid = [[] for _ in range(self.table.columns)]
        if self.game.is_over():
            out.log.append(_t("The slider emptied the grid; a new game begins."))
            self._start(self.next_rules, out)
        elif asked:
            out.log.append(_t("The slider emptied the grid, as asked."))
        elif self.game.moves:
            self.rebuilding = True
            self.problem = SLIDER_OPENED
            out.mistake = "slider"
            out.log.append(
                _t(
                    "The slider was opened mid-game: close it and rebuild the position, "
                    "or hold the mode button to abandon the game."
                )
            )
        else:
            out.log.append(_t("The slider is open."))

    def _pressed(self, event: ButtonPressed, out: _Outcome) -> None:
        last, self.last_press_at = self.last_press_at, event.at
        if last is not None and event.at - last < DOUBLE_PRESS:
            self.last_press_at = None
            self._double_press(out)
            return
        self.rules_before_press = self.next_rules
        index = RULES_NAMES.index(self.next_rules) if self.next_rules in RULES_NAMES else -1
        self._choose(RULES_NAMES[(index + 1) % len(RULES_NAMES)], out)
        self.selecting = True

    def _double_press(self, out: _Outcome) -> None:
        """Mid-game, a hint for the player to move; between games (before the
        first move, or after the end), the next opponent. The first press of
        the pair moved the rules on: they go back."""
        before = self.rules_before_press
        out.changed = True
        if before is not None and before != self.next_rules:
            self.next_rules = before  # quietly: the double press says what it did
            if self._not_begun():
                self.game = self._fresh_game(before)
                out.new_game = True
        if self.game.moves and not self.game.is_over():
            self._hint(out)
            return
        self.seats.next_colour = next_seat(self.next_computer)
        if self._not_begun():
            self.game = self._fresh_game(self.game.rules.name)
            out.new_game = True
            out.log.append(_t("This game: {who}.", who=describe(self.next_computer)))
        else:
            out.log.append(_t("The next game: {who}.", who=describe(self.next_computer)))
        self.selecting = True

    def _hint(self, out: _Outcome) -> None:
        """A hint for the player to move, when one may be given."""
        self.selecting = False
        refused = self.seats.no_hint(self.game, self.in_step())
        if refused is not None:
            out.log.append(refused)
        else:
            assert self.game.to_move is not None
            out.hint = True
            out.log.append(_t("{colour} asked for a hint.", colour=player(self.game.to_move)))

    def choose_rules(self, name: str) -> Verdict:
        """Pick the rules of the next game; a game not yet begun takes them now."""
        out = _Outcome()
        self._chosen(name, out)
        return out.verdict()

    def _chosen(self, name: str, out: _Outcome) -> None:
        if name not in RULES_NAMES:
            out.log.append(_t("Ignored unknown rules {name}.", name=repr(name)))
            return
        settled = name == self.next_rules and (
            not self._not_begun() or self.game.rules.name == name
        )
        if not settled:
            self._choose(name, out)

    def choose_computer(self, colour: Colour | None) -> Verdict:
        """Who the computer plays in the next game (``None``: nobody); a game
        not yet begun takes it now."""
        out = _Outcome()
        self._opponent(colour, out)
        return out.verdict()

    def _opponent(self, colour: Colour | None, out: _Outcome) -> None:
        now = self._not_begun() and self.computer != self.seats.seat_for(colour, self.game_number)
        if colour == self.next_computer and not now:
            return
        out.changed = True
        self.seats.next_colour = colour
        if self._not_begun():
            self.game = self._fresh_game(self.game.rules.name)
            out.new_game = True
            out.log.append(_t("This game: {who}.", who=describe(colour)))
        else:
            out.log.append(_t("The next game: {who}.", who=describe(colour)))

    def choose_level(self, level: int) -> Verdict:
        """The computer's level in the next game; a game not yet begun takes it now."""
        out = _Outcome()
        self._level(level, out)
        return out.verdict()

    def _level(self, level: int, out: _Outcome) -> None:
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
        seat = self.computer
        now = self._not_begun() and seat is not None and seat.level != level
        if level == self.seats.next_level and not now:
            return
        out.changed = True
        self.seats.next_level = level
        if self._not_begun():
            self.game = self._fresh_game(self.game.rules.name)
            out.new_game = True
            out.log.append(_t("This game: the computer plays at level {level}.", level=level))
        else:
            out.log.append(_t("The next game: the computer plays at level {level}.", level=level))

    def _not_begun(self) -> bool:
        return not self.game.moves and not self.game.is_over() and self.start_rows is None

    def _choose(self, name: str, out: _Outcome) -> None:
        out.changed = True
        self.next_rules = name
        if self._not_begun():
            self.game = self._fresh_game(name)
            out.new_game = True
            out.log.append(
                _t("Rules changed to {title}.", title=words.rules_title(self.game.rules))
            )
        else:
            out.log.append(_t("The next game will be {title}.", title=words.title_of(name)))

    def _held(self, out: _Outcome) -> None:
        out.changed = True
        in_progress = bool(self.game.moves) and not self.game.is_over()
        emptied = self.rebuilding and not any(self.grid)
        if in_progress and not emptied and not self.abandon_armed:
            self.abandon_armed = True
            out.log.append(_t("Hold the mode button again to abandon this game."))
            return
        self.abandon_armed = False
        if in_progress:
            out.finished = self.game
            out.log.append(_t("The game was abandoned."))
        self._start(self.next_rules, out)

    def _start(self, rules: str, out: _Outcome) -> None:
        self.game_number += 1
        self.game = self._fresh_game(rules)
        self.problem = None
        self.rebuilding = False
        self.last_entry_at = None
        out.new_game = True
        out.log.append(_t("New game: {title}.", title=words.rules_title(self.game.rules)))

    def _fresh_game(self, name: str) -> Game:
        """A new game of ``name``; Pop 10 starts in its pop phase when the grid
        is already full of discs whose colours the referee knows."""
        rules = self.rules_for(name)
        self.start_rows = None
        self.seats.sit(self.game_number)
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

    # -- the computer opponent (controller.computer_seat) ----------------------

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
        what = _t(
            "The computer ({colour}) plays a {move}.",
            colour=player(seat.colour),
            move=self._physical(move),
        )
        return Verdict(changed=True, log=(what,))

    def _not_computers(self, move: Move, out: _Outcome) -> None:
        self._mistake(out, *self.seats.refusal(move, self._physical))

    # -- descriptions -----------------------------------------------------------

    def result_sentence(self) -> Text:
        result = self.game.result
        if result is None:
            return _t("The game is not over.")
        if result == "draw":
            return _t("The game is a draw.")
        assert isinstance(result, Colour)
        if self.game.rules.pop10:
            return _n(
                "{colour} wins with {n} disc set aside.",
                "{colour} wins with {n} discs set aside.",
                self.game.scores[result],
                colour=player(result),
            )
        return _t("{colour} wins.", colour=player(result))
