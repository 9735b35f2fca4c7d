/* The compiled core of the anytime search for every game but Classic.
 *
 * A compact model of the games on 64-bit bitboards (drops, Pop Out pops,
 * lines of any length, the 5-in-a-Row strips, Pop 10's fill, scoring pops,
 * return drops and passes, the optional repetition draw) and an alpha-beta
 * search over it: transposition table, threat-aware move order, an
 * evaluation per game. engine/solver/_pysearch.py is its pure-Python twin
 * and must give the same values, moves and node counts for the same calls;
 * engine/solver/fastsearch.py explains the model, builds its parameters and
 * runs the iterative deepening around `root`. The model restates rules that
 * engine/game.py owns: tests/test_fastsearch.py plays many seeded random
 * games of every preset and several sizes through both and checks that they
 * agree move for move (legal moves, results, repetition draws).
 *
 * Bitboards: column-major, stride height + 1, as engine/bitboard.py.
 * A state: b[2] (Red's and Yellow's discs), side (0 Red, 1 Yellow), phase
 * (PLAY, FILL, POP, RETURN), pending (the column a Pop 10 return came from,
 * -1 none), score[2] (Pop 10 points). Its key is (b0, b1, extra) with extra
 * packing side, phase, pending and scores: exact, no hash collisions.
 *
 * The table is a caller-owned bytearray of slots * 24 bytes: per slot b0,
 * b1 and an info word (see pack_info). The search runs without the GIL and
 * takes it back every `check_every` nodes to call `should_stop()`.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "_poll.h"

typedef uint64_t board;

#define WIN 100000
#define INF (WIN + 1)
#define EVAL_CAP 40000
#define THREAT_PENALTY 50000
#define ZUGZWANG 4 /* lasting threats of one side only: that many times a lasting threat */
#define MAX_COLS 64
#define MAX_MOVES 128
#define MAX_PATH 256
#define NO_REACH MAX_PATH /* no repetition below: the value is the position's own */
#define HISTORY -2        /* a repetition of the game's past, or any under the rule */
#define MAX_WINDOWS 512
#define MAX_LINE 64

enum { PLAY = 0, FILL = 1, POP = 2, RETURN = 3 };
enum { ONGOING = -1, RED_WINS = 0, YELLOW_WINS = 1, DRAW = 2 };
enum { EXACT = 1, LOWER = 2, UPPER = 3 };

typedef struct {
    board b[2];
    int side, phase, pending, score[2];
} State;

typedef struct {
    int width, height, stride, line, pops, pop10, repetition, popper_wins, target;
    int ncols;
    int order[MAX_COLS]; /* playable columns (0-based), centre first */
    board playable, playable_bottom;
    int nwindows;
    board windows[MAX_WINDOWS];
    int64_t weights[MAX_LINE + 1];
    int cycles;          /* without the rule, a position met again is judged a draw */
    board red_rows;      /* the odd rows (from 1 at the bottom), where Red's threats last */
    int64_t parity;      /* a lasting threat's bonus; 0 where pops break the parity */
} Model;

typedef struct {
    board b0, b1;
    uint64_t extra;
    long count;
} Seen;

typedef struct {
    const Model *m;
    board *table;
    uint64_t slots, mask; /* mask: slots - 1 when slots is a power of two, else 0 */
    uint64_t nodes, max_nodes;
    Poll poll; /* poll.stopped is also 1 once max_nodes is reached */
    int horizon;
    int reach; /* the lowest path index a repetition below reached back to (see repeats) */
    int extend_below; /* plies: a forced reply is searched one ply deeper until here */
    Seen *seen;
    Py_ssize_t nseen;
    State root;
    uint64_t seen_filter[64]; /* a bit per seen_bit of each seen position: most are not */
    int depth_path;
    board path0[MAX_PATH], path1[MAX_PATH];
    uint64_t pathx[MAX_PATH];
} Search;

/* ---------------------------------------------------------------- the model */

/* the compiler's builtin where the target has the instruction (aarch64, or
 * x86 built with popcnt); else a few shifts, far cheaper than libgcc's call */
static inline int popcount(board b) {
#if defined(__aarch64__) || defined(__POPCNT__)
    return __builtin_popcountll(b);
#else
    b = b - ((b >> 1) & 0x5555555555555555ULL);
    b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((b * 0x0101010101010101ULL) >> 56);
#endif
}

static board shr(board x, int n) { return n >= 64 ? 0 : x >> n; }
static board shl(board x, int n) { return n >= 64 ? 0 : x << n; }

static board line_starts(board b, int k, int shift) {
    int run = 1;
    while (run * 2 <= k) {
        b &= shr(b, run * shift);
        run *= 2;
    }
    if (run < k)
        b &= shr(b, (k - run) * shift);
    return b;
}

