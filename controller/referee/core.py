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
:mod:`controller.referee.remote_seat`, and takes its sentences about play from
:mod:`controller.referee.commentary`.

>>> from hardware.events import DiscEntered
>>> referee = Referee(Table(columns=7, rows=6), "classic")
>>> referee.handle(DiscEntered(4, at=1.0)).accepted
Move.drop(4)
>>> referee.game.to_move
<Colour.YELLOW: 'yellow'>
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal, assert_never

from controller.i18n import words
from controller.i18n.text import Text, _t
from controller.i18n.words import player, reason
from controller.referee import commentary, repair, takeback
from controller.referee.agreement import Heard
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
from controller.referee.computer_seat import MAX_LEVEL, MIN_LEVEL, ComputerSeat, Seat, describe
from controller.referee.controls import Controls
from controller.referee.pairing_window import Answer, PairingWindow
from controller.referee.proxy import ProxySeat
from controller.referee.remote_seat import RemoteSeat
from controller.referee.verdict import Draft, Verdict, Word
from engine import RULES_NAMES, Game, Move, Rules, game_from_position, new_game, rules_named
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


Grid = list[list[Colour | None]]


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

    def _answered_pairing(self, button: ButtonPressed | ButtonHeld, out: Draft) -> bool:
        """The mode button ends a pending pairing request (the rule:
        :mod:`controller.referee.pairing_window`); whether it did nothing else."""
        answer = self.pairing.pressed(button.at, held=isinstance(button, ButtonHeld))
        if answer is Answer.NONE:
            return False
        out.changed = True
        if answer is Answer.GRANTED:
            out.paired = True
            out.log.append(_t("The mode button paired a browser."))
            return True
        out.log.append(
            _t("The mode button refused the pairing request: the browser was not paired.")
        )
        return False

    def handle(self, event: Input) -> Verdict:
        out = Draft()
        out.log += self.controls.before(event)
        if isinstance(event, ButtonPressed | ButtonHeld) and self._answered_pairing(event, out):
            return out.verdict()
        if isinstance(event, Command):
            self._command(event, out)
            return out.verdict()
        self.controls.saw(event)
        if isinstance(event, DiscEntered):
            self._entered(event, out)
        elif isinstance(event, DiscLeft):
            self._left(event, out)
        elif isinstance(event, SliderMoved):
            self._slider(event, out)
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
            self._rules_chosen(command.rules, out)
        elif isinstance(command, OpponentChosen):
            self._computer_chosen(command.plays, out)
        elif isinstance(command, LevelChosen):
            self._level_chosen(command.level, out)
        elif isinstance(command, HintAsked):
            self.controls.hint(self, out)
        elif isinstance(command, NewGameAsked):
            self.controls.new_game(self, out)
        elif isinstance(command, TakebackAsked):
            self.take_back(out)
        elif isinstance(command, TakebackDeclined):
            self._decline_takeback(out)
        elif isinstance(command, TakebackHeard):
            self._heard_takeback(command, out)
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
            self.remote.invited(command.invitation, self.game.is_over(), out)
            if self.seats.leave(colour):
                out.log.append(self.remote.computer_left(colour))
        elif isinstance(command, RemoteRequested):
            self.remote.requested(command, self, out)
        elif isinstance(command, RemoteRevoked):
            self.remote.revoked(command.expired, out)
        else:
            assert_never(command)

    def _entered(self, event: DiscEntered, out: Draft) -> None:
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
            sentence = commentary.wrong_colour(colour, self.label(column), mover)
            self._mistake(out, "wrong-colour", sentence)
        else:
            self._play(move, out)

    def _left(self, event: DiscLeft, out: Draft) -> None:
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

    def _unasked(self, before: int, way: str, column: int, out: Draft) -> None:
        """Say so when a disc went ``way`` (in or out) of ``column`` while the board asked
        for something else, and it brought the grid no closer to the game:
        ``before`` steps were left before it. After a finished game (none
        left), the board asks only for the slider."""
        if before and self._steps_left() < before:
            return
        self.problem, said = commentary.unasked(way == "in", column, game_over=before == 0)
        out.log.append(said)

    def _play(self, move: Move, out: Draft) -> None:
        mover = self.game.to_move
        assert mover is not None
        proxy = self.proxy_to_move()
        if proxy is not None and move != proxy.move:
            self._mistake(out, *proxy.refusal(move, self.column_of))
            return
        reason = self.game.why_illegal(move, shift=self.offset)
        if reason is not None:
            what = _t(
                "{colour}'s {move} is not allowed: {reason}.",
                colour=player(mover),
                move=self.physical(move),
                reason=words.reason(reason),
            )
            self._mistake(out, f"illegal-{move.kind.value}", what)
            return
        scored = self.game.scores[mover]
        self.game.play(move)
        for seat in self.proxies():
            seat.move = None
        self.remote.agreement.settled()  # a takeback asked was for the position before
        out.accepted = move
        column = self.column_of(move)
        out.log.extend(
            commentary.played(self.game, mover, move, column, self.game.scores[mover] > scored)
        )
        if self.game.is_over():
            out.finished = self.game

    def physical(self, move: Move) -> Text:
        """``move`` as the hands make it, naming the grid's own column."""
        return commentary.physical(move, self.column_of(move))

    def column_of(self, move: Move) -> int:
        """The physical column of ``move``: the grid's own number."""
        return self.label(move.column - self.offset)

    def _mistake(self, out: Draft, kind: str, sentence: Text) -> None:
        out.mistake = kind
        self.problem = sentence
        out.log.append(sentence)

    def _slider(self, event: SliderMoved, out: Draft) -> None:
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
            self.start_next(out)
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

    # -- the games, one after another -------------------------------------------

    def choose_rules(self, name: str) -> Verdict:
        """Pick the rules of the next game; a game not yet begun takes them now."""
        out = Draft()
        self._rules_chosen(name, out)
        return out.verdict()

    def choose_computer(self, colour: Colour | None) -> Verdict:
        """Who the computer plays in the next game (``None``: nobody); a game
        not yet begun takes it now."""
        out = Draft()
        self._computer_chosen(colour, out)
        return out.verdict()

    def choose_level(self, level: int) -> Verdict:
        """The computer's level in the next game; a game not yet begun takes it now."""
        out = Draft()
        self._level_chosen(level, out)
        return out.verdict()

    def _rules_chosen(self, name: str, out: Draft) -> None:
        if name not in RULES_NAMES:
            out.log.append(_t("Ignored unknown rules {name}.", name=repr(name)))
            return
        settled = name == self.next_rules and (not self.not_begun() or self.game.rules.name == name)
        if not settled:
            out.log.append(self.pick_rules(name, out))

    def _computer_chosen(self, colour: Colour | None, out: Draft) -> None:
        if colour is not None and self.friend_plays(colour):
            out.log.append(
                _t(
                    "Ignored: a friend plays {colour}; revoke the invitation first.",
                    colour=player(colour),
                )
            )
            return
        now = self.not_begun() and self.computer != self.seats.seat_for(colour, self.game_number)
        if colour != self.next_computer or now:
            self.seat_computer(colour, out)

    def _level_chosen(self, level: int, out: Draft) -> None:
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
        now = self.not_begun() and seat is not None and seat.level != level
        if level == self.seats.next_level and not now:
            return
        out.changed = True
        self.seats.next_level = level
        if self._renew(self.game.rules.name, out):
            out.log.append(_t("This game: the computer plays at level {level}.", level=level))
        else:
            out.log.append(_t("The next game: the computer plays at level {level}.", level=level))

    def pick_rules(self, name: str, out: Draft) -> Text:
        """Choose ``name`` for the next game (for this one if it has not
        begun); the sentence that says so, left for the caller to say (the
        mode button holds it back)."""
        out.changed = True
        self.next_rules = name
        if self._renew(name, out):
            return _t("Rules changed to {title}.", title=words.rules_title(self.game.rules))
        return _t("The next game will be {title}.", title=words.title_of(name))

    def take_back_rules(self, name: str, out: Draft) -> None:
        """Put the rules chosen back to ``name``, saying nothing (a double
        press says what it did instead)."""
        if name != self.next_rules:
            self.next_rules = name
            self._renew(name, out)

    def seat_computer(self, colour: Colour | None, out: Draft) -> None:
        """The computer plays ``colour`` in the next game (``None``: nobody),
        in this one if it has not begun."""
        out.changed = True
        self.seats.next_colour = colour
        if self._renew(self.game.rules.name, out):
            out.log.append(_t("This game: {who}.", who=describe(colour)))
        else:
            out.log.append(_t("The next game: {who}.", who=describe(colour)))

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
        """The next game begins now; a game in progress is abandoned."""
        out.changed = True
        if self.in_progress():
            out.finished = self.game
            out.log.append(_t("The game was abandoned."))
        self.start_next(out)

    def take_back(self, out: Draft) -> None:
        """Take back the last move (against the computer, the person's last
        turn); the grid is left as it is, and the repair leads it back. With
        a remote seat, only once the other side agrees too."""
        computer = self.computer.colour if self.computer is not None else None
        refused = takeback.refusal(self.game, computer)
        if refused is not None:
            out.log.append(refused)
            return
        if self.remote.colour() is None:
            self._take_off(takeback.plies(self.game, computer), out)
            return
        agreement = self.remote.agreement
        if agreement.ours:
            out.log.append(_t("The takeback is asked already; waiting for the other side."))
            return
        out.changed = True
        out.word = Word(agreement.epoch, len(self.game.moves), agree=True)
        if agreement.asked():
            self._take_off(1, out)
            return
        out.log.append(_t("Asked the other side to take back {move}.", move=self.last_move()))

    def _decline_takeback(self, out: Draft) -> None:
        if not self.remote.agreement.decline():
            out.log.append(_t("Nothing to decline: nobody asks to take a move back."))
            return
        out.changed = True
        out.word = Word(self.remote.agreement.epoch, len(self.game.moves), agree=False)
        out.log.append(_t("You declined to take back {move}; play on.", move=self.last_move()))

    def _heard_takeback(self, word: TakebackHeard, out: Draft) -> None:
        """The other side's word on a takeback (a replay or a stale word changes nothing)."""
        if self.remote.invitation is None:
            return
        moves = len(self.game.moves)
        heard = self.remote.agreement.heard(word.seq, word.epoch, word.ply, word.agree, moves)
        if heard is Heard.REPLAY:
            return
        out.changed = True  # its number is kept: a replay after a restart is still one
        if heard in (Heard.AGREED, Heard.CAUGHT_UP):
            self._take_off(1, out)
        elif heard is Heard.ASKED:
            out.log.append(self.takeback_question())
        elif heard is Heard.DECLINED:
            out.log.append(_t("The other side declined the takeback; play on."))

    def last_move(self) -> Text:
        """The last move as a takeback names it: who made it and how."""
        probe = self.game.copy()
        move = probe.undo()
        mover = probe.to_move
        assert mover is not None  # a position before a move has a side to move
        return _t("{colour}'s {move}", colour=player(mover), move=self.physical(move))

    def takeback_question(self) -> Text:
        """What this side is asked when the other side wants the last move back."""
        return _t(
            "The other side asks to take back {move}: take it back too to agree, or decline.",
            move=self.last_move(),
        )

    def _take_off(self, count: int, out: Draft) -> None:
        """Take the last ``count`` moves back; the repair leads the grid after."""
        out.changed = True
        taken = takeback.take_off(self.game, count)
        self.takebacks += 1
        if self.remote.colour() is not None:
            self.remote.agreement.took_back()
        for seat in self.proxies():
            seat.move = None
        said = takeback.undone([(mover, self.physical(move)) for mover, move in taken])
        out.log.append(said)
        self.problem = None if self.in_step() else said

    def _renew(self, rules: str, out: Draft) -> bool:
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

    def at_stake(self) -> bool:
        """Whether a new game now would abandon a game in progress whose
        position is still on the grid (the slider has not emptied it)."""
        return self.in_progress() and not (self.rebuilding and not any(self.grid))

    def start_next(self, out: Draft) -> None:
        """The next game begins, with the rules chosen for it."""
        self.game_number += 1
        self.takebacks = 0
        self.remote.next_game()
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
