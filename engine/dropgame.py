"""The lean game for drop-only rules: Classic and 5-in-a-Row.

Search-style code calls ``legal_moves`` / ``play`` / ``is_over`` millions of
times, so this subclass specialises them once, at construction, for rules
without pops: a drop is one bit set, legality one set lookup, and the
legal moves change only when a column fills.
"""

from __future__ import annotations

from engine.bitboard import has_line
from engine.errors import IllegalMoveError
from engine.game import COLOURS, EMPTY, Game, PositionKey
from engine.move import Move
from engine.phase import Phase
from engine.rules import Rules


class DropGame(Game):
    """A :class:`Game` for rules without pops; same behaviour, less work per move.

    >>> from engine import new_game
    >>> game = new_game("classic")
    >>> for move in "4 4 3 3 2 2 1".split():
    ...     game.play(move)
    >>> game.result, sorted(game.winning_cells())
    (<Colour.RED: 'red'>, [(1, 1), (2, 1), (3, 1), (4, 1)])
    """

    def __init__(self, rules: Rules) -> None:
        if rules.pops or rules.pop10:
            raise ValueError("DropGame plays only rules without pops")
        super().__init__(rules)
        stride = self._stride
        self._k4 = rules.line == 4
        self._shifts = tuple(
            n * shift for shift in (stride, stride + 1, stride - 1) for n in (1, 2)
        )
        self._directions = self._layout.directions
        # without strips the mover needs k discs of their own before a line
        self._quiet = 0 if rules.strips else 2 * rules.line - 1

    def play(self, move: Move | str) -> None:
        if move not in self._legal_set:
            self._refuse(move)
            return
        column = move.column
        height = self._h[column]
        self._h[column] = height + 1
        side = self._side
        boards = self._bb
        at = self._base[column] + height
        board = boards[side] | 1 << at
        boards[side] = board
        moves = self._moves
        moves.append(move)
        if height == self._top:
            legal = self._legal = tuple([m for m in self._legal if m is not move])
            self._legal_set = frozenset(legal)
        if len(moves) >= self._quiet:
            if self._k4:
                across, across2, up, up2, down, down2 = self._shifts
                # vertical: only the column just played can hold a new run
                won = (
                    (height >= 3 and board >> at - 3 & 15 == 15)
                    or (pair := board & board >> across) & pair >> across2
                    or (pair := board & board >> up) & pair >> up2
                    or (pair := board & board >> down) & pair >> down2
                )
            else:
                won = has_line(board, self._rules.line, self._directions)
            if won:
                self._result = COLOURS[side]
                self._phase = Phase.OVER
                self._legal = ()
                self._legal_set = EMPTY
                return
        if not self._legal:
            self._result = "draw"
            self._phase = Phase.OVER
            self._legal_set = EMPTY
            return
        self._side = side ^ 1

    def past_positions(self) -> tuple[PositionKey, ...]:
        # no snapshots are kept (nothing repeats without pops): take the moves back
        game = self.copy()
        keys = [game.position_key()]
        for _move in self._moves:
            game.undo()
            keys.append(game.position_key())
        return tuple(reversed(keys))

    def undo(self) -> Move:
        if not self._moves:
            raise IllegalMoveError("there is no move to undo")
        move = self._moves.pop()
        side = (self._start_side + len(self._moves)) & 1
        column = move.column
        height = self._h[column] - 1
        self._h[column] = height
        self._bb[side] &= ~(1 << (self._base[column] + height))
        self._side = side
        self._result = None
        self._phase = Phase.PLAY
        self._passed = None
        self._refresh()
        return move
