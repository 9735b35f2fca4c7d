"""A hint says when its move is not proven to keep the position's outcome
(issue 24): the search's flag travels through both thinkers and the search
process to the state's ``hint_proven``, the status the terminal and the page
show, and ``popref simulate --json``. Searches are bounded by node budgets,
never by the wall clock, so every run is the same."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.computer.process import ProcessThinker
from controller.computer.thinker import Choose, InlineThinker, Job, Pick, solver
from controller.daemon.config import parse_config
from controller.i18n.text import LANGUAGES, translations
from controller.simulator.script import parse_line
from controller.simulator.simulation import Simulation
from controller.simulator.terminal import render
from controller.web.page_text import PAGE
from engine import Game, new_game
from engine.solver.limits import Limits
from engine.solver.opponent import MAX_LEVEL, Opponent
from hardware.clock import FakeClock
from tests.browser import PHONE, needs_chromium, open_page, text, wait
from tests.test_web_page import choose_language
from tests.webclient import Table

NODES = 2_000  # far too few to solve Classic three plies in, plenty for an endgame
UNPROVEN = "Not proven: the search ran out of time."
# past the book, which holds every opening of six moves
# (seven stays out: ply 7 is about 50,000 positions): the outcome of Classic after
# 2 1 3 1 2 3 1 takes seconds to prove (11 M positions), not 2,000 nodes
OPENING = ("drop 2", "drop 1", "drop 3", "drop 1", "drop 2", "drop 3", "drop 1")
# a test-set draw (tests/data/connect4-testsets), solved within a few hundred nodes
ENDGAME = tuple(f"drop {digit}" for digit in "71324677554451437653")
WAIT = 60.0  # seconds for the search process, which starts cold


def budgeted(nodes: int) -> Choose:
    """The real search, each job bounded to ``nodes`` positions."""
    real = solver()

    def choose(job: Job, limits: Limits) -> Pick:
        return real(job, dataclasses.replace(limits, max_nodes=nodes))

    return choose


def thinker(nodes: int = NODES) -> InlineThinker:
    # a clock that never moves: only the node budget ends a search
    return InlineThinker(budget=60.0, choose=budgeted(nodes), clock=FakeClock())


def act(simulation: Simulation, *lines: str) -> None:
    for line in lines:
        action = parse_line(line, 1, "test")
        assert action is not None
        simulation.act(action)


@pytest.fixture
def simulation(tmp_path: Path) -> Iterator[Simulation]:
    played = Simulation(parse_config({}, "test.toml"), tmp_path / "state", thinker=thinker())
    try:
        yield played
    finally:
        played.close()


def test_a_hint_the_search_could_not_prove_says_so(simulation: Simulation) -> None:
    act(simulation, *OPENING)
    assert simulation.state("before")["hint_proven"] is None  # no hint, no word
    act(simulation, "double")
    state = simulation.state("hint")
    move = state["hint"]
    assert move is not None and state["hint_proven"] is False
    assert state["status"] == f"Hint for Yellow: drop a Yellow disc into column {move}. {UNPROVEN}"
    # the terminal shows the status, in the reader's language
    assert UNPROVEN in render(simulation)
    assert "Siirtoa ei ole todistettu" in render(simulation, "fi")
    act(simulation, "wait 6000")  # the hint goes dark, and its word with it
    state = simulation.state("later")
    assert state["hint"] is None and state["hint_proven"] is None
    assert UNPROVEN not in render(simulation)


def test_a_restart_forgets_the_hint_and_its_word(tmp_path: Path) -> None:
    # neither is journalled: the dispatcher holds both for the hint's 5 s
    config = parse_config({}, "test.toml")
    first = Simulation(config, tmp_path / "state", thinker=thinker())
    act(first, *OPENING, "double")
    assert first.state("hint")["hint_proven"] is False
    first.close()
    again = Simulation(config, tmp_path / "state", thinker=thinker())
    try:
        state = again.state("resumed")
        assert state["moves"] == ["2", "1", "3", "1", "2", "3", "1"]
        assert state["hint"] is None and state["hint_proven"] is None
        assert UNPROVEN not in render(again)
    finally:
        again.close()


@pytest.mark.parametrize(
    ("plays", "status"),
    [
        (("drop 4",), "Hint for Yellow: drop a Yellow disc into column 4."),  # the book's
        (ENDGAME, "Hint for Red: drop a Red disc into column 3."),  # the only draw, solved
    ],
    ids=["book", "solved"],
)
def test_a_book_or_solved_hint_says_nothing_more(
    simulation: Simulation, plays: tuple[str, ...], status: str
) -> None:
    act(simulation, *plays, "double")
    state = simulation.state("hint")
    assert state["hint_proven"] is True and state["status"] == status
    assert UNPROVEN not in render(simulation)


def test_simulate_json_carries_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "script.txt"
    script.write_text("drop 4\ndouble\n")  # the book answers: proven in any time
    status = main(
        ["simulate", "--script", str(script), "--json", "--state-dir", str(tmp_path / "s")]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    before, after = (json.loads(line) for line in out.splitlines())
    assert before["hint_proven"] is None
    assert after["hint"] == "4" and after["hint_proven"] is True


def _answer(process: ProcessThinker, job: Job, clock: FakeClock) -> Pick:
    done = threading.Event()
    process.start(job, done.set)
    clock.set(clock() + 3600.0)  # the budget is spent at once: the child hurries
    process.poll(clock())
    assert done.wait(WAIT)
    (answer,) = process.answers()
    assert answer.job is job
    return answer.pick


def test_the_search_process_sends_whether_its_move_is_proven() -> None:
    clock = FakeClock()
    process = ProcessThinker(clock, budget=1.0, grace=3600.0)
    try:
        book = new_game("classic")
        book.play("4")
        assert _answer(process, Job("hint", (1,), book, MAX_LEVEL, 0), clock).proven
        opening = new_game("classic")
        for move in "2131231":
            opening.play(move)
        assert not _answer(process, Job("hint", (7,), opening, MAX_LEVEL, 0), clock).proven
    finally:
        process.close()


RULES = ("classic", "popout", "five")


@st.composite
def positions(draw: st.DrawFn) -> Game:
    """A game of any of :data:`RULES` after a few random legal moves."""
    game = new_game(draw(st.sampled_from(RULES)))
    for _ in range(draw(st.integers(0, 14))):
        if game.is_over():
            break
        game.play(draw(st.sampled_from(list(game.legal_moves()))))
    return game


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=positions(), nodes=st.integers(50, 20_000))
def test_a_hint_is_proven_exactly_when_the_solver_says_its_move_is(game: Game, nodes: int) -> None:
    if game.is_over():
        return
    searching = thinker(nodes)
    searching.start(Job("hint", (1,), game.copy(), MAX_LEVEL, 0), lambda: None)
    (answer,) = searching.answers()
    choice = Opponent(game.rules, MAX_LEVEL).choose(game.copy(), Limits(max_nodes=nodes))
    assert (answer.move, answer.pick.proven) == (choice.move, choice.proven)


def says_unproven(code: str) -> Callable[[Any], bool]:
    """Whether the page's status ends with the sentence, in language ``code``."""
    sentence = translations(code).gettext(UNPROVEN)
    return lambda driver: text(driver, "status").endswith(sentence)


@needs_chromium
def test_the_page_shows_that_a_hint_is_not_proven(browser: Any, tmp_path: Path) -> None:
    table = Table(tmp_path / "state", thinker=thinker())
    try:
        open_page(browser, table)
        table.act(*OPENING, "double")
        wait(browser, lambda d: "not proven" in text(d, "opponent"), "the unproven hint")
        move = table.get_json("/api/state")["hint"]
        assert text(browser, "opponent") == f"Hint: {move} (not proven)."
        assert text(browser, "status").endswith(UNPROVEN)
        browser.set_window_size(*PHONE)
        for code in LANGUAGES:  # each language's words fit a phone
            choose_language(browser, code)
            wait(browser, says_unproven(code), code)
            marked = translations(code).gettext(PAGE["hint_unproven"]).format(move=move)
            assert text(browser, "opponent") == marked, code
            width = browser.execute_script("return document.documentElement.clientWidth")
            assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        choose_language(browser, "en")
        table.act("wait 6000")
        wait(browser, lambda d: "Hint" not in text(d, "opponent"), "the hint going out")
        assert UNPROVEN not in text(browser, "status")
    finally:
        table.close()