static int has_line(const Model *m, board b) {
    int dirs[4] = {1, m->stride, m->stride + 1, m->stride - 1};
    for (int i = 0; i < 4; i++)
        if (line_starts(b, m->line, dirs[i]))
            return 1;
    return 0;
}

static board line_cells(const Model *m, board b) {
    int dirs[4] = {1, m->stride, m->stride + 1, m->stride - 1};
    board cells = 0;
    for (int i = 0; i < 4; i++) {
        board starts = line_starts(b, m->line, dirs[i]);
        for (int step = 0; starts && step < m->line; step++)
            cells |= shl(starts, step * dirs[i]);
    }
    return cells;
}

/* empty playable cells that would complete a line for `b`: cells with `a`
 * of b's discs just before them and `k - 1 - a` just after, along a direction */
static board winning_cells(const Model *m, board b, board occupied) {
    int dirs[4] = {1, m->stride, m->stride + 1, m->stride - 1};
    int k = m->line;
    board cells = 0;
    for (int i = 0; i < 4; i++) {
        int d = dirs[i];
        board before[MAX_LINE]; /* before[a]: the a cells before are b's */
        before[0] = ~(board)0;
        for (int a = 1; a < k; a++)
            before[a] = before[a - 1] & shl(b, a * d);
        board after = ~(board)0; /* the j cells after are b's */
        for (int j = 0; j < k; j++) {
            if (j)
                after &= shr(b, j * d);
            cells |= after & before[k - 1 - j];
        }
    }
    return cells & m->playable & ~occupied;
}

static board column_mask(const Model *m, int col) {
    return shl(((board)1 << m->height) - 1, col * m->stride);
}

static board bottom_bit(const Model *m, int col) { return (board)1 << (col * m->stride); }

static board drop_cell(const Model *m, board occupied, int col) {
    board cm = column_mask(m, col);
    return ((occupied & cm) + bottom_bit(m, col)) & cm; /* 0: the column is full */
}

static board drop_cells(const Model *m, board occupied) {
    board cells = 0;
    for (int i = 0; i < m->ncols; i++)
        cells |= drop_cell(m, occupied, m->order[i]);
    return cells;
}

static int height_of(const Model *m, board occupied, int col) {
    return popcount(occupied & column_mask(m, col));
}

static int gen_moves(const Model *m, const State *s, int *moves) {
    board occupied = s->b[0] | s->b[1];
    board own = s->b[s->side];
    int n = 0;
    if (s->phase == FILL) {
        int lowest = m->height;
        for (int i = 0; i < m->ncols; i++) {
            int h = height_of(m, occupied, m->order[i]);
            if (h < lowest)
                lowest = h;
        }
        for (int i = 0; i < m->ncols; i++)
            if (height_of(m, occupied, m->order[i]) == lowest)
                moves[n++] = m->order[i];
        return n;
    }
    if (s->phase == RETURN) {
        for (int i = 0; i < m->ncols; i++) {
            int c = m->order[i];
            if (c != s->pending && drop_cell(m, occupied, c))
                moves[n++] = c;
        }
        if (!n)
            moves[n++] = s->pending;
        return n;
    }
    for (int i = 0; i < m->ncols; i++) {
        int c = m->order[i];
        if (s->phase == PLAY && drop_cell(m, occupied, c))
            moves[n++] = c;
        if ((m->pops || s->phase == POP) && (own & bottom_bit(m, c)))
            moves[n++] = c | 32;
    }
    return n;
}

static void pop_column(const Model *m, State *s, int col) {
    board cm = column_mask(m, col), bottom = bottom_bit(m, col);
    for (int i = 0; i < 2; i++)
        s->b[i] = (s->b[i] & ~cm) | ((s->b[i] & cm & ~bottom) >> 1);
}

static int begin_pop_turn(const Model *m, State *s, int side) {
    s->side = side;
    if (s->b[side] & m->playable_bottom)
        return ONGOING;
    if (!(s->b[side ^ 1] & m->playable_bottom))
        return DRAW;
    s->side = side ^ 1;
    return ONGOING;
}

