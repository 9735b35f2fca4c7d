"""The soak harness (bench/soak.py) and the faults it found.

The bounded soak at the end runs every rules preset with people's mistakes,
sensor faults, serial-link faults on sensor-board tables and a few ``kill -9``
restarts, seeded, in well under a minute; a second one adds a friend who
plays through a real Mosquitto (skipped, saying why, where it is missing).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.soaklib.faults import EdgeDropper
from bench.soaklib.friend import Friend
from bench.soaklib.kills import KillPlan, _one_action_apart, kill_and_resume, random_script
from bench.soaklib.lights import Reading, expected_reading, read_lights, read_strip, strip_look
from bench.soaklib.remotekill import MOMENTS as KILLED
from bench.soaklib.remotekill import kill_while_asked
from bench.soaklib.remoteplay import FRIEND_FAULTS, MOMENTS, friend_moves, play_friend_turn
from bench.soaklib.run import SoakPlan, run_soak
from bench.soaklib.table import LOOK, Diverged, SoakTable, TableSetup, believed
from bench.soaklib.tally import Tally
from engine import RULES_NAMES, Move
from engine.colour import Colour
from hardware.clock import FakeClock
from hardware.display import ColumnLight, Display, Lamp
from hardware.events import DiscEntered
from hardware.inputs import GpioInputs
from hardware.pinmap import PinMap
from hardware.sim.mockpins import clocked_mock_factory
from hardware.sim.seam import Beam
from tests.broker import MISSING, MOSQUITTO, Mosquitto
from tests.conftest import SEEDED_BY, SOAK_SEED, code_seed

R, Y = Colour.RED, Colour.YELLOW


def _table(tmp_path: Path, preset: str = "popout", **setup: object) -> SoakTable:
    return SoakTable(
        TableSetup(preset, **setup),  # type: ignore[arg-type]
        tmp_path / "state",
        random.Random(5),
        Tally(),
    )


# -- reading the lights as a person does -------------------------------------------


def test_lights_in_play_show_the_movers_columns_and_turn(tmp_path: Path) -> None:
    table = _table(tmp_path)
    reading = table.look()
    assert reading == Reading("steady", (1, 2, 3, 4, 5, 6, 7), R)
    table.close()


def test_an_illegal_drop_is_read_as_pop_this_column(tmp_path: Path) -> None:
    table = _table(tmp_path, "pop10")
    for column, colour in zip((1, 2, 3, 4, 5, 6, 7, 1), (R, Y) * 4, strict=True):
        assert table.act("drop", column, colour).mistakes == []
    outcome = table.act("drop", 1, Y)  # Pop 10 fills row by row: column 1 is not lowest
    assert outcome.mistakes == ["illegal-drop"]
    reading = table.look()
    assert reading == Reading("pop", (1,))
    assert reading == expected_reading(table.sim.display())
    table.close()


def test_a_pop_repair_is_read_as_drop_this_colour_here(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.act("drop", 3, R)
    table.act("drop", 5, Y)
    assert table.act("pop", 5).mistakes == ["illegal-pop"]  # Red popped Yellow's disc
    assert table.look() == Reading("drop", (5,), Y)
    table.close()


def test_the_slider_step_is_every_column_blinking_with_no_turn_light() -> None:
    from hardware.sim.seam import ShownLights

    shown = ShownLights(
        columns=("on",) * 7,
        blinking=frozenset(range(1, 8)),
        turn_red=False,
        turn_yellow=False,
        scores=None,
        buzzer=False,
    )
    assert read_lights(shown).kind == "slider"


def test_every_repair_the_harness_follows_matches_the_display(tmp_path: Path) -> None:
    table = _table(tmp_path, "classic")
    for column in (1, 2, 1, 2):
        table.act("drop", column, table.replica.to_move)
        table.replica.play(Move.drop(column))
    table.act("open")
    table.act("close")  # the board now asks to rebuild the game, disc by disc
    assert table.look().kind == "drop"
    assert table.repair("slider")
    assert table.tally.light_mismatches == 0
    table.close()


def test_the_strip_is_read_as_a_person_reads_it() -> None:
    def shown(*lights: ColumnLight, turn: Colour | None = None) -> Reading:
        return read_strip(strip_look(Display(columns=lights, turn=turn)))

    off, drop = ColumnLight(), ColumnLight(Lamp.DROP, R)
    assert shown(drop, ColumnLight(Lamp.POP, R), off, turn=R) == Reading("steady", (1, 2), R)
    assert shown(off, ColumnLight(Lamp.CHOSEN, Y), off, turn=Y) == Reading("drop", (2,), Y)
    assert shown(ColumnLight(Lamp.ERROR, Y), off, off) == Reading("pop", (1,))
    assert shown(*[ColumnLight(Lamp.ERROR)] * 3) == Reading("slider", (1, 2, 3))
    assert shown(ColumnLight(Lamp.WINNING, R), off, off, turn=R) == Reading("steady", (1,), R)
    # a fault shown over play is not an instruction
    assert shown(drop, ColumnLight(Lamp.ERROR), turn=R).kind == "unclear"


@pytest.mark.parametrize(
    ("lamp", "kind"),
    [(Lamp.COMPUTER_DROP, "drop"), (Lamp.COMPUTER_POP, "pop"), (Lamp.CHOSEN, "drop")],
)
def test_a_move_chosen_away_from_the_grid_is_read_by_its_blink(
    lamp: Lamp, kind: str, tmp_path: Path
) -> None:
    """On plain LEDs the computer's or a friend's move is one column blinking
    beside its turn light: slowly to drop (as a repair drop), fast to pop."""
    table = _table(tmp_path)
    display = Display(
        columns=tuple(ColumnLight(lamp, Y) if c == 3 else ColumnLight() for c in range(1, 8)),
        turn=Y,
    )
    table.sim.backend.show(display)
    table.sim.advance(LOOK)
    lights = table.sim.lights
    assert read_lights(lights.shown(), lights.fast_blinking()) == Reading(kind, (3,), Y)
    assert expected_reading(display) == Reading(kind, (3,), Y)
    table.close()


def test_a_sensor_board_table_survives_every_serial_fault(tmp_path: Path) -> None:
    tally = Tally()
    table = SoakTable(
        TableSetup("popout", link="serial", faults=()), tmp_path / "state", random.Random(3), tally
    )
    kinds = ("corrupt-bytes", "forged-heartbeats", "board-reset", "unplug")
    for kind in kinds:
        table.legal_move(table.look())
        table.serial_fault(kind)
    table.close()
    for kind in kinds:
        assert tally.injected[kind] == tally.detected[kind] == tally.repaired[kind] == 1, (
            tally.table()
        )
    assert tally.moves == 8 and tally.clean, tally.table()


def test_the_cap_reached_just_after_an_abandon_expects_no_slider_mistake(tmp_path: Path) -> None:
    """Found by the seed sweep (issue 14, seed 11): when the last turn before
    the action cap abandoned the game, the cap met a new game with no move,
    where opening the slider is no mistake; the harness counted it as one
    the referee missed."""
    table = _table(tmp_path, "classic")
    table.finish()  # the cap, on a game with no move yet
    assert table.tally.clean and table.tally.problems == [], table.tally.problems
    table.close()


# -- the checks can fail ----------------------------------------------------------------


def test_a_planted_divergence_is_caught(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.sim.daemon.referee.grid[2].append(Y)  # the referee believes a disc nobody dropped
    with pytest.raises(Diverged):
        table.check("planted")
    assert table.tally.divergences == 1
    table.close()


def test_a_move_the_referee_did_not_accept_is_caught(tmp_path: Path) -> None:
    table = _table(tmp_path)
    assert table.wires is not None
    table.wires.inner.cut.update(f"entry {c}" for c in range(1, 8))  # no drop is ever seen
    with pytest.raises(Diverged):
        table.legal_move(Reading("steady", (4,), R))  # popout: Red drops somewhere
    assert table.tally.divergences == 1
    table.close()


def test_a_disc_of_unknown_colour_matches_any_disc_but_not_a_missing_one() -> None:
    assert believed([[R, None], []], [[R, Y], []])
    assert believed([[R, None], []], [[R, R], []])
    assert not believed([[R, None], []], [[R], []])  # the unknown disc is not there
    assert not believed([[Y, None], []], [[R, Y], []])  # a known colour is wrong
    assert not believed([[R], [None]], [[R], []])


def test_grids_one_action_apart() -> None:
    assert _one_action_apart([[R, Y], []], [[R], []])
    assert _one_action_apart([[Y], []], [[R, Y], []])
    assert not _one_action_apart([[R, Y], [R]], [[R], []])
    assert not _one_action_apart([[Y, Y]], [[R]])


def test_scripts_are_legal_games() -> None:
    lines, moves = random_script("five+popout", random.Random(3))
    assert len(lines) == len(moves) >= 1
    assert all(line.split()[0] in ("drop", "pop") for line in lines)
    assert all(2 <= m.column <= 8 for m in moves)  # 5-in-a-Row: edge strips never played


def test_edge_dropper_loses_only_falling_edges_it_was_armed_for() -> None:
    from hardware.sim.gpio import MockWires

    clock = FakeClock()
    pins = PinMap.simulated(7)
    factory = clocked_mock_factory(clock, pins.board_revision)
    wires = EdgeDropper(MockWires(pins, factory))
    pin = factory.pin(pins.entry[1])
    wires.arm(Beam.ENTRY, 2)
    wires.beam(Beam.ENTRY, 2, True)
    assert wires.armed
    wires.beam(Beam.ENTRY, 2, False)
    assert not wires.armed and wires.dropped == 1
    assert [s for _, s in pin.history][-2:] == [0.0, 1.0]  # the level still changed


# -- faults the soak found ----------------------------------------------------------------


def test_a_missed_falling_edge_does_not_lose_the_next_disc() -> None:
    """Found by the soak (issue 6): after one missed falling edge, gpiozero's
    device still believes the beam blocked (``EventsMixin._last_active``), so
    it swallows the next disc's rising edge; the level re-read repairs only
    popref's debouncer. The next disc in that beam is lost."""
    clock = FakeClock()
    pins = PinMap.simulated(7)
    factory = clocked_mock_factory(clock, pins.board_revision)
    inputs = GpioInputs(pins, factory, clock)
    inputs.open(lambda: None)
    pin = factory.pin(pins.entry[2])  # entry beams are active low
    pin.drive_low()
    clock.set(0.04)
    pin._change_state(True)  # the beam clears; the pin reports no edge
    events = []
    for t in (1.0, 2.0):
        clock.set(t)
        events += inputs.poll(t)
    assert events == [DiscEntered(3, at=0.0)]  # the re-read recovered the first disc
    clock.set(5.0)
    pin.drive_low()
    clock.set(5.04)
    pin.drive_high()
    clock.set(5.1)
    assert inputs.poll(5.1) == [DiscEntered(3, at=5.0)]
    inputs.close()


