"""The computer opponent through the whole daemon on the simulated grid: its
moves lit and made, the search on a worker thread (the loop keeps serving,
cancellation, the budget on the daemon's clock), the journal and resuming
mid-thought, hints, and ``popref simulate --opponent``."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.computer.dispatch import PONDER_SECONDS
from controller.computer.thinker import Job, Pick, ThreadedThinker
from controller.daemon.config import Config, parse_config
from controller.simulator.script import Action, parse_line
from controller.simulator.simulation import Simulation
from controller.store.journal import Journal
from engine import MoveKind
from engine.colour import Colour
from engine.solver.limits import Limits
from engine.solver.opponent import Opponent
from hardware.clock import FakeClock
from hardware.display import Lamp
from hardware.events import ButtonHeld

WAIT = 10.0  # seconds a test waits for the worker thread before it fails
BUDGET = 60.0  # the thinking budget, on the simulation's clock


def config(rules: str = "classic", **opponent: Any) -> Config:
    return parse_config({"game": {"rules": rules}, "opponent": opponent}, "test.toml")


def act(simulation: Simulation, text: str) -> list[str]:
    action = parse_line(text, 1, "test")
    assert isinstance(action, Action)
    return simulation.act(action).mistakes


def died(simulation: Simulation) -> None:
    """What the kernel does for a process that dies: its flock goes."""
    assert simulation.daemon.lock is not None
    simulation.daemon.lock.release()


def journal(simulation: Simulation) -> list[dict[str, Any]]:
    return Journal(simulation.state_dir / "journal").load().records


def chosen(simulation: Simulation) -> list[str]:
    return [r["computer"] for r in journal(simulation) if "computer" in r]


class Gate:
    """A search that runs until the test releases it, the daemon cancels it, or
    the budget on the daemon's clock runs out; it then plays the level-1 move."""

    def __init__(self) -> None:
        self.jobs: queue.Queue[Job] = queue.Queue()
        self.stopped: queue.Queue[Job] = queue.Queue()
        self.release = threading.Event()

    def __call__(self, job: Job, limits: Limits) -> Pick:
        self.jobs.put(job)
        while not self.release.wait(0.001):
            if limits.stopped(0):
                self.stopped.put(job)
                break
        return Pick(Opponent(job.game.rules, 1, job.seed).choose(job.game).move)


@contextlib.contextmanager
def gated_simulation(
    state: Path, plays: str, level: int, ponder: bool = False
) -> Iterator[tuple[Simulation, Gate, ThreadedThinker]]:
    """A simulation whose searches wait for the test's :class:`Gate`."""
    clock = FakeClock()
    gate = Gate()
    thinker = ThreadedThinker(clock, budget=BUDGET, choose=gate)
    simulation = Simulation(
        config(plays=plays, level=level), state, thinker=thinker, clock=clock, ponder=ponder
    )
    try:
        yield simulation, gate, thinker
    finally:
        gate.release.set()
        simulation.close()


@pytest.fixture
def gated(tmp_path: Path) -> Any:
    with gated_simulation(tmp_path / "state", "yellow", 2) as parts:
        yield parts


def test_the_loop_serves_the_grid_while_the_computer_thinks(gated: Any) -> None:
    simulation, gate, thinker = gated
    act(simulation, "drop 4")
    job = gate.jobs.get(timeout=WAIT)
    assert (job.purpose, [str(m) for m in job.game.moves]) == ("computer", ["4"])
    assert simulation.display().status == "The computer (Yellow) is thinking."
    # a person drops a disc mid-thought: caught and guided at once, search or not
    assert act(simulation, "drop 3") == ["computer-thinking"]
    assert simulation.display().columns[2].lamp is Lamp.ERROR
    assert act(simulation, "pop 3") == []
    assert simulation.display().status == "The computer (Yellow) is thinking."
    assert chosen(simulation) == [] and gate.jobs.empty()  # the same search goes on
    gate.release.set()
    assert thinker.wait(WAIT)
    simulation.advance(0.01)
    expected = str(Opponent(job.game.rules, 1, job.seed).choose(job.game).move)
    assert chosen(simulation) == [expected]
    state = simulation.state("after")
    assert state["computer"] == expected and state["opponent"] == "yellow"
    assert state["lights"][int(expected) - 1] == "computer-drop"
    assert act(simulation, f"drop {expected}") == []
    assert simulation.state("made")["moves"] == ["4", expected]


