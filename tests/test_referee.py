"""The referee state machine: every transition, without I/O or time."""

from __future__ import annotations

import itertools

import pytest

from controller.referee import repair
from controller.referee.core import Referee, Table
from controller.referee.verdict import Verdict
from controller.referee.view import display
from controller.store.persist import restore, snapshot
from engine import Colour, Move, Phase, game_from_position
from hardware.display import Alert, Lamp
from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    DiscEntered,
    DiscLeft,
    Event,
    SensorCleared,
    SensorFault,
    SliderMoved,
)

R, Y = Colour.RED, Colour.YELLOW
_clock = itertools.count(start=10, step=3)  # players take seconds between moves


def at() -> float:
    return float(next(_clock))


def drop(column: int, colour: Colour | None = None) -> DiscEntered:
    return DiscEntered(column, at(), colour)


def pop(column: int) -> DiscLeft:
    return DiscLeft(column, at())


def feed(referee: Referee, *events: Event) -> list[Verdict]:
    return [referee.handle(e) for e in events]


def play(referee: Referee, notation: str) -> None:
    """Play moves as physical events; each must be accepted."""
    for token in notation.split():
        column = int(token.lstrip("p")) - referee.offset
        event: Event = pop(column) if token.startswith("p") else drop(column)
        verdict = referee.handle(event)
        number = int(token.lstrip("p"))
        expected = Move.pop(number) if token.startswith("p") else Move.drop(number)
        assert verdict.accepted == expected, (token, referee.problem)


def phase(referee: Referee) -> Phase:
    return referee.game.phase


def lamps(referee: Referee) -> list[Lamp]:
    return [light.lamp for light in display(referee).columns]


def test_legal_drops_become_moves_and_light_the_playable_columns() -> None:
    referee = Referee(Table(), "classic")
    verdict = referee.handle(drop(4))
    assert verdict.accepted == Move.drop(4) and verdict.changed
    assert referee.game.to_move is Y
    shown = display(referee)
    assert shown.turn is Y
    assert [c.lamp for c in shown.columns] == [Lamp.DROP] * 7
    assert all(c.colour is Y for c in shown.columns)
    assert shown.status == "Yellow to move, Classic."


def test_a_full_column_is_not_lit() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "1 1 1 1 1 1")
    assert lamps(referee)[0] is Lamp.OFF


def test_pop_out_lights_drop_and_pop_columns() -> None:
    referee = Referee(Table(), "popout")
    play(referee, "4 3")
    lit = lamps(referee)
    assert lit[3] is Lamp.DROP_OR_POP  # Red's own disc at the bottom of column 4
    assert lit[2] is Lamp.DROP  # Yellow's disc: Red may not pop it


def test_a_pop_in_classic_is_caught_and_repaired_by_dropping_it_back() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "4")
    verdict = referee.handle(pop(4))
    assert verdict.mistake == "illegal-pop"
    assert referee.game.moves == (Move.drop(4),)
    assert referee.repair_plan() == [repair.DropStep(4, R)]
    shown = display(referee)
    assert shown.alert is Alert.ERROR and shown.turn is R
    assert shown.columns[3].lamp is Lamp.CHOSEN and shown.columns[3].colour is R
    assert shown.fault is not None and "Drop a Red disc into column 4" in shown.fault
    verdict = referee.handle(drop(4))
    assert verdict.accepted is None and verdict.mistake is None
    assert referee.in_step() and referee.problem is None
    assert "play resumes" in verdict.log[-1]
    assert display(referee).turn is Y


def test_a_drop_in_a_column_the_fill_phase_forbids_must_be_popped_out() -> None:
    referee = Referee(Table(), "pop10")
    play(referee, "4 3 5")
    assert lamps(referee)[3] is Lamp.OFF  # only the lowest columns are playable
    verdict = referee.handle(drop(4))
    assert verdict.mistake == "illegal-drop"
    assert referee.problem is not None and "4" in referee.problem
    # the wrong disc sits on Red's: pop both, then put Red's back
    assert referee.repair_plan() == [repair.PopStep(4), repair.PopStep(4), repair.DropStep(4, R)]
    assert lamps(referee)[3] is Lamp.ERROR
    feed(referee, pop(4), pop(4))
    assert not referee.in_step()
    referee.handle(drop(4))
    assert referee.in_step() and referee.game.to_move is Y


