/* How a compiled search that runs without the GIL asks the caller whether to stop.
 *
 * Shared by engine/solver/_core.c (Classic) and engine/solver/_search.c
 * (every other game); both list it in their setuptools Extension `depends`
 * (pyproject.toml), which also puts it in the sdist, so a wheel built from
 * the sdist compiles both.
 *
 * poll_start releases the GIL; every `check_every` positions poll_stop takes
 * it back just long enough to call `should_stop()`; poll_end takes it back
 * for good. `stopped` is 1 once the answer was true (or the caller's node
 * budget ran out), 2 if should_stop raised: its exception is then set and
 * the caller returns NULL.
 */
#ifndef POPREF_POLL_H
#define POPREF_POLL_H

#include <Python.h>
#include <stdint.h>

typedef struct {
    uint64_t next_check, check_every; /* in the search's positions */
    PyObject *should_stop;            /* NULL: never asked */
    PyThreadState *thread;            /* saved while the GIL is released */
    int stopped;
} Poll;

static void poll_start(Poll *p, PyObject *should_stop, uint64_t check_every, uint64_t nodes) {
    p->check_every = check_every ? check_every : 1;
    p->next_check = nodes + p->check_every;
    p->should_stop = should_stop == Py_None ? NULL : should_stop;
    p->thread = PyEval_SaveThread();
}

/* called once `nodes` has reached p->next_check: whether to stop */
static int poll_stop(Poll *p, uint64_t nodes) {
    p->next_check = nodes + p->check_every;
    if (p->should_stop == NULL)
        return 0;
    PyEval_RestoreThread(p->thread);
    PyObject *answer = PyObject_CallNoArgs(p->should_stop);
    int truth = answer == NULL ? -1 : PyObject_IsTrue(answer);
    Py_XDECREF(answer);
    p->thread = PyEval_SaveThread();
    if (truth < 0)
        p->stopped = 2;
    else if (truth)
        p->stopped = 1;
    return p->stopped;
}

static void poll_end(Poll *p) { PyEval_RestoreThread(p->thread); }

#endif