def test_the_slider_mid_thought_cancels_the_search(gated: Any) -> None:
    simulation, gate, _ = gated
    act(simulation, "drop 4")
    first = gate.jobs.get(timeout=WAIT)
    assert act(simulation, "slider open") == ["slider"]
    assert gate.stopped.get(timeout=WAIT) is first
    act(simulation, "slider close")
    assert gate.jobs.empty()  # nothing to think about until the grid is rebuilt
    act(simulation, "drop 4 red")
    again = gate.jobs.get(timeout=WAIT)
    assert again.key == first.key and again.seed == first.seed


def test_an_abandoned_game_cancels_the_search(gated: Any) -> None:
    simulation, gate, _ = gated
    act(simulation, "drop 4")
    first = gate.jobs.get(timeout=WAIT)
    act(simulation, "hold")
    act(simulation, "hold")
    assert gate.stopped.get(timeout=WAIT) is first
    assert simulation.state("new")["moves"] == [] and chosen(simulation) == []


def test_the_budget_runs_on_the_daemons_clock(gated: Any) -> None:
    simulation, gate, thinker = gated
    act(simulation, "drop 4")
    job = gate.jobs.get(timeout=WAIT)
    simulation.advance(BUDGET / 2)
    assert gate.stopped.empty()
    simulation.advance(BUDGET / 2)  # past the budget since the search began
    assert gate.stopped.get(timeout=WAIT) is job
    assert thinker.wait(WAIT)
    simulation.advance(0.01)
    assert simulation.state("after")["computer"] is not None


def test_a_restart_mid_thought_chooses_the_same_move(tmp_path: Path) -> None:
    clock = FakeClock()
    gate = Gate()
    thinker = ThreadedThinker(clock, budget=5.0, choose=gate)
    killed = Simulation(
        config(plays="yellow", level=4), tmp_path / "a", thinker=thinker, clock=clock
    )
    act(killed, "drop 4")
    gate.jobs.get(timeout=WAIT)
    # the process dies mid-thought: nothing more is written, nothing is closed,
    # and the kernel drops its lock on the state directory
    thinker.cancel()
    died(killed)
    assert chosen(killed) == []
    resumed = Simulation(config(plays="yellow", level=4), tmp_path / "a")
    unbroken = Simulation(config(plays="yellow", level=4), tmp_path / "b")
    act(unbroken, "drop 4")
    resumed_state, unbroken_state = resumed.state("resumed"), unbroken.state("unbroken")
    assert resumed_state["computer"] == unbroken_state["computer"] is not None
    assert (
        journal(resumed)[0]["snapshot"]["computer"] == journal(unbroken)[0]["snapshot"]["computer"]
    )
    resumed.close()
    unbroken.close()


def test_the_computers_move_is_journalled_and_survives_a_restart(tmp_path: Path) -> None:
    first = Simulation(config(plays="red", level=3), tmp_path / "state")
    shown = first.state("start")["computer"]
    assert shown is not None and chosen(first) == [shown]
    first.close()
    second = Simulation(config(plays="red", level=3), tmp_path / "state")
    assert second.state("again")["computer"] == shown and chosen(second) == [shown]
    second.close()


def test_levels_are_deterministic_per_seed(tmp_path: Path) -> None:
    def moves(seed: int, name: str) -> list[str]:
        simulation = Simulation(config(plays="yellow", level=1, seed=seed), tmp_path / name)
        for _ in range(6):
            computer = simulation.state("")["computer"]
            if computer is None:
                person = simulation.daemon.referee.game.legal_moves()[0]
                act(simulation, f"drop {person.column}")
            else:
                act(simulation, f"drop {computer}")
        made = simulation.state("")["moves"]
        simulation.close()
        return list(made)

    assert moves(3, "a") == moves(3, "b")
    assert len({tuple(moves(seed, f"s{seed}")) for seed in range(6)}) > 1