/* play `move` (column | 32 for a pop) for the side to move; the result */
static int play(const Model *m, State *s, int move) {
    int col = move & 31, side = s->side;
    board occupied = s->b[0] | s->b[1];
    if (s->phase == PLAY) {
        if (!(move & 32)) {
            s->b[side] |= drop_cell(m, occupied, col);
            if (has_line(m, s->b[side]))
                return side;
            if (((s->b[0] | s->b[1]) & m->playable) == m->playable)
                return DRAW;
            s->side = side ^ 1;
            return ONGOING;
        }
        pop_column(m, s, col);
        int mine = has_line(m, s->b[side]), theirs = has_line(m, s->b[side ^ 1]);
        if (mine && theirs)
            return m->popper_wins ? side : side ^ 1;
        if (mine || theirs)
            return mine ? side : side ^ 1;
        if (!((s->b[0] | s->b[1]) & m->playable))
            return DRAW;
        s->side = side ^ 1;
        return ONGOING;
    }
    if (s->phase == FILL) {
        s->b[side] |= drop_cell(m, occupied, col);
        if (((s->b[0] | s->b[1]) & m->playable) == m->playable) {
            s->phase = POP;
            return begin_pop_turn(m, s, side ^ 1);
        }
        s->side = side ^ 1;
        return ONGOING;
    }
    if (s->phase == POP) {
        board scoring = line_cells(m, s->b[side]) & bottom_bit(m, col);
        pop_column(m, s, col);
        if (!scoring) {
            s->phase = RETURN;
            s->pending = col;
            return ONGOING;
        }
        s->score[side]++;
        if (s->score[side] >= m->target)
            return side;
        return begin_pop_turn(m, s, side);
    }
    s->b[side] |= drop_cell(m, occupied, col); /* RETURN */
    s->pending = -1;
    s->phase = POP;
    return begin_pop_turn(m, s, side ^ 1);
}

static uint64_t key_extra(const State *s) {
    return (uint64_t)s->side | (uint64_t)s->phase << 1 | (uint64_t)(s->pending + 1) << 4 |
           (uint64_t)s->score[0] << 9 | (uint64_t)s->score[1] << 17;
}

/* ----------------------------------------------------------- the evaluation */

/* Red's view of the threats that last until the grid fills: in each column
 * the lowest threat on its owner's rows (odd for Red, even for Yellow)
 * decides who gets the column's zugzwang (a threat on the other's rows is
 * blocked in time); a column of Red's beats Yellow's claim to the even rows,
 * and without one a column of Yellow's wins the filled grid for Yellow */
static int64_t lasting_threats(const Model *m, board red, board yellow) {
    board occupied = red | yellow;
    board red_good = winning_cells(m, red, occupied) & m->red_rows;
    board yellow_good = winning_cells(m, yellow, occupied) & m->playable & ~m->red_rows;
    board lasting = red_good | yellow_good;
    int columns[2] = {0, 0};
    for (int i = 0; lasting && i < m->ncols; i++) {
        board cells = lasting & column_mask(m, m->order[i]);
        if (cells)
            columns[!(cells & (~cells + 1) & red_good)]++;
    }
    int64_t score = m->parity * (columns[0] - columns[1]);
    if (columns[0] || columns[1])
        score += ZUGZWANG * m->parity * (columns[0] ? 1 : -1);
    return score;
}

static int evaluate(const Model *m, const State *s) {
    int side = s->side;
    board mine = s->b[side], theirs = s->b[side ^ 1];
    int64_t score = 0;
    for (int i = 0; i < m->nwindows; i++) {
        board w = m->windows[i], a = mine & w, c = theirs & w;
        if (a && !c)
            score += m->weights[popcount(a)];
        else if (c && !a)
            score -= m->weights[popcount(c)];
    }
    if (m->parity) {
        int64_t red = lasting_threats(m, s->b[0], s->b[1]);
        score += side == 0 ? red : -red;
    }
    if (m->pop10) {
        score += 400 * (int64_t)(s->score[side] - s->score[side ^ 1]);
        int ready = popcount(line_cells(m, mine) & m->playable_bottom);
        int against = popcount(line_cells(m, theirs) & m->playable_bottom);
        score += 120 * (int64_t)(ready - against);
        if (m->target - s->score[side] <= 1)
            score += 300;
        if (m->target - s->score[side ^ 1] <= 1)
            score -= 300;
    }
    if (score > EVAL_CAP)
        score = EVAL_CAP;
    if (score < -EVAL_CAP)
        score = -EVAL_CAP;
    return (int)score;
}

/* ---------------------------------------------------------------- the search */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

static uint64_t slot_of(const Search *s, board b0, board b1, uint64_t extra) {
    uint64_t h = b0 * 0x9E3779B97F4A7C15ULL ^ b1 * 0xC2B2AE3D27D4EB4FULL ^
                 extra * 0x165667B19E3779F9ULL;
    h ^= h >> 32;
    return s->mask ? h & s->mask : h % s->slots; /* the same slot: no division */
}

/* info: extra (25 bits) | value + 2^17 (18) | depth (7) | bound (2) |
 * inexact (1) | repeated (1) | move + 1 (7) */
