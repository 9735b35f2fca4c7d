/* The compiled search core of popref's Classic solver.
 *
 * One function, `negamax`, the hot loop of engine/solver/classic.py: an
 * alpha-beta negamax over Connect Four bitboards of any size whose
 * width * (height + 1) bits fit in 64, lines of four, drops only. Everything
 * around it (the null-window search on the score, the root moves, the book)
 * is Python, shared with the pure-Python twin engine/solver/_pycore.py, which
 * must return the same values for the same calls (the tests compare them).
 *
 * Bitboards: column-major, stride height + 1 (one always-empty sentinel bit
 * on top of each column); `current` holds the discs of the player to move,
 * `mask` every disc. current + mask is a unique key of the position.
 *
 * The transposition table is a Python bytearray owned by the caller (so its
 * lifetime and size are Python's business): `slots` 8-byte entries, at least
 * 256. A position's slot is key % slots; its entry holds key / slots (which
 * with the slot gives back the key, and fits in 56 bits) above an 8-bit
 * value: 0 is empty, 1..RANGE an upper bound, RANGE+1..2*RANGE a lower bound.
 * One word an entry, so a probe costs one cache miss, not two (a key array
 * beside a value array cost both); the search waits on those misses most
 * of its time, so it also asks for each child's entry while it orders the
 * moves, before it descends (about 1.7 times the positions a second here,
 * the same positions searched).
 *
 * The search runs without the GIL. Every `check_every` nodes it takes the
 * GIL back to call `should_stop()`; a true answer unwinds the search, which
 * then stores nothing and returns None.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_poll.h"

/* Where more cells than this are empty, a node first looks in the table for a
 * child that already proves it (an enhanced transposition cutoff): 18% fewer
 * positions on 40 Begin-Hard outcome solves, and 17% less time. Nearer the
 * end the lookups cost more than the searches they spare (with every node
 * looking: 30% fewer positions, but 1.2-1.5 times the time). _pycore.ETC_LEFT
 * is the same. */
#define ETC_LEFT 14
typedef uint64_t board;

typedef struct {
    int width, height, cells;
    board bottom, full;
    int order[64];      /* columns, centre first */
    board col_mask[64]; /* one column's playable cells */
    int score_min, score_range;
    uint64_t *entries;
    uint64_t slots;
    uint64_t nodes;
    Poll poll;
} Search;

static board winning_cells(const Search *s, board pos, board mask) {
    /* empty cells that would complete a line of four for `pos` */
    int h = s->height;
    board r = (pos << 1) & (pos << 2) & (pos << 3);
    int shifts[3] = {h + 1, h, h + 2};
    for (int i = 0; i < 3; i++) {
        int d = shifts[i];
        board p = (pos << d) & (pos << (2 * d));
        r |= p & (pos << (3 * d));
        r |= p & (pos >> d);
        p = (pos >> d) & (pos >> (2 * d));
        r |= p & (pos << d);
        r |= p & (pos >> (3 * d));
    }
    return r & (s->full ^ mask);
}

static int popcount64(board b) { return __builtin_popcountll(b); }

static board non_losing_moves(const Search *s, board current, board mask) {
    board possible = (mask + s->bottom) & s->full;
    board threats = winning_cells(s, current ^ mask, mask);
    board forced = possible & threats;
    if (forced) {
        if (forced & (forced - 1))
            return 0; /* two threats at once: lost */
        possible = forced;
    }
    return possible & ~(threats >> 1); /* never play under their winning cell */
}

static void store(Search *s, uint64_t at, uint64_t quotient, int value) {
    s->entries[at] = quotient << 8 | (uint64_t)value;
}