@pytest.mark.parametrize("rules", ["classic", "popout", "pop10", "five+popout"])
def test_whole_games_against_the_computer(tmp_path: Path, rules: str) -> None:
    """A person (the first legal move) against the computer as Red, moving its
    discs as the board shows, Pop 10's scoring pops and returns included."""
    simulation = Simulation(config(rules, plays="red", level=1), tmp_path / "state")
    referee = simulation.daemon.referee
    computer_moves: list[str] = []
    for _ in range(400):
        state = simulation.state("")
        if state["result"] is not None:
            break
        move = referee.computer_move if state["computer"] else referee.game.legal_moves()[0]
        assert move is not None
        if state["computer"]:
            computer_moves.append(str(move))
            lamp = "computer-pop" if move.kind is MoveKind.POP else "computer-drop"
            assert state["lights"][move.column - referee.offset - 1] == lamp
        verb = "pop" if move.kind is MoveKind.POP else "drop"
        assert act(simulation, f"{verb} {move.column - referee.offset}") == []
    assert simulation.state("end")["result"] is not None
    assert chosen(simulation) == computer_moves
    red_moves = [str(m) for m, c in zip(referee.game.moves, _movers(referee), strict=True) if c]
    assert red_moves == computer_moves
    if rules == "pop10":  # its pops (scoring or not) and its return drops, one at a time
        pops = [i for i, m in enumerate(computer_moves) if m.startswith("p")]
        assert len(pops) >= 10 and any(i + 1 not in pops for i in pops[:-1])
    simulation.close()


def _movers(referee: Any) -> list[bool]:
    """Whether each move of the game was Red's (replayed through the engine)."""
    from engine import new_game

    game = new_game(referee.game.rules)
    movers = []
    for move in referee.game.moves:
        movers.append(game.to_move is Colour.RED)
        game.play(move)
    return movers


def test_a_hint_lights_the_best_move_for_a_few_seconds(tmp_path: Path) -> None:
    simulation = Simulation(config(), tmp_path / "state")
    for text in ("drop 4", "drop 5", "drop 4", "drop 5", "drop 4"):
        act(simulation, text)
    act(simulation, "double")  # Yellow asks: block column 4
    state = simulation.state("hint")
    assert state["hint"] == "4" and state["rules"] == "classic"
    assert state["lights"] == ["off"] * 3 + ["hint-drop"] + ["off"] * 3
    assert state["status"] == "Hint for Yellow: drop a Yellow disc into column 4."
    act(simulation, "wait 6000")
    state = simulation.state("later")
    assert state["hint"] is None and state["lights"].count("drop") == 7
    simulation.close()


def test_a_hint_is_dropped_when_the_player_moves_first(tmp_path: Path) -> None:
    clock = FakeClock()
    gate = Gate()
    thinker = ThreadedThinker(clock, budget=5.0, choose=gate)
    simulation = Simulation(config(), tmp_path / "state", thinker=thinker, clock=clock)
    act(simulation, "drop 4")
    act(simulation, "double")
    hint = gate.jobs.get(timeout=WAIT)
    assert hint.purpose == "hint" and hint.level == 10
    act(simulation, "drop 3")
    assert gate.stopped.get(timeout=WAIT) is hint
    assert simulation.state("moved")["hint"] is None
    gate.release.set()
    simulation.close()