def test_the_slider_is_asked_for_when_emptying_is_shorter() -> None:
    referee = Referee(Table(), "pop10")
    play(referee, "4")
    referee.handle(drop(4))  # Yellow on Red's only disc: pop 2 and drop 1, or slider and drop 1
    assert referee.repair_plan() == [repair.SliderStep(), repair.DropStep(4, R)]
    assert lamps(referee) == [Lamp.ERROR] * 7


def test_a_further_mistake_during_repair_replans() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "4")
    referee.handle(pop(4))
    referee.handle(drop(2))  # not what the board asked for: colour unknown
    assert referee.grid[1] == [None]
    assert referee.repair_plan() == [repair.PopStep(2), repair.DropStep(4, R)]


def test_two_discs_at_once_flags_the_second() -> None:
    referee = Referee(Table(simultaneous=0.5), "classic")
    first = referee.handle(DiscEntered(3, 100.0))
    second = referee.handle(DiscEntered(5, 100.2))
    assert first.accepted == Move.drop(3)
    assert second.mistake == "two-discs" and second.accepted is None
    assert referee.repair_plan() == [repair.PopStep(5)]


def test_two_discs_at_once_in_one_column_without_colour_sensing_empty_that_column() -> None:
    """Issue 14: nobody was asked for the second disc, so without colour
    sensing its colour is unknown. Guessing it (the next mover's) once kept
    it in the grid under a repair that was right only if the guess was; a
    disc of unknown colour on top of a column can leave only by popping
    the whole column, which is the shortest repair the sensors can prove."""
    referee = Referee(Table(simultaneous=0.5), "classic")
    play(referee, "1 2 3 4 5 6 7 1 2 3 4 5 6 7")  # two full rows: the slider costs more
    assert referee.grid[3] == [Y, R]
    now = at()
    first = referee.handle(DiscEntered(4, now))
    second = referee.handle(DiscEntered(4, now + 0.2))
    assert first.accepted == Move.drop(4)
    assert second.mistake == "two-discs" and second.accepted is None
    assert referee.grid[3] == [Y, R, R, None]
    assert referee.repair_plan() == [
        *[repair.PopStep(4)] * 4,
        repair.DropStep(4, Y),
        repair.DropStep(4, R),
        repair.DropStep(4, R),
    ]
    for step in referee.repair_plan():
        event = pop(4) if isinstance(step, repair.PopStep) else drop(4)
        assert referee.handle(event).mistake is None
    assert referee.in_step() and referee.problem is None
    assert referee.game.to_move is Y


def test_two_discs_at_once_with_colour_sensing_keep_their_sensed_colours() -> None:
    referee = Referee(Table(simultaneous=0.5, colour_sensing=True), "classic")
    verdicts = feed(referee, DiscEntered(4, 100.0, R), DiscEntered(4, 100.2, R))
    assert verdicts[1].mistake == "two-discs"
    assert referee.grid[3] == [R, R]
    assert referee.repair_plan() == [repair.PopStep(4)]  # the sensed colours prove the rest


def test_a_wrong_colour_is_caught_where_colours_are_sensed() -> None:
    referee = Referee(Table(colour_sensing=True), "classic")
    verdict = referee.handle(drop(2, Y))
    assert verdict.mistake == "wrong-colour"
    assert referee.problem == "Yellow's disc went into column 2, but it is Red's turn."
    assert referee.grid[1] == [Y]
    referee.handle(pop(2))
    assert referee.in_step()
    assert referee.handle(drop(2, R)).accepted == Move.drop(2)


def test_popping_the_opponents_disc_in_pop_out() -> None:
    referee = Referee(Table(), "popout")
    play(referee, "4 3")
    verdict = referee.handle(pop(3))
    assert verdict.mistake == "illegal-pop"
    assert referee.problem is not None and "Yellow" in referee.problem
    assert referee.repair_plan() == [repair.DropStep(3, Y)]


# A 4 x 4 fill with no line anywhere: columns 1 and 3 read R R Y Y from the
# bottom, columns 2 and 4 read Y Y R R.
NO_LINE_FILL = "1 2 3 4 1 2 3 4 2 1 4 3 2 1 4 3"