static uint64_t pack_info(uint64_t extra, int value, int depth, int bound, int inexact,
                          int repeated, int move) {
    return extra | (uint64_t)(value + (1 << 17)) << 25 | (uint64_t)depth << 43 |
           (uint64_t)bound << 50 | (uint64_t)inexact << 52 | (uint64_t)repeated << 53 |
           (uint64_t)(move + 1) << 54;
}

/* a win or loss is stored relative to the position, read back relative to the root */
static int to_table(int value, int ply) {
    return value > WIN / 2 ? value + ply : value < -WIN / 2 ? value - ply : value;
}

static int from_table(int value, int ply) {
    return value > WIN / 2 ? value - ply : value < -WIN / 2 ? value + ply : value;
}

static int terminal(int result, int me, int ply) {
    if (result == DRAW)
        return 0;
    return result == me ? WIN - ply : -(WIN - ply);
}

static uint64_t seen_bit(board b0, board b1, uint64_t extra) {
    return (b0 * 0x9E3779B97F4A7C15ULL ^ b1 * 0xC2B2AE3D27D4EB4FULL ^ extra) >> 52; /* 0-4095 */
}

/* whether the position after a move is met often enough to be drawn: by the
 * rule, or (cycles) a circle.
 *
 * Which values a circle's draw makes depend on the path (why the table may
 * keep them): a circle closes at the earliest path index it returns to, and
 * `reach` keeps the lowest such index below a node. A node whose circles
 * all close at the node itself or below it has a value of its own: the
 * search from that node with an empty path above would meet the same
 * circles. Without the rule, that value is the game's true value within the
 * depth: infinite play is neither side's win, a forced win has a strategy
 * that never repeats a position (each move brings the win a move nearer), so
 * cutting circles as draws never hides a win, and a win found never relied
 * on a circle. Such values are stored for reuse anywhere; a node whose
 * circle closed above it (`reach` below its index) is stored only for its
 * move. The root, which is not on the path, is index -1: a circle back to it
 * depends on no earlier path either. The game's past (`seen`, the root's
 * own occurrence aside) is a judgement, never exact, and its positions are
 * HISTORY; so is every repetition under the rule, whose count of earlier
 * occurrences depends on the path above any node. */
static int repeats(Search *s, const State *st) {
    long threshold = s->m->repetition ? s->m->repetition : 2 * s->m->cycles;
    if (!threshold)
        return 0;
    uint64_t extra = key_extra(st);
    long count = 1, past = 0;
    int earliest = NO_REACH;
    uint64_t bit = seen_bit(st->b[0], st->b[1], extra);
    int maybe_seen = (int)(s->seen_filter[bit >> 6] >> (bit & 63) & 1);
    for (Py_ssize_t i = 0; maybe_seen && i < s->nseen; i++)
        if (s->seen[i].b0 == st->b[0] && s->seen[i].b1 == st->b[1] && s->seen[i].extra == extra)
            past += s->seen[i].count;
    for (int i = 0; i < s->depth_path; i++)
        if (s->path0[i] == st->b[0] && s->path1[i] == st->b[1] && s->pathx[i] == extra) {
            count++;
            if (i < earliest)
                earliest = i;
        }
    if (count + past < threshold)
        return 0;
    int is_root = past == 1 && st->b[0] == s->root.b[0] && st->b[1] == s->root.b[1] &&
                  extra == key_extra(&s->root);
    if (s->m->repetition || (past && !is_root)) {
        earliest = HISTORY;
        s->horizon |= !s->m->repetition; /* the past's draw is a judgement */
    } else if (is_root && earliest == NO_REACH) {
        earliest = -1;
    }
    if (earliest < s->reach)
        s->reach = earliest;
    return 1;
}

static int negamax(Search *s, const State *st, int depth, int alpha, int beta, int ply);

/* the value for the player to move at the parent (`me`) of playing `move` */
static int child_value(Search *s, const State *st, int move, int depth, int alpha, int beta,
                       int ply) {
    State child = *st;
    int me = st->side;
    int result = play(s->m, &child, move);
    if (result != ONGOING)
        return terminal(result, me, ply);
    if (repeats(s, &child))
        return 0;
    if (s->depth_path >= MAX_PATH || depth > MAX_PATH) {
        s->horizon = 1;
        int value = evaluate(s->m, &child);
        return child.side == me ? value : -value;
    }
    if (!s->m->pop10 && child.side != me && ply < s->extend_below) {
        /* the mover threatens to win with a drop: the reply is forced, and
         * forced lines are where a shallow search misses a loss */
        board occupied = child.b[0] | child.b[1];
        if (winning_cells(s->m, child.b[me], occupied) & drop_cells(s->m, occupied))
            depth++;
    }
    int at = s->depth_path++;
    s->path0[at] = child.b[0];
    s->path1[at] = child.b[1];
    s->pathx[at] = key_extra(&child);
    int value = child.side == me ? negamax(s, &child, depth, alpha, beta, ply)
                                 : -negamax(s, &child, depth, -beta, -alpha, ply);
    s->depth_path--;
    return value;
}