def test_simulate_json_says_what_the_computer_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "script.txt"
    path.write_text("drop 4\n")
    status = main(
        ["simulate", "--script", str(path), "--json", "--opponent", "yellow", "--level", "1"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    state = json.loads(out.splitlines()[-1])
    assert state["opponent"] == "yellow" and state["moves"] == ["4"]
    assert state["computer"] is not None and state["hint"] is None
    assert state["status"].startswith("The computer's move: drop a Yellow disc into column")


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ({"plays": "blue"}, "[opponent] plays: 'blue'"),
        ({"level": 11}, "[opponent] level: 11 is out of range; use 1 to 10"),
        ({"think_ms": "fast"}, "[opponent] think_ms: must be a whole number"),
        ({"depth": 3}, "[opponent] depth: unknown key"),
        ({"ponder": "yes"}, "[opponent] ponder: must be true or false, not 'yes'"),
    ],
)
def test_opponent_configuration_errors_are_one_line(table: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        parse_config({"opponent": table}, "c.toml")
    message = str(caught.value)
    assert message.startswith("c.toml: ") and named in message and "\n" not in message


def test_opponent_configuration() -> None:
    parsed = config(plays="red", level=10, think_ms=1500, seed=4).opponent
    assert (parsed.plays and parsed.plays.value, parsed.level, parsed.think, parsed.seed) == (
        "red",
        10,
        1.5,
        4,
    )
    defaults = parse_config({}, "defaults").opponent
    assert (defaults.plays, defaults.think, defaults.ponder) == (None, 1.0, True)
    assert not config(ponder=False).opponent.ponder


def test_an_answer_waiting_when_the_game_is_abandoned_is_dropped(gated: Any) -> None:
    simulation, gate, thinker = gated
    act(simulation, "drop 4")
    gate.jobs.get(timeout=WAIT)
    act(simulation, "hold")  # mid-game: asks for a second hold
    gate.release.set()
    assert thinker.wait(WAIT)  # the answer waits for the loop...
    simulation.daemon.feed(ButtonHeld(at=simulation.clock()))  # ...which sees the abandon first
    simulation.advance(0.01)
    state = simulation.state("new game")
    assert state["moves"] == [] and state["computer"] is None and chosen(simulation) == []


@pytest.mark.parametrize(("link", "look"), [("gpio", "on"), ("serial", "yellow")])
def test_the_computers_move_on_the_lights_themselves(tmp_path: Path, link: str, look: str) -> None:
    """Through the pins' plain LEDs, or the sensor board's strip (wire codes,
    firmware/lights.py: in the computer's colour): only its column, blinking."""
    settings = {"game": {"rules": "popout"}, "opponent": {"plays": "yellow", "level": 2}}
    settings["sim"] = {"link": link}
    simulation = Simulation(parse_config(settings, "test.toml"), tmp_path / "state")
    act(simulation, "drop 4")
    column = int(simulation.state("")["computer"])
    shown = simulation.lights.shown()
    assert shown.columns[column - 1] == look
    assert [c for c in shown.columns if c is not None] == [look]
    assert column in shown.blinking and shown.turn_yellow and not shown.turn_red
    simulation.close()


@pytest.mark.parametrize("record", [{"computer": "9x"}, {"computer": "5"}, {"computer": 4}])
def test_a_computer_record_that_does_not_fit_is_damage_at_its_line(
    tmp_path: Path, record: dict[str, Any]
) -> None:
    from controller.daemon.assembly import StartupError

    first = Simulation(config(plays="yellow", level=2), tmp_path / "state")
    act(first, "drop 4")  # the computer has chosen: a second choice cannot fit
    first.close()
    lines = len(Journal(tmp_path / "state" / "journal").load().records)
    journal = Journal(tmp_path / "state" / "journal")
    journal.load()
    journal.append(record)
    journal.close()
    with pytest.raises(StartupError, match=f"line {lines + 1}"):
        Simulation(config(plays="yellow", level=2), tmp_path / "state")


def test_a_changed_plays_applies_at_the_next_start_and_the_button_stands_till_then(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    first = Simulation(config(), state)
    assert first.state("")["opponent"] is None
    first.close()
    second = Simulation(config(plays="yellow", level=1), state)  # not begun: this game
    assert second.state("")["opponent"] == "yellow"
    act(second, "double")  # the button: the computer as Red now
    assert second.state("")["opponent"] == "red"
    second.close()
    third = Simulation(config(plays="yellow", level=1), state)  # unchanged: the button stands
    assert third.state("")["opponent"] == "red"
    third.close()


@pytest.fixture
def pondering(tmp_path: Path) -> Any:
    with gated_simulation(tmp_path / "state", "yellow", 10, ponder=True) as parts:
        yield parts


def test_full_strength_thinks_on_the_players_time_and_the_move_cancels_it(
    pondering: Any,
) -> None:
    simulation, gate, _ = pondering
    ponder = gate.jobs.get(timeout=WAIT)  # Red, a person, is to move
    assert (ponder.purpose, ponder.budget, ponder.level) == ("ponder", PONDER_SECONDS, 10)
    assert simulation.display().status != "The computer (Yellow) is thinking."
    act(simulation, "drop 4")
    assert gate.stopped.get(timeout=WAIT) is ponder
    job = gate.jobs.get(timeout=WAIT)
    assert (job.purpose, job.level, job.seed) == ("computer", 10, ponder.seed)
    assert simulation.display().status == "The computer (Yellow) is thinking."


def test_a_pondered_answer_is_never_played_and_a_position_is_pondered_once(
    pondering: Any,
) -> None:
    simulation, gate, thinker = pondering
    ponder = gate.jobs.get(timeout=WAIT)
    simulation.advance(PONDER_SECONDS)  # its budget runs out: it answers
    assert gate.stopped.get(timeout=WAIT) is ponder
    assert thinker.wait(WAIT)
    simulation.advance(0.01)
    state = simulation.state("after")
    assert (state["computer"], state["moves"], chosen(simulation)) == (None, [], [])
    simulation.advance(1.0)
    assert gate.jobs.empty()  # not again for the same position
    act(simulation, "drop 4")
    assert gate.jobs.get(timeout=WAIT).purpose == "computer"


def test_a_hint_comes_before_pondering(tmp_path: Path) -> None:
    with gated_simulation(tmp_path, "red", 10, ponder=True) as (simulation, gate, thinker):
        assert gate.jobs.get(timeout=WAIT).purpose == "computer"
        gate.release.set()
        assert thinker.wait(WAIT)
        gate.release.clear()
        simulation.advance(0.01)
        act(simulation, f"drop {simulation.state('chosen')['computer']} red")
        ponder = gate.jobs.get(timeout=WAIT)  # Yellow, a person, is to move
        assert ponder.purpose == "ponder"
        act(simulation, "double")  # Yellow asks for a hint
        assert gate.stopped.get(timeout=WAIT) is ponder
        assert gate.jobs.get(timeout=WAIT).purpose == "hint"
        gate.release.set()
        assert thinker.wait(WAIT)
        simulation.advance(0.01)
        state = simulation.state("hint")
        assert state["hint"] is not None and state["status"].startswith("Hint for Yellow")


def test_once_a_hint_is_asked_full_strength_studies_each_later_position(
    tmp_path: Path,
) -> None:
    # two people: no thinking until someone asks for a hint; from then on, each
    # position they may ask about is studied on their time, as pondering is
    with gated_simulation(tmp_path, "none", 5, ponder=True) as (simulation, gate, thinker):
        simulation.advance(1.0)
        assert gate.jobs.empty()
        act(simulation, "drop 4")
        act(simulation, "double")  # Yellow asks for a hint
        hint = gate.jobs.get(timeout=WAIT)
        assert (hint.purpose, hint.budget) == ("hint", None)
        gate.release.set()
        assert thinker.wait(WAIT)
        gate.release.clear()
        simulation.advance(0.01)
        assert simulation.state("hint")["hint"] is not None
        study = gate.jobs.get(timeout=WAIT)  # the same position, till proven or its time is up
        assert (study.purpose, study.budget, study.level) == ("study", PONDER_SECONDS, 10)
        assert [str(m) for m in study.game.moves] == ["4"]
        act(simulation, "drop 3")
        assert gate.stopped.get(timeout=WAIT) is study
        study = gate.jobs.get(timeout=WAIT)  # Red's position now
        assert (study.purpose, [str(m) for m in study.game.moves]) == ("study", ["4", "3"])
        simulation.advance(PONDER_SECONDS)  # its time runs out: once a position
        assert gate.stopped.get(timeout=WAIT) is study
        assert thinker.wait(WAIT)
        simulation.advance(1.0)
        assert gate.jobs.empty()


def test_without_pondering_nothing_is_studied(tmp_path: Path) -> None:
    with gated_simulation(tmp_path, "none", 5, ponder=False) as (simulation, gate, thinker):
        act(simulation, "drop 4")
        act(simulation, "double")  # a hint: on an empty grid the button seats the computer
        assert gate.jobs.get(timeout=WAIT).purpose == "hint"
        gate.release.set()
        assert thinker.wait(WAIT)
        simulation.advance(0.01)
        act(simulation, "drop 3")
        simulation.advance(1.0)
        assert gate.jobs.empty()


@pytest.mark.parametrize("level", [1, 9])
def test_lower_levels_do_not_ponder(tmp_path: Path, level: int) -> None:
    with gated_simulation(tmp_path, "yellow", level, ponder=True) as (simulation, gate, _):
        simulation.advance(1.0)
        assert gate.jobs.empty()
        act(simulation, "drop 4")
        assert gate.jobs.get(timeout=WAIT).purpose == "computer"