@pytest.mark.parametrize("second", [R, Y])
def test_two_discs_in_one_column_without_colour_sensing_are_repaired(
    second: Colour, tmp_path: Path
) -> None:
    """Issue 14 on the whole daemon: Red drops into column 3, and 60 ms later
    a second disc of either colour follows it. The referee cannot know that
    disc's colour, so the board has the column emptied and rebuilt; the grid
    then matches the game whatever the second disc was."""
    table = _table(tmp_path, "classic")
    for column in (3, 5, 3):
        table.act("drop", column, table.replica.to_move)
        table.replica.play(Move.drop(column))
    now = table.sim.clock()
    first = table.replica.to_move
    assert first is not None
    table.sim.grid.drop(3, first, at=now)
    table.sim.grid.drop(3, second, at=now + 0.06)
    assert table._one(table.sim.advance(1.5), "two-discs", [Move.drop(3)])
    assert table.referee.grid[2][-1] is None
    assert table.repair("two-discs")
    assert table.referee.in_step()
    assert table.tally.clean, table.tally.problems
    table.close()


# -- kill -9 -------------------------------------------------------------------------


def test_a_kill_mid_game_resumes_the_same_game(tmp_path: Path) -> None:
    tally = Tally()
    kill_and_resume(
        KillPlan("classic", kill_after=4, tear=True, seed=9, faults=()),
        tmp_path,
        random.Random(9),
        tally,
    )
    assert tally.injected["kill-9"] == 1
    assert tally.detected["kill-9"] == 1, tally.problems
    assert tally.clean, tally.problems