/* a move's value; a later move is first only tested against alpha with a null
 * window (principal variation search: with the best-looking move first, the
 * others mostly fail to beat it, which that proves cheaply); one that beats
 * it is searched again with the whole window */
static int scout(Search *s, const State *st, int move, int depth, int alpha, int beta, int ply,
                 int later) {
    if (later && beta - alpha > 1) {
        int value = child_value(s, st, move, depth, alpha, alpha + 1, ply);
        if (s->poll.stopped || !(alpha < value && value < beta))
            return value;
    }
    return child_value(s, st, move, depth, alpha, beta, ply);
}

/* order `moves` best-looking first; a win at once: 1 (and nothing else).
 * `proving`: a window the judgement cannot reach (the outcome search's
 * tests), where only the result counts: then a move is judged by the
 * threats it leaves its player (empty cells that would complete a line),
 * the order that finds a forced win soonest and far cheaper to count than
 * the judgement (which was half of a test's time) */
static int threat_order(Search *s, const State *st, int *moves, int n, int keep_first,
                        int proving) {
    const Model *m = s->m;
    int me = st->side;
    int values[MAX_MOVES];
    s->nodes += n;
    for (int i = 0; i < n; i++) {
        State child = *st;
        int result = play(m, &child, moves[i]);
        int value;
        if (result == me)
            return 1;
        if (result != ONGOING) {
            value = result == DRAW ? 0 : -WIN;
        } else {
            /* the child's slot is read when it is searched: fetch it now,
             * while the evaluation runs, not then, when the search waits */
            board *entry = s->table + 3 * slot_of(s, child.b[0], child.b[1], key_extra(&child));
            PREFETCH(entry);
            PREFETCH(entry + 2);
            board occupied = child.b[0] | child.b[1];
            if (proving && !m->pop10)
                value = popcount(winning_cells(m, child.b[me], occupied));
            else
                value = child.side == me ? evaluate(m, &child) : -evaluate(m, &child);
            if (child.side != me && !m->pop10 &&
                (winning_cells(m, child.b[child.side], occupied) & drop_cells(m, occupied)))
                value -= THREAT_PENALTY;
        }
        values[i] = value;
    }
    /* stable insertion sort, best first; the table's move stays first */
    for (int i = keep_first ? 2 : 1; i < n; i++) {
        int mv = moves[i], v = values[i], j = i;
        while (j > (keep_first ? 1 : 0) && values[j - 1] < v) {
            moves[j] = moves[j - 1];
            values[j] = values[j - 1];
            j--;
        }
        moves[j] = mv;
        values[j] = v;
    }
    return 0;
}

/* the last ply of a window the judgement cannot reach (the outcome search's
 * tests), played without searching the children: only a move that ends the
 * game can leave the window's edge, so the first one past it answers, and
 * otherwise the edge, a true bound, is the value. The children are neither
 * counted, nor looked up, nor extended (an extension there would only ask
 * whether the reply to a threat wins at once, which the next test asks).
 * One ply fewer of full nodes is most of a test's positions and time. */
static int last_ply(Search *s, const State *st, int alpha, int beta, int ply) {
    int moves[MAX_MOVES];
    int n = gen_moves(s->m, st, moves), me = st->side, best = -INF;
    for (int i = 0; i < n; i++) {
        State child = *st;
        int result = play(s->m, &child, moves[i]), value;
        if (result != ONGOING)
            value = terminal(result, me, ply + 1);
        else {
            s->horizon = 1; /* a circle's draw is within the edge too: no need to look */
            value = alpha >= EVAL_CAP ? alpha : beta;
        }
        if (value > best)
            best = value;
        if (best >= beta)
            break;
    }
    return best;
}

