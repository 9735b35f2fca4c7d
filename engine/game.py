"""The game: one model for every rules preset, on bitboards.

:class:`Game` plays every option of :class:`~engine.rules.Rules` through one
general path. Drop-only games (Classic, 5-in-a-Row) use the leaner
:class:`~engine.dropgame.DropGame`; :func:`~engine.start.new_game` picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

from engine.bitboard import Layout, has_line, line_cells, pop_column
from engine.colour import Colour
from engine.errors import GameOverError, IllegalMoveError, InvalidMoveError
from engine.explain import explain
from engine.move import Move, MoveKind, parse_move
from engine.phase import Phase
from engine.rules import Rules

COLOURS = (Colour.RED, Colour.YELLOW)
EMPTY: frozenset[Move] = frozenset()
Result = Colour | Literal["draw"]


class PositionKey(NamedTuple):
    """A position as :meth:`Game.position_key` gives it: equal for equal
    positions with the same player to move, and readable field by field (what
    a search needs, as python-chess exposes its occupied sets).

    ``red`` and ``yellow`` are each side's discs as a bitboard in
    :mod:`engine.bitboard`'s layout (column-major: the cell of 1-based
    ``column`` and ``row``, row 1 at the bottom, is bit ``(column - 1) *
    (height + 1) + row - 1``; 5-in-a-Row's strips included). ``to_move`` is
    None once the game is over; ``pending_return`` and the scores are Pop 10's.
    """

    red: int
    yellow: int
    to_move: Colour | None
    phase: Phase
    pending_return: int | None
    red_score: int
    yellow_score: int


def outcome(result: Result) -> str:
    """``"Red won"``, ``"Yellow won"`` or ``"it was a draw"``."""
    return "it was a draw" if result == "draw" else f"{Colour(result).title} won"


class Game:
    """A game in progress under one set of rules.

    >>> from engine import new_game
    >>> game = new_game("popout", (5, 4))
    >>> for move in "1 2 1 2 1 2 1".split():
    ...     game.play(move)
    >>> game.result, game.phase, game.to_move
    (<Colour.RED: 'red'>, <Phase.OVER: 'over'>, None)
    >>> game.undo(), game.to_move
    (Move.drop(1), <Colour.RED: 'red'>)
    """

    def __init__(self, rules: Rules) -> None:
        layout = Layout.of(rules.width, rules.height)
        self._rules = rules
        self._layout = layout
        self._stride = layout.stride
        self._top = rules.height - 1
        self._base = [0, *(i * layout.stride for i in range(rules.width))]  # 1-based columns
        self._playable = rules.playable_columns
        self._playable_cells = sum(layout.column_masks[c - 1] for c in self._playable)
        self._playable_bottom = self._playable_cells & layout.bottom
        self._drop_moves = [Move.drop(c) for c in range(1, rules.width + 1)]
        self._pop_moves = [Move.pop(c) for c in range(1, rules.width + 1)]
        self._bb = [0, 0]
        self._h = [0] * (rules.width + 1)
        if rules.strips:
            self._fill_strips()
        self._side = 0
        self._start_side = 0
        self._result: Result | None = None
        self._phase = Phase.FILL if rules.pop10 else Phase.PLAY
        self._scores = [0, 0]
        self._passed: Colour | None = None
        self._pending: int | None = None
        self._moves: list[Move] = []
        self._history: list[tuple[Any, ...]] = []
        self._counts: dict[PositionKey, int] = {}
        self._counted: list[PositionKey | None] = []
        self._legal: tuple[Move, ...] = ()
        self._legal_set: frozenset[Move] = EMPTY
        self._start()

    def _fill_strips(self) -> None:
        # left strip R, Y, R, ... from the bottom; right strip Y, R, Y, ...
        width = self._rules.width
        for row in range(self._rules.height):
            self._bb[row % 2] |= 1 << (self._base[1] + row)
            self._bb[1 - row % 2] |= 1 << (self._base[width] + row)
        self._h[1] = self._h[width] = self._rules.height

    def _start(self) -> None:
        """Recompute everything derived once the position is set up."""
        self._start_side = self._side
        self._refresh()
        if self._rules.repetition is not None and self._result is None:
            self._counts = {self.position_key(): 1}

    # -- the state -----------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rules this game is played under."""
        return self._rules

    @property
    def to_move(self) -> Colour | None:
        """Whose turn it is; None once the game is over."""
        return None if self._result is not None else COLOURS[self._side]

    @property
    def result(self) -> Result | None:
        """The winner's colour, ``"draw"``, or None while the game goes on."""
        return self._result

    @property
    def phase(self) -> Phase:
        """The phase of the game (always PLAY or OVER outside Pop 10)."""
        return self._phase

    @property
    def scores(self) -> dict[Colour, int]:
        """Discs set aside as points in Pop 10 (a copy)."""
        return {Colour.RED: self._scores[0], Colour.YELLOW: self._scores[1]}

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves played so far."""
        return tuple(self._moves)

    @property
    def passed(self) -> Colour | None:
        """In Pop 10, whose turn the last move made the game skip."""
        return self._passed

    @property
    def pending_return(self) -> int | None:
        """In Pop 10's RETURN phase, the column the popped disc came from."""
        return self._pending

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._result is not None

    def legal_moves(self) -> Sequence[Move]:
        """The moves the player to move may play, drops first (do not mutate)."""
        return self._legal

    def is_legal(self, move: Move | str) -> bool:
        """Whether ``move`` may be played now."""
        if isinstance(move, str):
            move = parse_move(move)
        return move in self._legal_set

    def why_illegal(self, move: Move | str, shift: int = 0) -> str | None:
        """Why ``move`` may not be played now, in words for players; None if legal.
        ``shift``: see :func:`engine.explain.explain`."""
        if isinstance(move, str):
            move = parse_move(move)
        if move in self._legal_set:
            return None
        if self._result is not None:
            return f"the game is over: {outcome(self._result)}"
        return explain(self, move, shift)

    def column(self, column: int) -> tuple[Colour, ...]:
        """The discs of a 1-based column, bottom up."""
        base = self._base[self._check_column(column)]
        red = self._bb[0]
        return tuple(
            Colour.RED if red >> (base + row) & 1 else Colour.YELLOW
            for row in range(self._h[column])
        )

    def height(self, column: int) -> int:
        """How many discs a 1-based column holds."""
        return self._h[self._check_column(column)]

    def rows(self) -> tuple[str, ...]:
        """The board, rows top first, one character a cell: ``.``, ``R``, ``Y``."""
        red, yellow = self._bb
        lines = []
        for row in range(self._rules.height - 1, -1, -1):
            cells = []
            for base in self._base[1:]:
                bit = 1 << (base + row)
                cells.append("R" if red & bit else "Y" if yellow & bit else ".")
            lines.append("".join(cells))
        return tuple(lines)

    def winning_cells(self) -> frozenset[tuple[int, int]]:
        """The winner's line cells as ``(column, row)``, row 1 at the bottom.

        Empty unless a line decided the game (so always empty in Pop 10).
        """
        if not isinstance(self._result, Colour) or self._rules.pop10:
            return frozenset()
        board = self._bb[COLOURS.index(self._result)]
        cells = line_cells(board, self._rules.line, self._layout.directions)
        return frozenset(self._layout.cells(cells))

    def position_key(self) -> PositionKey:
        """A hashable value equal for equal positions with the same player to move."""
        to_move = None if self._result is not None else COLOURS[self._side]
        red_score, yellow_score = self._scores
        return PositionKey(
            self._bb[0], self._bb[1], to_move, self._phase, self._pending, red_score, yellow_score
        )

    def past_positions(self) -> tuple[PositionKey, ...]:
        """Every position of the game so far, the start first and the current one last.

        >>> from engine import new_game
        >>> game = new_game("popout", (4, 4))
        >>> for move in "1 2 p1".split():
        ...     game.play(move)
        >>> [(key.red, key.yellow, str(key.to_move)) for key in game.past_positions()]
        [(0, 0, 'red'), (1, 0, 'yellow'), (1, 32, 'red'), (0, 32, 'yellow')]
        """
        return (
            *(
                PositionKey(red, yellow, COLOURS[side], phase, pending, red_score, yellow_score)
                for red, yellow, _h, side, _result, phase, red_score, yellow_score, _passed, pending
                in self._history
            ),
            self.position_key(),
        )  # fmt: skip

    def copy(self) -> Game:
        """An independent copy of this game, history included."""
        twin = object.__new__(type(self))
        # attribute by attribute, in order: the copy keeps CPython's compact
        # shared-key layout, which a __dict__.update would give up (slower play)
        for name, value in self.__dict__.items():
            setattr(twin, name, value)
        twin._bb = self._bb.copy()
        twin._h = self._h.copy()
        twin._scores = self._scores.copy()
        twin._moves = self._moves.copy()
        twin._history = self._history.copy()
        twin._counted = self._counted.copy()
        twin._counts = self._counts.copy()
        return twin

    def __str__(self) -> str:
        return "\n".join(self.rows())

    def __repr__(self) -> str:
        state = outcome(self._result) if self._result is not None else f"{self.to_move} to move"
        return f"<Game {self._rules.name} {self._rules.width}x{self._rules.height}: {state}>"

    def _check_column(self, column: int) -> int:
        if type(column) is not int or not 1 <= column <= self._rules.width:
            raise IndexError(f"there is no column {column!r}: columns are 1-{self._rules.width}")
        return column

    # -- playing -------------------------------------------------------------

    def play(self, move: Move | str) -> None:
        """Play ``move`` (a :class:`Move` or its notation) for the player to move.

        Raises :class:`IllegalMoveError` saying why when the rules forbid it,
        :class:`GameOverError` after the end and :class:`InvalidMoveError` for
        text that is not a move.
        """
        if move not in self._legal_set:
            self._refuse(move)
            return
        self._history.append(self._snapshot())
        self._moves.append(move)
        self._passed = None
        phase = self._phase
        if phase is Phase.PLAY:
            self._play_turn(move)
        elif phase is Phase.FILL:
            self._fill_turn(move.column)
        elif phase is Phase.POP:
            self._pop_turn(move.column)
        else:
            self._return_turn(move.column)
        self._counted.append(self._count_position())
        self._refresh()

    def after(self, move: Move | str) -> Game:
        """The game after ``move``, leaving this one as it is (raising as
        :meth:`play` does).

        >>> from engine import new_game
        >>> game = new_game("classic")
        >>> game.after("4").moves, game.moves
        ((Move.drop(4),), ())
        """
        twin = self.copy()
        twin.play(move)
        return twin

    def undo(self) -> Move:
        """Take back the last move and return it."""
        if not self._moves:
            raise IllegalMoveError("there is no move to undo")
        key = self._counted.pop()
        if key is not None:
            self._counts[key] -= 1
        (
            red, yellow, heights, self._side, self._result, self._phase,
            red_score, yellow_score, self._passed, self._pending,
        ) = self._history.pop()  # fmt: skip
        self._bb = [red, yellow]
        self._h = list(heights)
        self._scores = [red_score, yellow_score]
        self._refresh()
        return self._moves.pop()

    def _refuse(self, move: Move | str) -> None:
        """Play a move given as text, or raise the reason ``move`` is refused."""
        if isinstance(move, str):
            parsed = parse_move(move)
            if parsed in self._legal_set:
                self.play(parsed)
                return
            move = parsed
        elif not isinstance(move, Move):
            raise InvalidMoveError(f"{move!r} is not a move")
        if self._result is not None:
            raise GameOverError(f"the game is over: {outcome(self._result)}")
        raise IllegalMoveError(explain(self, move))

    def _snapshot(self) -> tuple[Any, ...]:
        return (
            self._bb[0], self._bb[1], tuple(self._h), self._side, self._result, self._phase,
            self._scores[0], self._scores[1], self._passed, self._pending,
        )  # fmt: skip

    def _finish(self, result: Result) -> None:
        self._result = result
        self._phase = Phase.OVER

    def _has_line(self, side: int) -> bool:
        return has_line(self._bb[side], self._rules.line, self._layout.directions)

    def _drop(self, column: int, side: int) -> None:
        height = self._h[column]
        self._h[column] = height + 1
        self._bb[side] |= 1 << (self._base[column] + height)

    def _pop(self, column: int) -> None:
        mask = self._layout.column_masks[column - 1]
        bottom = 1 << self._base[column]
        self._bb = [pop_column(board, mask, bottom) for board in self._bb]
        self._h[column] -= 1

    def _occupied(self) -> int:
        return (self._bb[0] | self._bb[1]) & self._playable_cells

    def _play_turn(self, move: Move) -> None:
        side = self._side
        if move.kind is MoveKind.DROP:
            self._drop(move.column, side)
            if self._has_line(side):
                self._finish(COLOURS[side])
            elif self._occupied() == self._playable_cells:
                self._finish("draw")
            else:
                self._side = side ^ 1
            return
        self._pop(move.column)
        mine, theirs = self._has_line(side), self._has_line(side ^ 1)
        if mine and theirs:
            popper_wins = self._rules.both_lines == "popper"
            self._finish(COLOURS[side if popper_wins else side ^ 1])
        elif mine or theirs:
            self._finish(COLOURS[side if mine else side ^ 1])
        elif not self._occupied():
            self._finish("draw")
        else:
            self._side = side ^ 1

    def _fill_turn(self, column: int) -> None:
        self._drop(column, self._side)
        if self._occupied() == self._playable_cells:
            self._phase = Phase.POP
            self._begin_pop_turn(self._side ^ 1)
        else:
            self._side ^= 1

    def _pop_turn(self, column: int) -> None:
        side = self._side
        # the line is judged on the grid before the pop, strips included
        lines = line_cells(self._bb[side], self._rules.line, self._layout.directions)
        scoring = lines >> self._base[column] & 1
        self._pop(column)
        if not scoring:
            self._phase = Phase.RETURN
            self._pending = column
            return
        self._scores[side] += 1
        if self._scores[side] >= self._rules.target:
            self._finish(COLOURS[side])
        else:
            self._begin_pop_turn(side)

    def _return_turn(self, column: int) -> None:
        self._drop(column, self._side)
        self._pending = None
        self._phase = Phase.POP
        self._begin_pop_turn(self._side ^ 1)

    def _begin_pop_turn(self, side: int) -> None:
        """Give ``side`` the turn, passing it on when they have nothing to pop."""
        self._side = side
        bottom = self._playable_bottom
        if self._bb[side] & bottom:
            return
        if not self._bb[side ^ 1] & bottom:
            self._finish("draw")
            return
        self._passed = COLOURS[side]
        self._side = side ^ 1

    def _count_position(self) -> PositionKey | None:
        limit = self._rules.repetition
        if limit is None or self._result is not None:
            return None
        key = self.position_key()
        count = self._counts[key] = self._counts.get(key, 0) + 1
        if count >= limit:
            self._finish("draw")
        return key

    def _refresh(self) -> None:
        self._legal = self._compute_legal()
        self._legal_set = frozenset(self._legal)

    def _compute_legal(self) -> tuple[Move, ...]:
        if self._result is not None:
            return ()
        heights, full = self._h, self._rules.height
        drops, pops = self._drop_moves, self._pop_moves
        phase, playable = self._phase, self._playable
        if phase is Phase.FILL:
            lowest = min(heights[c] for c in playable)
            return tuple(drops[c - 1] for c in playable if heights[c] == lowest)
        if phase is Phase.RETURN:
            room = [c for c in playable if heights[c] < full and c != self._pending]
            return tuple(drops[c - 1] for c in room or [self._pending or 0])
        own = self._bb[self._side]
        popping = self._rules.pops or phase is Phase.POP
        legal = [] if phase is Phase.POP else [drops[c - 1] for c in playable if heights[c] < full]
        if popping:
            legal += [pops[c - 1] for c in playable if own >> self._base[c] & 1]
        return tuple(legal)
