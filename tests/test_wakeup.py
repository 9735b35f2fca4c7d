"""The daemon loop's wake-up loses none, whenever another thread's ``set()``
lands in the loop's ``wait()``.

Issue 22: a friend's request took 500 ms to light the grid in every sample
of bench/remote.py's tmpfs run. The broker's thread called ``set()`` while
the loop was draining the socket: the loop had already cleared its "a byte
is on its way" flag, the drain took the new byte too, and the flag stayed
set with no byte behind it. Every later ``set()`` skipped its byte, and the
loop woke only for its own deadlines (the inputs' level re-read, every
0.5 s), so each request waited for the next one.

A trace function on the loop's thread runs another thread's ``set()`` just
before a chosen line of ``wait()`` runs, so every interleaving is reached
deterministically, with no sleeps.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from controller.daemon.config import parse_config
from controller.daemon.wakeup import HANDOFF, Wakeup
from controller.simulator.simulation import Simulation


def wait_with_sets(wakeup: Wakeup, sets_at: Mapping[int, int]) -> bool:
    """``wakeup.wait(0.0)``, another thread calling ``set()`` ``sets_at[k]``
    times just before the ``k``-th line event of ``wait`` runs."""
    lines = iter(range(1_000))

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            for _ in range(sets_at.get(next(lines), 0)):
                other = threading.Thread(target=wakeup.set)
                other.start()
                other.join()
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code is Wakeup.wait.__code__ else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        return wakeup.wait(0.0)
    finally:
        sys.settrace(previous)


def test_a_set_while_the_loop_drains_does_not_swallow_the_next_ones() -> None:
    wakeup = Wakeup()
    try:
        wakeup.set()
        # another thread's set() as wait()'s fifth line runs: the loop is
        # draining the socket, and takes that set()'s byte with the others
        assert wait_with_sets(wakeup, {4: 1})
        wakeup.wait(0.0)
        wakeup.set()  # the next request
        assert wakeup.wait(0.0), "the loop was not woken: a wake-up was lost"
    finally:
        wakeup.close()


@given(
    before=st.integers(min_value=1, max_value=3),
    sets_at=st.dictionaries(st.integers(min_value=0, max_value=15), st.integers(1, 2)),
)
def test_no_wake_up_is_lost_wherever_sets_land_in_a_wait(
    before: int, sets_at: dict[int, int]
) -> None:
    wakeup = Wakeup()
    try:
        for _ in range(before):
            wakeup.set()
        assert wait_with_sets(wakeup, sets_at)
        wakeup.wait(0.0)  # a byte sent after the drain, if any: its own wake-up
        for _ in range(3):  # the following inputs, each woken on its own
            wakeup.set()
            assert wakeup.wait(0.0), "the loop was not woken: a wake-up was lost"
    finally:
        wakeup.close()


def test_an_opened_daemon_lets_a_woken_thread_have_the_interpreter_at_once(
    tmp_path: Path,
) -> None:
    """A friend's request on paho's thread, the loop woken by it: with
    CPython's 5 ms default each hand-over between them could wait that long."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    try:
        simulation = Simulation(parse_config({}, "test"), tmp_path)
        try:
            assert sys.getswitchinterval() <= HANDOFF
        finally:
            simulation.close()
    finally:
        sys.setswitchinterval(before)