static int negamax(Search *s, const State *st, int depth, int alpha, int beta, int ply) {
    s->nodes++;
    if (s->nodes >= s->max_nodes) {
        s->poll.stopped = 1;
        return 0;
    }
    if (s->nodes >= s->poll.next_check && poll_stop(&s->poll, s->nodes))
        return 0;
    if (depth <= 0) {
        s->horizon = 1;
        /* a window the judgement cannot reach (the outcome search's tests):
         * the window's edge is a true bound, and far cheaper */
        if (alpha >= EVAL_CAP)
            return alpha;
        if (beta <= -EVAL_CAP)
            return beta;
        return evaluate(s->m, st);
    }
    if (depth == 1 && (alpha >= EVAL_CAP || beta <= -EVAL_CAP))
        return last_ply(s, st, alpha, beta, ply);
    uint64_t extra = key_extra(st);
    uint64_t slot = slot_of(s, st->b[0], st->b[1], extra);
    board *entry = s->table + 3 * slot;
    int table_move = -1;
    if (entry[0] == st->b[0] && entry[1] == st->b[1] && (entry[2] & 0x1FFFFFF) == extra &&
        (entry[2] >> 50 & 3)) {
        uint64_t info = entry[2];
        int value = from_table((int)(info >> 25 & 0x3FFFF) - (1 << 17), ply);
        int stored_depth = (int)(info >> 43 & 0x7F), bound = (int)(info >> 50 & 3);
        table_move = (int)(info >> 54 & 0x7F) - 1;
        if (!(info >> 53 & 1) && stored_depth >= depth &&
            (bound == EXACT || (bound == LOWER && value >= beta) ||
             (bound == UPPER && value <= alpha))) {
            s->horizon |= (int)(info >> 52 & 1);
            return value;
        }
    }
    int moves[MAX_MOVES];
    int n = gen_moves(s->m, st, moves);
    int keep_first = 0;
    for (int i = 0; i < n; i++)
        if (moves[i] == table_move) {
            for (int j = i; j > 0; j--)
                moves[j] = moves[j - 1];
            moves[0] = table_move;
            keep_first = 1;
            break;
        }
    if (depth >= 2 && n > 1 &&
        threat_order(s, st, moves, n, keep_first, alpha >= EVAL_CAP || beta <= -EVAL_CAP))
        return WIN - ply - 1;
    int horizon_before = s->horizon, reach_before = s->reach;
    s->horizon = 0;
    s->reach = NO_REACH;
    int original_alpha = alpha, best_value = -INF, best_move = moves[0];
    for (int i = 0; i < n; i++) {
        int value = scout(s, st, moves[i], depth - 1, alpha, beta, ply + 1, i > 0);
        if (s->poll.stopped)
            return 0;
        if (value > best_value) {
            best_value = value;
            best_move = moves[i];
        }
        if (value > alpha)
            alpha = value;
        if (alpha >= beta)
            break;
    }
    int bound = best_value <= original_alpha ? UPPER : best_value >= beta ? LOWER : EXACT;
    int inexact = s->horizon, repeated = s->reach < s->depth_path - 1; /* my path index */
    s->horizon = horizon_before | inexact;
    if (reach_before < s->reach)
        s->reach = reach_before;
    entry[0] = st->b[0];
    entry[1] = st->b[1];
    entry[2] = pack_info(extra, to_table(best_value, ply), depth, bound, inexact, repeated,
                         best_move);
    return best_value;
}

/* ------------------------------------------------------------ Python glue */

/* the model is engine/solver/model.py's ModelSpec, read field by field by name */

static int get_long(PyObject *spec, const char *name, long long low, long long high,
                    long long *out) {
    PyObject *value = PyObject_GetAttrString(spec, name);
    if (value == NULL)
        return -1;
    long long number = PyLong_AsLongLong(value);
    Py_DECREF(value);
    if (number == -1 && PyErr_Occurred())
        return -1;
    if (number < low || number > high) {
        PyErr_Format(PyExc_ValueError, "the model's %s is out of range", name);
        return -1;
    }
    *out = number;
    return 0;
}

static int get_int(PyObject *spec, const char *name, int *out) {
    long long number;
    if (get_long(spec, name, INT_MIN, INT_MAX, &number) < 0)
        return -1;
    *out = (int)number;
    return 0;
}

static int get_board(PyObject *spec, const char *name, board *out) {
    PyObject *value = PyObject_GetAttrString(spec, name);
    if (value == NULL)
        return -1;
    unsigned long long bits = PyLong_AsUnsignedLongLong(value);
    Py_DECREF(value);
    if (bits == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *out = bits;
    return 0;
}

/* a sequence field into `out` (at most `limit` items); its length, or -1 */
static Py_ssize_t get_items(PyObject *spec, const char *name, Py_ssize_t limit, char kind,
                            void *out) {
    PyObject *value = PyObject_GetAttrString(spec, name);
    if (value == NULL)
        return -1;
    PyObject *fast = PySequence_Fast(value, "the model's sequences must be sequences");
    Py_DECREF(value);
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > limit) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "the model's %s is too long for the search core", name);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (kind == 'i')
            ((int *)out)[i] = (int)PyLong_AsLong(item);
        else if (kind == 'b')
            ((board *)out)[i] = PyLong_AsUnsignedLongLong(item);
        else
            ((int64_t *)out)[i] = PyLong_AsLongLong(item);
    }
    Py_DECREF(fast);
    return PyErr_Occurred() ? -1 : n;
}