def test_pop_10_return_phase_with_a_choice_says_it_is_one_of_the_columns() -> None:
    """A family read "Red: drop the popped disc back into column 1, 3." as
    one column's name; docs/rules.md's own example: p5 scores nothing."""
    referee = Referee(Table(), "pop10")
    play(referee, " ".join(["1 2 3 4 5 6 7"] * 6) + " p1 p3 p5")
    assert phase(referee) is Phase.RETURN
    said = "Red: drop the popped disc back into one of these columns: 1, 3."
    assert display(referee).status == said


def test_pop_10_return_phase_lights_where_the_disc_may_go() -> None:
    referee = Referee(Table(columns=4, rows=4), "pop10")
    play(referee, NO_LINE_FILL)
    assert phase(referee) is Phase.POP and referee.game.to_move is R
    assert lamps(referee) == [Lamp.POP, Lamp.OFF, Lamp.POP, Lamp.OFF]
    play(referee, "p1")
    assert phase(referee) is Phase.RETURN
    # the grid was full, so only the column it came from has room
    assert lamps(referee) == [Lamp.DROP, Lamp.OFF, Lamp.OFF, Lamp.OFF]
    assert display(referee).status == "Red: drop the popped disc back into column 1."
    verdict = referee.handle(drop(2))
    assert verdict.mistake is None and verdict.accepted is None  # column 2 is full: ignored
    play(referee, "1")
    assert referee.game.to_move is Y


def test_scores_are_shown_in_pop_10_only() -> None:
    assert display(Referee(Table(), "pop10")).scores == (0, 0)
    assert display(Referee(Table(), "classic")).scores is None


def test_slider_mid_game_guides_a_rebuild() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "4 4 3")
    verdict = referee.handle(SliderMoved(True, at()))
    assert verdict.mistake == "slider"
    shown = display(referee)
    assert shown.fault is not None and "close it" in shown.fault
    feed(referee, drop(4), pop(4))  # discs fall through an open slider
    assert referee.grid == [[] for _ in range(7)]
    referee.handle(SliderMoved(False, at()))
    assert referee.repair_plan() == [
        repair.DropStep(3, R),
        repair.DropStep(4, R),
        repair.DropStep(4, Y),
    ]
    for column in (3, 4, 4):
        referee.handle(drop(column))
    assert referee.in_step() and not referee.rebuilding
    assert referee.game.to_move is Y


def test_one_hold_abandons_a_game_the_slider_emptied() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "4 4")
    feed(referee, SliderMoved(True, at()), SliderMoved(False, at()))
    verdict = referee.handle(ButtonHeld(at()))
    assert verdict.new_game and verdict.finished is not None
    assert referee.game.moves == () and referee.in_step()


def test_slider_after_a_finished_game_starts_the_next() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "1 2 1 2 1 2")
    verdict = referee.handle(drop(1))
    assert verdict.finished is not None and referee.game.result is R
    shown = display(referee)
    assert shown.alert is Alert.WIN and shown.turn is R
    assert shown.winning == frozenset({(1, 1), (1, 2), (1, 3), (1, 4)})
    assert shown.columns[0].lamp is Lamp.WINNING
    verdict = referee.handle(SliderMoved(True, at()))
    assert verdict.new_game and referee.game.moves == ()
    referee.handle(SliderMoved(False, at()))
    assert referee.in_step() and referee.game.to_move is R


def test_discs_after_the_end_must_be_emptied_before_a_new_game() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "1 2 1 2 1 2 1")
    referee.handle(drop(5))
    referee.handle(ButtonHeld(at()))
    assert referee.game.moves == ()
    assert referee.repair_plan()[0] == repair.SliderStep()
    assert lamps(referee) == [Lamp.ERROR] * 7


def test_press_cycles_the_rules_and_changes_a_game_not_yet_started() -> None:
    referee = Referee(Table(), "classic")
    verdict = referee.handle(ButtonPressed(at()))
    assert verdict.new_game and referee.game.rules.name == "popout"
    assert lamps(referee)[1] is Lamp.CHOSEN
    assert "Pop Out" in display(referee).status
    referee.handle(drop(4))  # any other event ends the selection
    assert referee.game.moves == (Move.drop(4),)


def test_press_during_a_game_sets_the_next_game_only() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "4")
    verdict = referee.handle(ButtonPressed(at()))
    assert not verdict.new_game
    assert referee.game.rules.name == "classic" and referee.next_rules == "popout"
    assert "Next game: Pop Out" in display(referee).status


