"""The pure-Python twin of ``_search.c``: the same model, search and answers.

Used when the compiled core is missing (no compiler at install time) and by
the tests that check both cores agree: for the same calls they return the
same scores, moves and node counts, and they share the table's format (a
bytearray of 24-byte slots, read here through a ``memoryview`` of 64-bit
words). See ``_search.c`` for the state, the keys and the table,
:mod:`engine.solver.model` for the model's parameters (one named structure,
read by name on both sides) and :mod:`engine.solver.evaluation` for the
judgement, which this twin does not restate but inherits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import bitboard
from engine.solver.evaluation import EVAL_CAP, Evaluation
from engine.solver.model import ModelSpec

WIN = 100_000
INF = WIN + 1
THREAT_PENALTY = 50_000
MASK64 = (1 << 64) - 1
PLAY, FILL, POP, RETURN = 0, 1, 2, 3
ONGOING, DRAW = -1, 2
EXACT, LOWER, UPPER = 1, 2, 3
MAX_PATH = 256
NO_REACH = MAX_PATH  # no repetition below: the value is the position's own
HISTORY = -2  # a repetition of the game's past, or any under the rule

State = tuple[int, int, int, int, int, int, int]  # b0, b1, side, phase, pending, s0, s1


class Model(Evaluation):
    """The board and rules of one game, as ``_search.c``'s ``Model``; its
    judgement is the one evaluation's."""

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        if spec.width * self.stride > 64:
            raise ValueError("the board does not fit the search core")
        self.pops = spec.pops
        self.repetition = spec.repetition
        self.popper_wins = spec.popper_wins
        self.cycles = spec.cycles
        self.bottom = {c: 1 << (c * self.stride) for c in self.order}

    def has_line(self, b: int) -> bool:
        return bitboard.has_line(b, self.line, self.dirs)

    def judge(self, s: State) -> int:
        """The evaluation of ``s`` for the player to move."""
        return self.evaluate(s[0], s[1], s[2], s[5], s[6])

    # -- moves ---------------------------------------------------------------

    def drop_cell(self, occupied: int, col: int) -> int:
        cm = self.column[col]
        return ((occupied & cm) + self.bottom[col]) & cm

    def drop_cells(self, occupied: int) -> int:
        cells = 0
        for c in self.order:
            cells |= self.drop_cell(occupied, c)
        return cells

    def moves(self, s: State) -> list[int]:
        b0, b1, side, phase, pending = s[:5]
        occupied = b0 | b1
        if phase == FILL:
            heights = [(occupied & self.column[c]).bit_count() for c in self.order]
            lowest = min(heights)
            return [c for c, h in zip(self.order, heights, strict=True) if h == lowest]
        if phase == RETURN:
            room = [c for c in self.order if c != pending and self.drop_cell(occupied, c)]
            return room or [pending]
        own = b1 if side else b0
        popping = self.pops or phase == POP
        moves = []
        for c in self.order:
            if phase == PLAY and self.drop_cell(occupied, c):
                moves.append(c)
            if popping and own & self.bottom[c]:
                moves.append(c | 32)
        return moves

    def _pop(self, b: list[int], col: int) -> None:
        cm, bottom = self.column[col], self.bottom[col]
        for i in (0, 1):
            b[i] = bitboard.pop_column(b[i], cm, bottom)

    def _begin_pop_turn(self, b: list[int], side: int) -> tuple[int, int]:
        """The side to move and the result."""
        if b[side] & self.playable_bottom:
            return side, ONGOING
        if not b[side ^ 1] & self.playable_bottom:
            return side, DRAW
        return side ^ 1, ONGOING

    def play(self, s: State, move: int) -> tuple[State, int]:
        """The state after ``move`` and the result (``ONGOING``, 0, 1, ``DRAW``)."""
        b0, b1, side, phase, pending, s0, s1 = s
        b = [b0, b1]
        col = move & 31
        occupied = b0 | b1
        result = ONGOING
        if phase == PLAY:
            if not move & 32:
                b[side] |= self.drop_cell(occupied, col)
                if self.has_line(b[side]):
                    result = side
                elif (b[0] | b[1]) & self.playable == self.playable:
                    result = DRAW
                else:
                    side ^= 1
            else:
                self._pop(b, col)
                mine, theirs = self.has_line(b[side]), self.has_line(b[side ^ 1])
                if mine and theirs:
                    result = side if self.popper_wins else side ^ 1
                elif mine or theirs:
                    result = side if mine else side ^ 1
                elif not (b[0] | b[1]) & self.playable:
                    result = DRAW
                else:
                    side ^= 1
        elif phase == FILL:
            b[side] |= self.drop_cell(occupied, col)
            if (b[0] | b[1]) & self.playable == self.playable:
                phase = POP
                side, result = self._begin_pop_turn(b, side ^ 1)
            else:
                side ^= 1
        elif phase == POP:
            scoring = self.line_cells(b[side]) & self.bottom[col]
            self._pop(b, col)
            if not scoring:
                phase, pending = RETURN, col
            else:
                scores = [s0, s1]
                scores[side] += 1
                s0, s1 = scores
                if scores[side] >= self.target:
                    result = side
                else:
                    side, result = self._begin_pop_turn(b, side)
        else:
            b[side] |= self.drop_cell(occupied, col)
            pending, phase = -1, POP
            side, result = self._begin_pop_turn(b, side ^ 1)
        return (b[0], b[1], side, phase, pending, s0, s1), result


