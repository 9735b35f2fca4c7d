"""Discs in and out of the grid and the slider: the referee's moves and mistakes.

:class:`controller.referee.core.Referee` hands each disc and the slider here
with itself, as the :class:`Discs` these transitions read and change: while
the physical grid is the game's, a legal drop or pop is a move; anything
else changes only the referee's belief of the grid, and the board asks for
the steps back (:mod:`controller.referee.repair`).
"""

from __future__ import annotations

from typing import Protocol

from controller.i18n import words
from controller.i18n.text import Text, _t
from controller.i18n.words import player
from controller.referee import commentary, repair
from controller.referee.proxy import ProxySeat
from controller.referee.remote_seat import RemoteSeat
from controller.referee.table import Grid, Table
from controller.referee.verdict import Draft
from engine import Game, Move
from engine.colour import Colour
from hardware.events import DiscEntered, DiscLeft, SliderMoved

SLIDER_OPENED = _t("The slider was opened mid-game.")


class Discs(Protocol):
    """What a disc or the slider reads and changes of the referee."""

    table: Table
    grid: Grid
    game: Game
    slider_open: bool
    rebuilding: bool
    problem: Text | None
    last_entry_at: float | None
    remote: RemoteSeat

    @property
    def offset(self) -> int: ...

    def label(self, column: int) -> int: ...

    def in_step(self) -> bool: ...

    def repair_plan(self) -> list[repair.Step]: ...

    def expected_colour(self, column: int) -> Colour | None: ...

    def proxies(self) -> tuple[ProxySeat, ...]: ...

    def proxy_to_move(self) -> ProxySeat | None: ...

    def physical(self, move: Move) -> Text: ...

    def column_of(self, move: Move) -> int: ...

    def start_next(self, out: Draft) -> None: ...


def entered(referee: Discs, event: DiscEntered, out: Draft) -> None:
    """A disc passed the entry beam of ``event.column``."""
    column = event.column
    if referee.slider_open:
        out.log.append(
            _t(
                "A disc fell through column {column} while the slider was open.",
                column=referee.label(column),
            )
        )
        return
    if not 1 <= column <= referee.table.columns:
        out.log.append(
            _t(
                "Ignored a drop reported in column {column}: the grid has no such column.",
                column=column,
            )
        )
        return
    if len(referee.grid[column - 1]) >= referee.table.rows:
        out.log.append(
            _t(
                "Ignored a drop into column {column}, which the referee believes full.",
                column=referee.label(column),
            )
        )
        return
    out.changed = True
    playing = referee.in_step() and not referee.game.is_over()
    simultaneous = (
        referee.last_entry_at is not None
        and event.at - referee.last_entry_at < referee.table.simultaneous
    )
    if referee.table.colour_sensing:
        colour = event.colour
    elif simultaneous:
        # Nobody was asked for a disc that follows another this closely:
        # its colour is unknown, so a repair must take it out of the grid
        # rather than trust a guess (docs/soak.md, "Two discs at once").
        colour = None
    else:
        colour = referee.expected_colour(column)
    referee.last_entry_at = event.at
    steps = 0 if playing else _steps_left(referee)
    referee.grid[column - 1].append(colour)
    if not playing:
        _unasked(referee, steps, "in", referee.label(column), out)
        return
    mover = referee.game.to_move
    assert mover is not None
    move = Move.drop(column + referee.offset)
    if simultaneous:
        _mistake(
            referee,
            out,
            "two-discs",
            _t(
                "Two discs went in at once; the one in column {column} is extra.",
                column=referee.label(column),
            ),
        )
    elif colour is not mover:
        sentence = commentary.wrong_colour(colour, referee.label(column), mover)
        _mistake(referee, out, "wrong-colour", sentence)
    else:
        play(referee, move, out)


def left(referee: Discs, event: DiscLeft, out: Draft) -> None:
    """A disc left ``event.column`` at the bottom: popped, or taken out."""
    column = event.column
    if referee.slider_open:
        return
    if not 1 <= column <= referee.table.columns or not referee.grid[column - 1]:
        out.log.append(
            _t(
                "Ignored a disc leaving column {column}, which the referee believes empty.",
                column=referee.label(column),
            )
        )
        return
    out.changed = True
    playing = referee.in_step() and not referee.game.is_over()
    steps = 0 if playing else _steps_left(referee)
    referee.grid[column - 1].pop(0)
    if playing:
        play(referee, Move.pop(column + referee.offset), out)
    else:
        _unasked(referee, steps, "out", referee.label(column), out)


def _steps_left(referee: Discs) -> int:
    """How many steps the board still asks for to bring the grid back."""
    return 0 if referee.in_step() else len(referee.repair_plan())


def _unasked(referee: Discs, before: int, way: str, column: int, out: Draft) -> None:
    """Say so when a disc went ``way`` (in or out) of ``column`` while the board asked
    for something else, and it brought the grid no closer to the game:
    ``before`` steps were left before it. After a finished game (none
    left), the board asks only for the slider."""
    if before and _steps_left(referee) < before:
        return
    referee.problem, said = commentary.unasked(way == "in", column, game_over=before == 0)
    out.log.append(said)


def play(referee: Discs, move: Move, out: Draft) -> None:
    """``move`` was made on a grid that matched the game: played, or a mistake."""
    mover = referee.game.to_move
    assert mover is not None
    proxy = referee.proxy_to_move()
    if proxy is not None and move != proxy.move:
        _mistake(referee, out, *proxy.refusal(move, referee.column_of))
        return
    reason = referee.game.why_illegal(move, shift=referee.offset)
    if reason is not None:
        what = _t(
            "{colour}'s {move} is not allowed: {reason}.",
            colour=player(mover),
            move=referee.physical(move),
            reason=words.reason(reason),
        )
        _mistake(referee, out, f"illegal-{move.kind.value}", what)
        return
    scored = referee.game.scores[mover]
    referee.game.play(move)
    for seat in referee.proxies():
        seat.move = None
    referee.remote.agreement.settled()  # a takeback asked was for the position before
    out.accepted = move
    column = referee.column_of(move)
    out.log.extend(
        commentary.played(referee.game, mover, move, column, referee.game.scores[mover] > scored)
    )
    if referee.game.is_over():
        out.finished = referee.game


def _mistake(referee: Discs, out: Draft, kind: str, sentence: Text) -> None:
    out.mistake = kind
    referee.problem = sentence
    out.log.append(sentence)


def slider(referee: Discs, event: SliderMoved, out: Draft) -> None:
    """The slider opened (emptying the grid) or closed."""
    if event.open == referee.slider_open:
        return
    out.changed = True
    asked = not referee.in_step() and referee.repair_plan()[:1] == [repair.SliderStep()]
    referee.slider_open = event.open
    if not event.open:
        out.log.append(_t("The slider is closed."))
        return
    referee.grid = [[] for _ in range(referee.table.columns)]
    if referee.game.is_over():
        out.log.append(_t("The slider emptied the grid; a new game begins."))
        referee.start_next(out)
    elif asked:
        out.log.append(_t("The slider emptied the grid, as asked."))
    elif referee.game.moves:
        referee.rebuilding = True
        referee.problem = SLIDER_OPENED
        out.mistake = "slider"
        out.log.append(
            _t(
                "The slider was opened mid-game: close it and rebuild the position, "
                "or hold the mode button to abandon the game."
            )
        )
    else:
        out.log.append(_t("The slider is open."))