# -- the bounded soak --------------------------------------------------------------------


def _fresh_seed() -> int:
    """The seed tests/conftest.py drew from the code under test, or the one
    given in ``POPREF_SOAK_SEED`` (to repeat a failure, or to explore)."""
    text = os.environ.get(SOAK_SEED, "")
    try:
        return int(text)
    except ValueError:
        raise pytest.UsageError(
            f"POPREF_SOAK_SEED={text!r} is not a whole number; unset it or give a seed like 4711"
        ) from None


FRESH_SEED = _fresh_seed()


def test_the_soak_seed_is_the_codes_own(tmp_path: Path) -> None:
    for folder in SEEDED_BY:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.py").write_text("x = 1\n")
    seed = code_seed(tmp_path)
    assert code_seed(tmp_path) == seed  # the same tree, the same soak
    (tmp_path / "bench" / "notes.txt").write_text("not code")
    assert code_seed(tmp_path) == seed
    (tmp_path / "engine" / "a.py").write_text("x = 2\n")
    assert code_seed(tmp_path) != seed  # a change explores another


@pytest.mark.slow
@pytest.mark.parametrize("seed", [FRESH_SEED], ids=[f"seed-{FRESH_SEED}"])
def test_bounded_soak_on_a_fresh_seed(
    seed: int, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """A new seed with every change of the code, the same for the same code
    (printed at the end of a run that ran it): issue 14 was a divergence
    that seed 11 never met."""
    record_property(SOAK_SEED, seed)  # tests/conftest.py prints it at the end
    tally = run_soak(SoakPlan(games=1, seed=seed, kills=1), tmp_path)
    report = f"POPREF_SOAK_SEED={seed}\n{tally.table()}"
    assert set(tally.games) == set(RULES_NAMES), report
    assert tally.injected["kill-9"] == 1, report
    assert tally.injected == tally.detected == tally.repaired, report
    assert tally.clean, report


@pytest.mark.slow  # half the suite's time: bash tests/run.sh -m "not slow" leaves it out
def test_bounded_soak_over_every_preset(tmp_path: Path) -> None:
    tally = run_soak(SoakPlan(games=2, seed=11, kills=3), tmp_path)
    report = tally.table()
    assert set(tally.games) == set(RULES_NAMES), report
    assert (
        sum(
            tally.injected[k]
            for k in (
                "wrong-column",
                "two-discs",
                "pop-opponent",
                "slider",
                "wrong-colour",
                "out-of-turn",
            )
        )
        >= 30
    )
    assert tally.injected["stuck-beam"] and tally.injected["glitch"], report
    assert tally.injected["missed-edge"] and tally.injected["chatter"], report
    assert tally.injected["kill-9"] == 3, report
    assert tally.links["serial"] >= 3 and tally.links["gpio"] >= 6, report
    for kind in ("corrupt-bytes", "board-reset", "unplug"):
        assert tally.injected[kind], report
    assert tally.divergences == 0, report
    assert tally.crashes == 0, report
    assert tally.undetected == 0 and tally.false_alarms == 0, report
    assert tally.injected == tally.detected, report
    assert tally.light_mismatches == 0, report
    assert tally.missing_archives == 0, report
    assert sum(tally.finished.values()) >= len(RULES_NAMES), report


# -- a friend on the broker (docs/soak.md) ---------------------------------------------------


@pytest.fixture
def friend(mosquitto: Mosquitto) -> Iterator[Friend]:
    """A friend who plays Yellow through a real Mosquitto."""
    tally = Tally()
    friend = Friend(mosquitto, Y, tally)
    try:
        yield friend
    finally:
        friend.close()


def _friend_table(tmp_path: Path, friend: Friend, preset: str = "popout") -> SoakTable:
    setup = TableSetup(preset, faults=(), mistake_rate=0.0, friend_fault_rate=0.0)
    return SoakTable(setup, tmp_path / "state", random.Random(5), friend.tally, friend)


def _up_to_the_friend(table: SoakTable) -> None:
    while not friend_moves(table):
        table.legal_move(table.look())


def test_a_table_with_a_friend_survives_every_friend_fault(tmp_path: Path, friend: Friend) -> None:
    table = _friend_table(tmp_path, friend)
    tally = friend.tally
    turns: list[tuple[str, str | None]] = [
        (fault, None)
        for fault in FRIEND_FAULTS
        if fault not in ("friend-reconnect", "broker-restart")
    ]
    turns += [
        (fault, moment) for fault in ("friend-reconnect", "broker-restart") for moment in MOMENTS
    ]
    try:
        for fault, moment in turns:
            _up_to_the_friend(table)
            play_friend_turn(table, fault, moment)
        _up_to_the_friend(table)
        play_friend_turn(table, None, early=True, other=True)
    finally:
        table.close()
    for kind in (*FRIEND_FAULTS, "remote-early", "remote-other"):
        assert tally.injected[kind] == tally.detected[kind] == tally.repaired[kind] >= 1, (
            tally.table()
        )
    assert tally.remote_moves == len(turns) + 1 and tally.lost == 0, tally.table()
    assert tally.refused["illegal"] and tally.refused["stale"] and tally.refused["waiting"]
    assert tally.clean, tally.table()


def test_a_friends_view_left_behind_is_caught(tmp_path: Path, friend: Friend) -> None:
    table = _friend_table(tmp_path, friend)
    host = table.sim.daemon.remote
    assert host is not None
    # the board connects once it has invited the friend: its first state first
    assert friend.pump(table.sim, lambda: (friend.state or {}).get("moves") is not None)
    host.connection.close()  # the board stops telling the broker anything
    friend.wait = 1.0
    with pytest.raises(Diverged):
        table.legal_move(table.look())
    assert table.tally.divergences == 1
    assert "the friend's view differs" in table.tally.problems[0]
    assert "moves [] != ['5']" in table.tally.problems[0]
    table.close()


@pytest.mark.parametrize("moment", list(KILLED))
def test_a_kill_while_the_friends_request_is_pending_loses_nothing(
    moment: str, tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """Killed once the friend's move waits, the journal resumes it; killed
    while the request travels, it waits after the restart or is asked again,
    never both."""
    tally = Tally()
    plan = KillPlan("popout", kill_after=3, seed=9, faults=())
    kill_while_asked(plan, mosquitto, tmp_path, random.Random(9), tally, moment)
    kind = KILLED[moment]
    assert tally.injected[kind] == tally.detected[kind] == tally.repaired[kind] == 1, tally.problems
    assert tally.clean, tally.problems


@pytest.mark.slow
@pytest.mark.skipif(MOSQUITTO is None, reason=MISSING)
def test_bounded_soak_with_a_friend_on_the_broker(tmp_path: Path) -> None:
    plan = SoakPlan(
        games=0,
        seed=3,
        presets=("popout", "five+popout"),
        kills=0,
        remote=True,
        remote_games=2,
        remote_kills=1,
    )
    tally = run_soak(plan, tmp_path)
    report = tally.table()
    assert tally.remote_games >= 3 and tally.remote_moves >= 30, report
    assert sum(tally.injected[kind] for kind in KILLED.values()) == 1, report
    assert sum(tally.injected[kind] for kind in FRIEND_FAULTS) >= 5, report
    assert tally.injected == tally.detected == tally.repaired, report
    assert tally.clean, report