def key_extra(s: State) -> int:
    """Side, phase, pending column and scores packed as in ``_search.c``."""
    return s[2] | s[3] << 1 | (s[4] + 1) << 4 | s[5] << 9 | s[6] << 17


def moves(spec: ModelSpec, state: State) -> list[int]:
    """The legal move codes (column, plus 32 for a pop), centre first."""
    return Model(spec).moves(state)


def play(spec: ModelSpec, state: State, move: int) -> tuple[State, int]:
    """The state after ``move`` and the result."""
    return Model(spec).play(state, move)


def evaluate(spec: ModelSpec, state: State) -> int:
    """The judgement of ``state`` for the player to move."""
    return Model(spec).judge(state)


class _Stopped(Exception):
    pass


def _to_table(value: int, ply: int) -> int:
    return value + ply if value > WIN // 2 else value - ply if value < -WIN // 2 else value


def _from_table(value: int, ply: int) -> int:
    return value - ply if value > WIN // 2 else value + ply if value < -WIN // 2 else value


@dataclass
class _Search:
    m: Model
    table: memoryview
    max_nodes: int
    nodes: int
    should_stop: Callable[[], bool] | None
    check_every: int
    seen: dict[tuple[int, int, int], int]
    extend_below: int
    root: State
    horizon: bool = False
    reach: int = NO_REACH  # the lowest path index a repetition below reached back to

    def __post_init__(self) -> None:
        self.slots = len(self.table) // 3
        self.next_check = self.nodes + self.check_every
        self.path: list[tuple[int, int, int]] = []

    def slot(self, b0: int, b1: int, extra: int) -> int:
        h = (
            b0 * 0x9E3779B97F4A7C15 ^ b1 * 0xC2B2AE3D27D4EB4F ^ extra * 0x165667B19E3779F9
        ) & MASK64
        h ^= h >> 32
        return h % self.slots

    def repeats(self, s: State) -> bool:
        """Whether ``s`` is met often enough to be a draw: by the rule, or a circle.

        Keeps :attr:`reach`, the earliest path index a circle closed at
        (``repeats`` in ``_search.c`` says why values depend on it).
        """
        threshold = self.m.repetition or 2 * self.m.cycles
        if not threshold:
            return False
        key = (s[0], s[1], key_extra(s))
        past = self.seen.get(key, 0)
        if past + 1 + self.path.count(key) < threshold:
            return False
        earliest = self.path.index(key) if key in self.path else NO_REACH
        is_root = past == 1 and s[:2] == self.root[:2] and key[2] == key_extra(self.root)
        if self.m.repetition or (past and not is_root):
            earliest = HISTORY
            self.horizon |= not self.m.repetition  # the past's draw is a judgement
        elif is_root and earliest == NO_REACH:
            earliest = -1
        self.reach = min(self.reach, earliest)
        return True

    def child_value(self, s: State, move: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        me = s[2]
        child, result = self.m.play(s, move)
        if result != ONGOING:
            return 0 if result == DRAW else WIN - ply if result == me else -(WIN - ply)
        if self.repeats(child):
            return 0
        if len(self.path) >= MAX_PATH or depth > MAX_PATH:
            self.horizon = True
            value = self.m.judge(child)
            return value if child[2] == me else -value
        if not self.m.pop10 and child[2] != me and ply < self.extend_below:
            # the mover threatens to win with a drop: the reply is forced, and
            # forced lines are where a shallow search misses a loss
            occupied = child[0] | child[1]
            threats = self.m.winning_cells(child[1] if me else child[0], occupied)
            if threats & self.m.drop_cells(occupied):
                depth += 1
        self.path.append((child[0], child[1], key_extra(child)))
        if child[2] == me:
            value = self.negamax(child, depth, alpha, beta, ply)
        else:
            value = -self.negamax(child, depth, -beta, -alpha, ply)
        self.path.pop()
        return value

    def scout(
        self, s: State, move: int, depth: int, alpha: int, beta: int, ply: int, later: bool
    ) -> int:
        """A move's value; a later move is first only tested against ``alpha``.

        With the best-looking move searched first, the others mostly fail to
        beat it, which a null window proves far more cheaply; one that does
        beat it is searched again with the whole window (principal variation
        search).
        """
        if later and beta - alpha > 1:
            value = self.child_value(s, move, depth, alpha, alpha + 1, ply)
            if not alpha < value < beta:
                return value
        return self.child_value(s, move, depth, alpha, beta, ply)

    def threat_order(self, s: State, moves: list[int], keep_first: bool, proving: bool) -> bool:
        """Order ``moves`` best-looking first; True: one of them wins at once.

        ``proving``: by the threats a move leaves its player, not the
        judgement (``threat_order`` in ``_search.c`` says why)."""
        m = self.m
        me = s[2]
        self.nodes += len(moves)
        judged = []
        for index, move in enumerate(moves):
            child, result = m.play(s, move)
            if result == me:
                return True
            if result != ONGOING:
                value = 0 if result == DRAW else -WIN
            else:
                occupied = child[0] | child[1]
                if proving and not m.pop10:
                    value = m.winning_cells(child[1] if me else child[0], occupied).bit_count()
                else:
                    value = m.judge(child) if child[2] == me else -m.judge(child)
                theirs = child[1] if child[2] else child[0]
                if (
                    child[2] != me
                    and not m.pop10
                    and m.winning_cells(theirs, occupied) & m.drop_cells(occupied)
                ):
                    value -= THREAT_PENALTY
            judged.append((-value, index, move))
        first = [judged.pop(0)] if keep_first else []
        moves[:] = [move for _v, _i, move in first + sorted(judged)]
        return False

    def last_ply(self, s: State, alpha: int, beta: int, ply: int) -> int:
        """The last ply of a window the judgement cannot reach, the children
        played, not searched (``last_ply`` in ``_search.c`` says why)."""
        me, best = s[2], -INF
        for move in self.m.moves(s):
            _child, result = self.m.play(s, move)
            if result != ONGOING:
                value = 0 if result == DRAW else WIN - ply - 1 if result == me else ply + 1 - WIN
            else:
                self.horizon = True
                value = alpha if alpha >= EVAL_CAP else beta
            best = max(best, value)
            if best >= beta:
                break
        return best

    def negamax(self, s: State, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes >= self.max_nodes:
            raise _Stopped
        if self.nodes >= self.next_check:
            self.next_check = self.nodes + self.check_every
            if self.should_stop is not None and self.should_stop():
                raise _Stopped
        m = self.m
        if depth <= 0:
            self.horizon = True
            # a window the judgement cannot reach (the outcome search's
            # tests): the window's edge is a true bound, and far cheaper
            if alpha >= EVAL_CAP:
                return alpha
            if beta <= -EVAL_CAP:
                return beta
            return m.judge(s)
        if depth == 1 and (alpha >= EVAL_CAP or beta <= -EVAL_CAP):
            return self.last_ply(s, alpha, beta, ply)
        extra = key_extra(s)
        slot = self.slot(s[0], s[1], extra)
        table = self.table
        at = 3 * slot
        table_move = -1
        info = table[at + 2]
        if (
            table[at] == s[0]
            and table[at + 1] == s[1]
            and info & 0x1FFFFFF == extra
            and info >> 50 & 3
        ):
            value = _from_table((info >> 25 & 0x3FFFF) - (1 << 17), ply)
            stored_depth, bound = info >> 43 & 0x7F, info >> 50 & 3
            table_move = (info >> 54 & 0x7F) - 1
            if (
                not info >> 53 & 1
                and stored_depth >= depth
                and (
                    bound == EXACT
                    or (bound == LOWER and value >= beta)
                    or (bound == UPPER and value <= alpha)
                )
            ):
                self.horizon |= bool(info >> 52 & 1)
                return value
        moves = m.moves(s)
        keep_first = table_move in moves
        if keep_first:
            moves.remove(table_move)
            moves.insert(0, table_move)
        proving = alpha >= EVAL_CAP or beta <= -EVAL_CAP
        if depth >= 2 and len(moves) > 1 and self.threat_order(s, moves, keep_first, proving):
            return WIN - ply - 1
        horizon_before, reach_before = self.horizon, self.reach
        self.horizon, self.reach = False, NO_REACH
        original_alpha, best_value, best_move = alpha, -INF, moves[0]
        for index, move in enumerate(moves):
            value = self.scout(s, move, depth - 1, alpha, beta, ply + 1, index > 0)
            if value > best_value:
                best_value, best_move = value, move
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        bound = UPPER if best_value <= original_alpha else LOWER if best_value >= beta else EXACT
        inexact, repeated = self.horizon, self.reach < len(self.path) - 1  # my path index
        self.horizon = horizon_before or inexact
        self.reach = min(reach_before, self.reach)
        table[at] = s[0]
        table[at + 1] = s[1]
        table[at + 2] = (
            extra
            | (_to_table(best_value, ply) + (1 << 17)) << 25
            | depth << 43
            | bound << 50
            | int(inexact) << 52
            | int(repeated) << 53
            | (best_move + 1) << 54
        )
        return best_value


def root(
    table: bytearray,
    spec: ModelSpec,
    state: State,
    moves: Sequence[int],
    depth: int,
    all_moves: bool,
    low: int,
    high: int,
    seen: Sequence[tuple[int, int, int, int]],
    max_nodes: int,
    nodes: int,
    should_stop: Callable[[], bool] | None,
    check_every: int,
) -> tuple[list[int], int, int, bool]:
    """One iteration at ``depth``: the root moves' scores in the window
    (``low``, ``high``) until one scores ``high`` or more (a null window
    ``low``, ``low + 1`` tests), whether a horizon was met, the node count,
    and whether it was stopped (then the scores are those of the moves
    searched before the stop, in order)."""
    if len(table) < 24 or not 1 <= depth <= 127 or not -INF <= low < high <= INF:
        raise ValueError("bad arguments for the search core")
    counts: dict[tuple[int, int, int], int] = {}
    for b0, b1, extra, count in seen:
        counts[(b0, b1, extra)] = counts.get((b0, b1, extra), 0) + count
    words = memoryview(table)[: len(table) // 24 * 24].cast("Q")
    search = _Search(
        Model(spec), words, max_nodes, nodes, should_stop, max(check_every, 1), counts,
        2 * depth, state,
    )  # fmt: skip
    scores = []
    alpha = low
    try:
        for move in moves:
            if all_moves:
                value = search.child_value(state, move, depth - 1, low, high, 1)
            else:
                value = search.scout(state, move, depth - 1, alpha, high, 1, alpha > -INF)
            scores.append(value)
            alpha = max(alpha, value)
            if value >= high:
                break
    except _Stopped:
        return scores, int(search.horizon), search.nodes, True
    finally:
        words.release()
    return scores, int(search.horizon), search.nodes, False