static int parse_model(PyObject *spec, Model *m) {
    long long parity;
    Py_ssize_t ncols, nwindows;
    memset(m, 0, sizeof *m);
    if (get_int(spec, "width", &m->width) < 0 || get_int(spec, "height", &m->height) < 0 ||
        get_int(spec, "line", &m->line) < 0 || get_int(spec, "pops", &m->pops) < 0 ||
        get_int(spec, "pop10", &m->pop10) < 0 || get_int(spec, "repetition", &m->repetition) < 0 ||
        get_int(spec, "popper_wins", &m->popper_wins) < 0 ||
        get_int(spec, "target", &m->target) < 0 || get_int(spec, "cycles", &m->cycles) < 0 ||
        get_board(spec, "playable", &m->playable) < 0 ||
        get_board(spec, "playable_bottom", &m->playable_bottom) < 0 ||
        get_board(spec, "red_rows", &m->red_rows) < 0 ||
        get_long(spec, "parity", 0, INT32_MAX, &parity) < 0)
        return -1;
    m->parity = parity;
    m->stride = m->height + 1;
    if (m->width < 1 || m->height < 1 || m->width * m->stride > 64 || m->line < 1 ||
        m->line > MAX_LINE || m->width > 32) {
        PyErr_SetString(PyExc_ValueError, "the board does not fit the search core");
        return -1;
    }
    ncols = get_items(spec, "order", MAX_COLS, 'i', m->order);
    if (ncols < 0)
        return -1;
    for (Py_ssize_t i = 0; i < ncols; i++)
        if (m->order[i] < 0 || m->order[i] >= m->width) {
            PyErr_SetString(PyExc_ValueError, "the model's order names a column off the board");
            return -1;
        }
    nwindows = get_items(spec, "windows", MAX_WINDOWS, 'b', m->windows);
    if (nwindows < 0 || get_items(spec, "weights", MAX_LINE + 1, 'l', m->weights) < 0)
        return -1;
    m->ncols = (int)ncols;
    m->nwindows = (int)nwindows;
    return 0;
}

static int parse_state(PyObject *spec, State *s) {
    unsigned long long b0, b1;
    if (!PyArg_ParseTuple(spec, "KKiiiii", &b0, &b1, &s->side, &s->phase, &s->pending,
                          &s->score[0], &s->score[1]))
        return -1;
    s->b[0] = b0;
    s->b[1] = b1;
    return 0;
}

static PyObject *state_tuple(const State *s) {
    return Py_BuildValue("KKiiiii", (unsigned long long)s->b[0], (unsigned long long)s->b[1],
                         s->side, s->phase, s->pending, s->score[0], s->score[1]);
}

static PyObject *core_moves(PyObject *module, PyObject *args) {
    PyObject *model_spec, *state_spec;
    Model m;
    State s;
    if (!PyArg_ParseTuple(args, "OO", &model_spec, &state_spec) ||
        parse_model(model_spec, &m) < 0 || parse_state(state_spec, &s) < 0)
        return NULL;
    int moves[MAX_MOVES];
    int n = gen_moves(&m, &s, moves);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++)
        PyList_SET_ITEM(list, i, PyLong_FromLong(moves[i]));
    return list;
}

static PyObject *core_play(PyObject *module, PyObject *args) {
    PyObject *model_spec, *state_spec;
    int move;
    Model m;
    State s;
    if (!PyArg_ParseTuple(args, "OOi", &model_spec, &state_spec, &move) ||
        parse_model(model_spec, &m) < 0 || parse_state(state_spec, &s) < 0)
        return NULL;
    int result = play(&m, &s, move);
    PyObject *state = state_tuple(&s);
    if (state == NULL)
        return NULL;
    return Py_BuildValue("Ni", state, result);
}

static PyObject *core_evaluate(PyObject *module, PyObject *args) {
    PyObject *model_spec, *state_spec;
    Model m;
    State s;
    if (!PyArg_ParseTuple(args, "OO", &model_spec, &state_spec) ||
        parse_model(model_spec, &m) < 0 || parse_state(state_spec, &s) < 0)
        return NULL;
    return PyLong_FromLong(evaluate(&m, &s));
}

