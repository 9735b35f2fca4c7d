"""The pure-Python twin of ``_core.c``: the same negamax, the same answers.

Used when the compiled core is missing (no compiler at install time) and by
the tests that check that both cores agree. See ``_core.c`` for the board
layout and the table format; this module keeps the table as a dict instead
of the caller's bytearray, so its size is capped by :data:`MAX_ENTRIES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

MAX_ENTRIES = 1 << 20  # a dict entry costs far more than the core's 8 bytes
ETC_LEFT = 14  # _core.c's: where more cells are empty, a child's bound may end a node first


@dataclass
class Board:
    """The masks of one board size."""

    width: int
    height: int
    cells: int = field(init=False)
    bottom: int = field(init=False)
    full: int = field(init=False)
    columns: tuple[int, ...] = field(init=False)  # playable cells, centre first

    def __post_init__(self) -> None:
        stride = self.height + 1
        self.cells = self.width * self.height
        self.bottom = sum(1 << (c * stride) for c in range(self.width))
        self.full = self.bottom * ((1 << self.height) - 1)
        order = [self.width // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2) for i in range(self.width)]
        self.columns = tuple(((1 << self.height) - 1) << (c * stride) for c in order)

    def winning_cells(self, pos: int, mask: int) -> int:
        """Empty cells that would complete a line of four for ``pos``."""
        h = self.height
        r = (pos << 1) & (pos << 2) & (pos << 3)
        for d in (h + 1, h, h + 2):
            p = (pos << d) & (pos << (2 * d))
            r |= (p & (pos << (3 * d))) | (p & (pos >> d))
            p = (pos >> d) & (pos >> (2 * d))
            r |= (p & (pos << d)) | (p & (pos >> (3 * d)))
        return r & (self.full ^ mask)

    def non_losing_moves(self, current: int, mask: int) -> int:
        """The moves (as cells) that do not hand the opponent a win next turn."""
        possible = (mask + self.bottom) & self.full
        threats = self.winning_cells(current ^ mask, mask)
        forced = possible & threats
        if forced:
            if forced & (forced - 1):
                return 0
            possible = forced
        return possible & ~(threats >> 1)


@cache
def board_of(width: int, height: int) -> Board:
    """The shared masks of a board size."""
    return Board(width, height)


class Stopped(Exception):
    """Raised inside the search when ``should_stop`` says so."""


def negamax(
    table: dict[int, int],
    width: int,
    height: int,
    current: int,
    mask: int,
    moves: int,
    alpha: int,
    beta: int,
    should_stop: Callable[[], bool] | None,
    check_every: int,
) -> tuple[int | None, int]:
    """The score within ``[alpha, beta]`` (fail-soft) and the nodes searched."""
    board = board_of(width, height)
    cells = board.cells
    score_min = -(cells // 2) - 1
    nodes = 0
    next_check = check_every

    def search(current: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        nonlocal nodes, next_check
        nodes += 1
        if nodes >= next_check:
            next_check = nodes + check_every
            if should_stop is not None and should_stop():
                raise Stopped
        moves_left = board.non_losing_moves(current, mask)
        if not moves_left:
            return -((cells - moves) // 2)
        if moves >= cells - 2:
            return 0
        low = -((cells - 2 - moves) // 2)
        if alpha < low:
            alpha = low
            if alpha >= beta:
                return alpha
        high = (cells - 1 - moves) // 2
        if beta > high:
            beta = high
            if alpha >= beta:
                return beta
        key = current + mask
        bound = table.get(key)
        if bound is not None:
            if bound >= 0:  # an upper bound, stored as value - score_min
                upper = bound + score_min
                if beta > upper:
                    beta = upper
                    if alpha >= beta:
                        return beta
            else:  # a lower bound, stored as ~(value - score_min)
                lower = ~bound + score_min
                if alpha < lower:
                    alpha = lower
                    if alpha >= beta:
                        return alpha
        ranked: list[tuple[int, int, int]] = []
        for column in board.columns:
            move = moves_left & column
            if move:
                rank = board.winning_cells(current | move, mask | move).bit_count()
                ranked.append((-rank, len(ranked), move))
        ranked.sort()
        opponent = current ^ mask
        if cells - moves > ETC_LEFT:  # a child already stored low enough ends it
            for _rank, _index, move in ranked:
                bound = table.get(opponent + (mask | move))
                if bound is None or bound < 0:  # none stored, or a lower bound
                    continue
                value = -(bound + score_min)  # at least, for the mover
                if value >= beta:
                    _store(table, key, ~(value - score_min))
                    return value
        for _rank, _index, move in ranked:
            value = -search(opponent, mask | move, moves + 1, -beta, -alpha)
            if value >= beta:
                _store(table, key, ~(value - score_min))
                return value
            alpha = max(alpha, value)
        _store(table, key, alpha - score_min)
        return alpha

    try:
        return search(current, mask, moves, alpha, beta), nodes
    except Stopped:
        return None, nodes


def _store(table: dict[int, int], key: int, value: int) -> None:
    if len(table) >= MAX_ENTRIES and key not in table:
        table.clear()  # crude, but keeps memory bounded; values stay exact
    table[key] = value
