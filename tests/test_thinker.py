"""The thinker on its own: one search at a time, answers only for the search
still wanted, a failing search still gives a legal move."""

from __future__ import annotations

import threading

from controller.computer.thinker import InlineThinker, Job, Pick, ThreadedThinker
from engine import Move, new_game
from engine.solver.limits import Limits, search_seconds
from hardware.clock import FakeClock

WAIT = 10.0


def job(key: int) -> Job:
    return Job("computer", (key,), new_game("classic"), level=3, seed=key)


def test_a_cancelled_search_ends_before_the_next_begins() -> None:
    lock = threading.Lock()
    running: list[int] = []
    most: list[int] = []
    first_in, release, answered = threading.Event(), threading.Event(), threading.Event()

    def choose(asked: Job, limits: Limits) -> Pick:
        with lock:
            running.append(asked.seed)
            most.append(len(running))
        if asked.seed == 1:
            first_in.set()
            release.wait(WAIT)  # slow to notice it was cancelled
        with lock:
            running.remove(asked.seed)
        return Pick(Move.drop(asked.seed))

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
    def broken(asked: Job, limits: Limits) -> Pick:
        raise RuntimeError("a bug in the search")

    thinker = InlineThinker(budget=1.0, choose=broken)
    thinker.start(job(1), lambda: None)
    (answer,) = thinker.answers()
    assert new_game("classic").is_legal(answer.move)


# -- the search process ----------------------------------------------------------


def pop10_job(level: int, number: int = 1) -> Job:
    game = new_game("pop10")
    for move in ["4", "3", "5", "2", "6", "1", "7", "4"]:
        game.play(move)
    return Job("computer", (number,), game, level=level, seed=number)


def test_the_search_process_answers_as_the_solver_does() -> None:
    from controller.computer.process import ProcessThinker
    from engine.solver.opponent import Opponent

    thinker = ProcessThinker(FakeClock(), budget=60.0)
    done = threading.Event()
    try:
        asked = pop10_job(level=4)
        thinker.start(asked, done.set)
        assert done.wait(WAIT * 6)  # the first search also starts the process
        (answer,) = thinker.answers()
        expected = Opponent(asked.game.rules, 4, asked.seed).choose(asked.game).move
        assert answer.job is asked and answer.move == expected
    finally:
        thinker.close()


def test_the_search_process_keeps_the_budget_on_the_daemons_clock() -> None:
    from controller.computer.process import ProcessThinker

    clock = FakeClock()
    thinker = ProcessThinker(clock, budget=5.0)
    done = threading.Event()
    try:
        opened = new_game("popout")
        for move in ("4", "1", "1"):  # Red's 1 leaves the opening table: Yellow's move is searched
            opened.play(move)
        long = Job("computer", (1,), opened, level=10, seed=0)
        thinker.start(long, done.set)
        # the search stops early enough for its move to be ready within the budget
        assert thinker.next_deadline() == search_seconds(5.0) == 4.94
        thinker.poll(4.9)
        assert not done.wait(0.5) and thinker.answers() == []  # still searching
        clock.set(5.0)
        thinker.poll(clock())
        assert done.wait(WAIT * 6)
        (answer,) = thinker.answers()
        assert long.game.is_legal(answer.move) and thinker.next_deadline() is None
    finally:
        thinker.close()


def test_a_cancelled_search_gives_no_answer_and_the_next_one_does() -> None:
    from controller.computer.process import ProcessThinker

    thinker = ProcessThinker(FakeClock(), budget=600.0)
    stale, done = threading.Event(), threading.Event()
    try:
        thinker.start(Job("computer", (1,), new_game("popout"), level=10, seed=0), stale.set)
        thinker.cancel()
        quick = pop10_job(level=2, number=2)
        thinker.start(quick, done.set)
        assert done.wait(WAIT * 6)
        assert [a.job for a in thinker.answers()] == [quick] and not stale.is_set()
    finally:
        thinker.close()


def test_a_ponder_job_searches_in_the_process_on_its_own_budget() -> None:
    from controller.computer.process import ProcessThinker

    clock = FakeClock()
    thinker = ProcessThinker(clock, budget=5.0)
    done = threading.Event()
    game = new_game("classic")
    for move in "472612134724":  # past the book: a real search
        game.play(move)
    try:
        ponder = Job("ponder", (1,), game, level=10, seed=0, budget=30.0)
        thinker.start(ponder, done.set)
        assert thinker.next_deadline() == search_seconds(30.0)
        clock.set(search_seconds(30.0))
        thinker.poll(clock())
        assert done.wait(WAIT * 6)
        (answer,) = thinker.answers()
        assert answer.job is ponder and game.is_legal(answer.move)
    finally:
        thinker.close()


def test_full_strength_shares_one_opponent_for_moves_pondering_and_hints() -> None:
    from controller.computer.thinker import Purpose, _Opponents

    game = new_game("classic")
    game.play("4")
    opponents = _Opponents()
    jobs: list[tuple[Purpose, int]] = [("computer", 7), ("hint", 0), ("ponder", 7)]
    for purpose, seed in jobs:
        opponents(Job(purpose, (1,), game, level=10, seed=seed), Limits(max_nodes=1000))
    assert len(opponents._cache) == 1  # one exact solver's table, not one a seed
    opponents(Job("computer", (1,), game, level=5, seed=7), Limits())
    assert len(opponents._cache) == 2  # a lower level's choice depends on its seed