def test_hold_starts_a_new_game_only_after_a_second_hold_mid_game() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "4 5")
    first = referee.handle(ButtonHeld(at()))
    assert not first.new_game and referee.abandon_armed
    assert "again" in first.log[0]
    # said where the family reads (the page, the terminal's picture), not only in the log
    assert display(referee).status.startswith("Hold the mode button again to abandon this game.")
    second = referee.handle(ButtonHeld(at()))
    assert second.new_game and second.finished is not None
    assert second.finished.result is None  # abandoned, not finished
    assert referee.repair_plan()  # the discs must go before the new game


def test_an_armed_abandon_is_cancelled_by_play() -> None:
    referee = Referee(Table(), "classic")
    play(referee, "4")
    referee.handle(ButtonHeld(at()))
    play(referee, "5")
    assert "again" not in display(referee).status
    assert not referee.handle(ButtonHeld(at())).new_game


def test_five_in_a_row_maps_physical_columns_past_the_strip() -> None:
    referee = Referee(Table(), "five")
    assert referee.game.rules.width == 9
    verdict = referee.handle(drop(1))
    assert verdict.accepted == Move.drop(2)
    assert referee.grid[0] == [R]
    assert referee.model_grid()[0] == (R,)
    assert display(referee).status == "Yellow to move, 5-in-a-Row."


def test_a_sensor_fault_is_shown_until_it_clears() -> None:
    referee = Referee(Table(), "classic")
    verdict = referee.handle(SensorFault("entry 3", "The entry beam of column 3 is blocked.", at()))
    assert not verdict.changed
    shown = display(referee)
    assert shown.alert is Alert.ERROR and shown.columns[2].lamp is Lamp.ERROR
    assert shown.fault is not None and shown.fault.startswith("The entry beam of column 3")
    referee.handle(SensorCleared("entry 3", at()))
    assert display(referee).fault is None


def test_pop_10_starts_from_a_full_grid_whose_colours_are_known() -> None:
    referee = Referee(Table(columns=4, rows=4), "classic")
    # fill the grid with a drawn Classic game, then choose Pop 10 and hold
    play(referee, NO_LINE_FILL)
    assert referee.game.result == "draw"
    feed(referee, ButtonPressed(at()), ButtonPressed(at()))
    assert referee.next_rules == "pop10"
    verdict = referee.handle(ButtonHeld(at()))
    assert verdict.new_game
    assert referee.game.phase is Phase.POP and referee.game.to_move is R
    assert referee.in_step()


@pytest.mark.parametrize(
    "rules", ["classic", "popout", "pop10", "five", "five+popout", "five+pop10"]
)
def test_snapshot_restores_the_same_state_mid_repair(rules: str) -> None:
    table = Table()
    referee = Referee(table, rules)
    play(referee, "4" if not referee.game.rules.strips else "5")
    referee.handle(drop(6))  # a mistake or a move, either way the state must survive
    restored = restore(table, snapshot(referee))
    assert snapshot(restored) == snapshot(referee)
    assert restored.grid == referee.grid
    assert restored.game.rows() == referee.game.rows()
    assert display(restored) == display(referee)


def test_rules_chosen_from_outside_apply_now_only_before_the_first_move() -> None:
    referee = Referee(Table(), "classic")
    verdict = referee.choose_rules("pop10")
    assert verdict.new_game and referee.game.rules.name == "pop10"
    play(referee, "4")
    verdict = referee.choose_rules("five")
    assert not verdict.new_game and verdict.changed
    assert referee.game.rules.name == "pop10" and referee.next_rules == "five"
    assert not referee.choose_rules("five").changed


def test_a_pass_in_pop_10_is_said_on_the_board() -> None:
    referee = Referee(Table(columns=4, rows=4), "pop10")
    rows = ["...Y", "...Y", "...R", "RRYR"]  # 4 Red and 5 Yellow discs already set aside
    referee.game = game_from_position("pop10", rows, Y, (4, 5))
    referee.grid = [list(referee.game.column(c)) for c in range(1, 5)]
    assert referee.in_step()
    play(referee, "p3 2 p4 1")  # Yellow returns the disc to the top: no Yellow disc is left
    assert referee.game.passed is Y and referee.game.to_move is R
    assert (
        display(referee).status == "Yellow has no disc in the bottom row. Red to pop, Pop 10 4:5."
    )