static int negamax(Search *s, board current, board mask, int moves, int alpha, int beta,
                   uint64_t at, uint64_t quotient_of_key) {
    /* the player to move cannot win at once, and `at` and `quotient_of_key`
     * are its key's slot and the quotient its entry holds (the caller made sure) */
    s->nodes++;
    if (s->nodes >= s->poll.next_check && poll_stop(&s->poll, s->nodes))
        return 0;
    board next = non_losing_moves(s, current, mask);
    if (!next)
        return -(s->cells - moves) / 2;
    if (moves >= s->cells - 2)
        return 0;
    int low = -(s->cells - 2 - moves) / 2;
    if (alpha < low) {
        alpha = low;
        if (alpha >= beta)
            return alpha;
    }
    int high = (s->cells - 1 - moves) / 2;
    if (beta > high) {
        beta = high;
        if (alpha >= beta)
            return beta;
    }
    uint64_t entry = s->entries[at];
    if (entry >> 8 == quotient_of_key && (entry & 0xff)) {
        int v = (int)(entry & 0xff);
        if (v <= s->score_range) {
            int upper = v - 1 + s->score_min;
            if (beta > upper) {
                beta = upper;
                if (alpha >= beta)
                    return beta;
            }
        } else {
            int lower = v - 1 - s->score_range + s->score_min;
            if (alpha < lower) {
                alpha = lower;
                if (alpha >= beta)
                    return alpha;
            }
        }
    }
    board order[64];
    int rank[64];
    uint64_t slot[64], quotient[64]; /* each child's entry: where, and what it must hold */
    int n = 0;
    for (int i = 0; i < s->width; i++) {
        board move = next & s->col_mask[s->order[i]];
        if (!move)
            continue;
        int r = popcount64(winning_cells(s, current | move, mask | move));
        board child_key = (current ^ mask) + (mask | move);
        uint64_t child_q = child_key / s->slots, child_at = child_key - child_q * s->slots;
        /* the child's entry, on its way while the rest is ordered */
        __builtin_prefetch(&s->entries[child_at]);
        int j = n++;
        while (j > 0 && rank[j - 1] < r) { /* stable: ties keep centre first */
            order[j] = order[j - 1];
            rank[j] = rank[j - 1];
            slot[j] = slot[j - 1];
            quotient[j] = quotient[j - 1];
            j--;
        }
        order[j] = move;
        rank[j] = r;
        slot[j] = child_at;
        quotient[j] = child_q;
    }
    /* a child whose stored upper bound already lifts this node to beta ends it
     * before any search (its entry was asked for while ordering) */
    for (int i = 0; s->cells - moves > ETC_LEFT && i < n; i++) {
        uint64_t child = s->entries[slot[i]];
        int v = (int)(child & 0xff);
        if (v && v <= s->score_range && child >> 8 == quotient[i]) {
            int value = -(v - 1 + s->score_min);
            if (value >= beta) {
                store(s, at, quotient_of_key, value - s->score_min + 1 + s->score_range);
                return value;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        board child_mask = mask | order[i];
        int value = -negamax(s, current ^ mask, child_mask, moves + 1, -beta, -alpha, slot[i],
                             quotient[i]);
        if (s->poll.stopped)
            return 0;
        if (value >= beta) {
            store(s, at, quotient_of_key, value - s->score_min + 1 + s->score_range);
            return value;
        }
        if (value > alpha)
            alpha = value;
    }
    store(s, at, quotient_of_key, alpha - s->score_min + 1);
    return alpha;
}

static PyObject *core_negamax(PyObject *module, PyObject *args) {
    Py_buffer table;
    int width, height, moves, alpha, beta;
    unsigned long long current, mask, check_every;
    PyObject *should_stop;
    if (!PyArg_ParseTuple(args, "w*iiKKiiiOK", &table, &width, &height, &current, &mask, &moves,
                          &alpha, &beta, &should_stop, &check_every))
        return NULL;
    if (width < 1 || height < 1 || width * (height + 1) > 64 || table.len < 8 * 256) {
        PyBuffer_Release(&table);
        PyErr_SetString(PyExc_ValueError, "the board or the table does not fit the core");
        return NULL;
    }
    Search s;
    memset(&s, 0, sizeof s);
    s.width = width;
    s.height = height;
    s.cells = width * height;
    for (int c = 0; c < width; c++) {
        s.bottom |= (board)1 << (c * (height + 1));
        s.col_mask[c] = (((board)1 << height) - 1) << (c * (height + 1));
        s.full |= s.col_mask[c];
        /* centre first, then outwards, left before right */
        s.order[c] = width / 2 + (1 - 2 * (c % 2)) * (c + 1) / 2;
    }
    s.score_min = -(s.cells / 2) - 1;
    s.score_range = (s.cells + 1) / 2 + 1 - s.score_min + 1;
    s.slots = (uint64_t)table.len / 8;
    s.entries = (uint64_t *)table.buf;
    poll_start(&s.poll, should_stop, check_every, 0);
    board key = (board)current + (board)mask;
    int value = negamax(&s, (board)current, (board)mask, moves, alpha, beta, key % s.slots,
                        key / s.slots);
    poll_end(&s.poll);
    PyBuffer_Release(&table);
    if (s.poll.stopped == 2)
        return NULL;
    if (s.poll.stopped)
        return Py_BuildValue("OK", Py_None, (unsigned long long)s.nodes);
    return Py_BuildValue("iK", value, (unsigned long long)s.nodes);
}

static PyMethodDef core_methods[] = {
    {"negamax", core_negamax, METH_VARARGS,
     "negamax(table, width, height, current, mask, moves, alpha, beta, should_stop, "
     "check_every) -> (score or None, nodes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "engine.solver._core",
    "The compiled negamax of the Classic solver; see engine/solver/classic.py.", -1,
    core_methods,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&core_module); }