static int parse_seen(PyObject *seen, Search *s) {
    PyObject *fast = PySequence_Fast(seen, "seen must be a sequence");
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    s->seen = PyMem_Malloc(sizeof(Seen) * (n ? n : 1));
    s->nseen = n;
    for (Py_ssize_t i = 0; s->seen && i < n; i++) {
        unsigned long long b0, b1, extra;
        long count;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "KKKl", &b0, &b1, &extra,
                              &count)) {
            Py_DECREF(fast);
            return -1;
        }
        s->seen[i] = (Seen){b0, b1, extra, count};
        uint64_t bit = seen_bit(b0, b1, extra);
        s->seen_filter[bit >> 6] |= (uint64_t)1 << (bit & 63);
    }
    Py_DECREF(fast);
    if (s->seen == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *core_root(PyObject *module, PyObject *args) {
    /* root(table, model, state, moves, depth, all_moves, low, high, seen, max_nodes,
     *      nodes, should_stop, check_every) -> (scores, horizon, nodes, stopped):
     * the moves searched in the window (low, high) until one scores high or
     * more (a null window low, low + 1 tests); when stopped, the scores of the
     * moves searched before the stop, in order */
    Py_buffer table;
    PyObject *model_spec, *state_spec, *move_list, *seen, *should_stop;
    int depth, all_moves, low, high;
    unsigned long long max_nodes, nodes, check_every;
    if (!PyArg_ParseTuple(args, "w*OOOipiiOKKOK", &table, &model_spec, &state_spec, &move_list,
                          &depth, &all_moves, &low, &high, &seen, &max_nodes, &nodes,
                          &should_stop, &check_every))
        return NULL;
    Model m;
    Search s;
    State st;
    memset(&s, 0, sizeof s);
    int moves[MAX_MOVES];
    Py_ssize_t n = 0;
    if (parse_model(model_spec, &m) < 0 || parse_state(state_spec, &st) < 0)
        goto fail;
    PyObject *fast = PySequence_Fast(move_list, "moves must be a sequence");
    if (fast == NULL)
        goto fail;
    n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n && i < MAX_MOVES; i++)
        moves[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
    Py_DECREF(fast);
    if (PyErr_Occurred())
        goto fail;
    if (n > MAX_MOVES || table.len < 24 || depth < 1 || depth > 127 || low < -INF ||
        high > INF || low >= high) {
        PyErr_SetString(PyExc_ValueError, "bad arguments for the search core");
        goto fail;
    }
    if (parse_seen(seen, &s) < 0)
        goto fail;
    s.m = &m;
    s.table = (board *)table.buf;
    s.slots = (uint64_t)table.len / 24;
    s.mask = (s.slots & (s.slots - 1)) ? 0 : s.slots - 1;
    s.nodes = nodes;
    s.max_nodes = max_nodes;
    int scores[MAX_MOVES];
    s.extend_below = 2 * depth;
    s.root = st;
    s.reach = NO_REACH;
    poll_start(&s.poll, should_stop, check_every, nodes);
    int alpha = low;
    Py_ssize_t searched = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int value = all_moves ? child_value(&s, &st, moves[i], depth - 1, low, high, 1)
                              : scout(&s, &st, moves[i], depth - 1, alpha, high, 1, alpha > -INF);
        if (s.poll.stopped)
            break;
        scores[searched++] = value;
        if (value > alpha)
            alpha = value;
        if (value >= high)
            break;
    }
    poll_end(&s.poll);
    PyMem_Free(s.seen);
    PyBuffer_Release(&table);
    if (s.poll.stopped == 2)
        return NULL;
    Py_ssize_t done = searched;
    PyObject *list = PyList_New(done);
    for (Py_ssize_t i = 0; list && i < done; i++)
        PyList_SET_ITEM(list, i, PyLong_FromLong(scores[i]));
    if (list == NULL)
        return NULL;
    return Py_BuildValue("NiKi", list, s.horizon, (unsigned long long)s.nodes,
                         s.poll.stopped != 0);
fail:
    PyMem_Free(s.seen);
    PyBuffer_Release(&table);
    return NULL;
}

static PyMethodDef core_methods[] = {
    {"moves", core_moves, METH_VARARGS, "moves(model, state) -> the legal move codes"},
    {"play", core_play, METH_VARARGS, "play(model, state, move) -> (state, result)"},
    {"evaluate", core_evaluate, METH_VARARGS, "evaluate(model, state) -> judgement"},
    {"root", core_root, METH_VARARGS,
     "root(table, model, state, moves, depth, all_moves, low, high, seen, max_nodes, "
     "nodes, should_stop, check_every) -> (scores, horizon, nodes, stopped)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "engine.solver._search",
    "The compiled search for every game but Classic; see engine/solver/fastsearch.py.", -1,
    core_methods,
};

PyMODINIT_FUNC PyInit__search(void) { return PyModule_Create(&core_module); }
