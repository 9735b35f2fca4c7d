"""The thinker on its own: one search at a time, answers only for the search
still wanted, a failing search still gives a legal move."""

from __future__ import annotations

import threading

from controller.thinker import InlineThinker, Job, ThreadedThinker
from engine import Move, new_game
from engine.solver.limits import Limits
from hardware.clock import FakeClock

WAIT = 10.0


def job(key: int) -> Job:
    return Job("computer", (key,), new_game("classic"), level=3, seed=key)


def test_a_cancelled_search_ends_before_the_next_begins() -> None:
    lock = threading.Lock()
    running: list[int] = []
    most: list[int] = []
    first_in, release, answered = threading.Event(), threading.Event(), threading.Event()

    def choose(asked: Job, limits: Limits) -> Move:
        with lock:
            running.append(asked.seed)
            most.append(len(running))
        if asked.seed == 1:
            first_in.set()
            release.wait(WAIT)  # slow to notice it was cancelled
        with lock:
            running.remove(asked.seed)
        return Move.drop(asked.seed)

    thinker = ThreadedThinker(FakeClock(), budget=60.0, choose=choose)
    thinker.start(job(1), lambda: None)
    assert first_in.wait(WAIT)
    thinker.start(job(2), answered.set)  # cancels the first
    release.set()
    assert answered.wait(WAIT)
    assert max(most) == 1
    assert [(a.job.seed, str(a.move)) for a in thinker.answers()] == [(2, "2")]
    thinker.close()


def test_a_failing_search_still_gives_a_legal_move() -> None:
    def broken(asked: Job, limits: Limits) -> Move:
        raise RuntimeError("a bug in the search")

    thinker = InlineThinker(budget=1.0, choose=broken)
    thinker.start(job(1), lambda: None)
    (answer,) = thinker.answers()
    assert new_game("classic").is_legal(answer.move)


def test_the_simulators_key_for_a_double_press() -> None:
    from controller.terminal import parse_command

    action = parse_command("d", 7)
    assert action is not None and action.verb == "double"
