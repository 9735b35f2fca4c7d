"""The computer opponent in the pure referee: its seat, its chosen move, the
mistakes around it, and the double press (hints and the opponent switch)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.referee.computer_seat import Seat
from controller.referee.controls import DOUBLE_PRESS
from controller.referee.core import Referee, Table
from controller.referee.view import display
from controller.store.persist import restore, snapshot
from engine import Move
from engine.colour import Colour
from hardware.display import Alert, ColumnLight, Lamp
from hardware.events import ButtonHeld, ButtonPressed, DiscEntered, DiscLeft, SliderMoved


def against(colour: Colour | None, rules: str = "classic", level: int = 3) -> Referee:
    return Referee(Table(computer_level=level, computer_seed=11), rules, colour)


def lamps(referee: Referee) -> list[Lamp]:
    return [light.lamp for light in display(referee).columns]


def test_the_computer_thinks_then_its_move_is_lit_and_made() -> None:
    referee = against(Colour.YELLOW)
    assert referee.needs_computer() is None  # Red, a person, moves first
    assert referee.handle(DiscEntered(4, at=1.0)).accepted == Move.drop(4)
    seat = referee.needs_computer()
    assert seat is not None and seat.colour is Colour.YELLOW and seat.level == 3
    shown = display(referee)
    assert shown.status == "The computer (Yellow) is thinking."
    assert set(lamps(referee)) == {Lamp.OFF} and shown.turn is Colour.YELLOW

    verdict = referee.computer_chose(Move.drop(5))
    assert verdict.changed and verdict.log == ("The computer (Yellow) plays a drop into column 5.",)
    assert referee.needs_computer() is None
    shown = display(referee)
    assert shown.columns[4] == ColumnLight(Lamp.COMPUTER_DROP, Colour.YELLOW)
    assert lamps(referee).count(Lamp.OFF) == 6
    assert shown.status == "The computer's move: drop a Yellow disc into column 5."

    made = referee.handle(DiscEntered(5, at=3.0))
    assert made.accepted == Move.drop(5) and made.mistake is None
    assert referee.computer_move is None and referee.game.to_move is Colour.RED


def test_a_drop_while_the_computer_thinks_is_a_mistake_with_a_repair() -> None:
    referee = against(Colour.YELLOW)
    referee.handle(DiscEntered(4, at=1.0))
    verdict = referee.handle(DiscEntered(3, at=3.0))
    assert verdict.mistake == "computer-thinking" and verdict.accepted is None
    shown = display(referee)
    assert shown.alert is Alert.ERROR
    assert shown.columns[2].lamp is Lamp.ERROR  # pop the stray disc out again
    assert referee.needs_computer() is not None  # the search goes on meanwhile
    referee.handle(DiscLeft(3, at=5.0))
    assert referee.in_step() and display(referee).status == "The computer (Yellow) is thinking."


def test_any_other_move_than_the_computers_is_a_mistake() -> None:
    referee = against(Colour.YELLOW, "popout")
    referee.handle(DiscEntered(4, at=1.0))
    referee.computer_chose(Move.drop(2))
    verdict = referee.handle(DiscEntered(6, at=3.0))
    assert verdict.mistake == "not-computer-move"
    # a drop against a drop: "drop" once, as a native reader says it in every language
    assert referee.problem == "The computer plays a drop into column 2, not into column 6."
    assert display(referee).columns[5].lamp is Lamp.ERROR
    referee.handle(DiscLeft(6, at=5.0))
    # back in step, the computer's move is shown again and still expected
    assert display(referee).columns[1] == ColumnLight(Lamp.COMPUTER_DROP, Colour.YELLOW)
    assert referee.handle(DiscEntered(2, at=7.0)).accepted == Move.drop(2)


def test_the_computer_pops_in_pop_out() -> None:
    referee = against(Colour.YELLOW, "popout")
    referee.handle(DiscEntered(4, at=1.0))
    referee.computer_chose(Move.drop(3))
    referee.handle(DiscEntered(3, at=2.0))
    referee.handle(DiscEntered(1, at=3.0))
    referee.computer_chose(Move.pop(3))
    assert display(referee).columns[2] == ColumnLight(Lamp.COMPUTER_POP, Colour.YELLOW)
    assert display(referee).status == "The computer's move: pop the bottom disc out of column 3."
    wrong = referee.handle(DiscLeft(4, at=4.0))  # Red's disc, not the computer's pop
    assert wrong.mistake == "not-computer-move"
    referee.handle(DiscEntered(4, at=5.0))
    assert referee.in_step()
    assert referee.handle(DiscLeft(3, at=6.0)).accepted == Move.pop(3)


def test_the_computer_chooses_only_on_its_turn_and_only_legal_moves() -> None:
    referee = against(Colour.YELLOW)
    with pytest.raises(ValueError, match="not choosing a move now"):
        referee.computer_chose(Move.drop(4))
    referee.handle(DiscEntered(4, at=1.0))
    with pytest.raises(ValueError, match="not allowed"):
        referee.computer_chose(Move.pop(4))


def test_the_slider_mid_thought_stops_the_thinking_until_the_game_is_rebuilt() -> None:
    referee = against(Colour.YELLOW)
    referee.handle(DiscEntered(4, at=1.0))
    assert referee.needs_computer() is not None
    referee.handle(SliderMoved(True, at=2.0))
    assert referee.needs_computer() is None
    referee.handle(SliderMoved(False, at=3.0))
    assert referee.needs_computer() is None  # the grid is not rebuilt yet
    referee.handle(DiscEntered(4, at=5.0))
    assert referee.in_step() and referee.needs_computer() is not None


def test_each_game_has_its_own_seed_and_a_snapshot_keeps_it() -> None:
    referee = against(Colour.RED, level=7)
    first = referee.computer
    assert first == Seat.for_game(Colour.RED, 7, 11, 1)
    referee.computer_chose(Move.drop(4))
    again = restore(referee.table, snapshot(referee))
    assert (again.computer, again.computer_move, again.next_computer) == (
        first,
        Move.drop(4),
        Colour.RED,
    )
    # another configured level or seed later does not change a game in progress
    later = restore(Table(computer_level=2, computer_seed=99), snapshot(referee))
    assert later.computer == first
    referee.handle(DiscEntered(4, at=1.0))
    referee.handle(ButtonHeld(at=2.0))
    referee.handle(ButtonHeld(at=5.0))  # abandoned: a new game, a new seed
    assert referee.game_number == 2 and referee.computer is not None and first is not None
    assert referee.computer.seed != first.seed


def test_a_double_press_between_games_switches_the_opponent_and_keeps_the_rules() -> None:
    referee = against(None, "popout")
    seen = []
    for at in (1.0, 5.0, 9.0):
        referee.handle(ButtonPressed(at=at))
        verdict = referee.handle(ButtonPressed(at=at + 0.35))
        assert verdict.new_game  # before the first move it is this game's opponent
        seen.append(referee.computer.colour if referee.computer else None)
        assert referee.game.rules.name == referee.next_rules == "popout"
    assert seen == [Colour.YELLOW, Colour.RED, None]
    referee.handle(ButtonPressed(at=20.0))
    referee.handle(ButtonPressed(at=20.3))
    shown = display(referee)
    assert shown.columns[1] == ColumnLight(Lamp.CHOSEN, Colour.YELLOW)
    assert shown.status.startswith("Rules: Pop Out, the computer plays Yellow.")


def test_presses_far_apart_are_two_presses() -> None:
    referee = against(None)
    referee.handle(ButtonPressed(at=1.0))
    referee.handle(ButtonPressed(at=2.0))
    assert referee.next_rules == "pop10" and referee.computer is None


def test_a_double_press_mid_game_asks_for_a_hint_for_a_person_only() -> None:
    referee = against(Colour.YELLOW)
    referee.handle(DiscEntered(4, at=1.0))
    referee.computer_chose(Move.drop(4))
    referee.handle(ButtonPressed(at=2.0))
    verdict = referee.handle(ButtonPressed(at=2.3))
    assert not verdict.hint and "No hint: it is the computer's move." in verdict.log
    referee.handle(DiscEntered(4, at=3.0))
    referee.handle(ButtonPressed(at=4.0))
    verdict = referee.handle(ButtonPressed(at=4.3))
    assert verdict.hint and verdict.log[-1] == "Red asked for a hint."
    assert referee.next_rules == "classic" and not referee.selecting
    assert referee.next_computer is Colour.YELLOW


def test_the_first_press_of_a_double_press_says_nothing() -> None:
    """A double press used to say first what its first press chose ("The
    next game will be Pop Out."), then quietly put the rules back."""
    referee = against(None)
    referee.handle(DiscEntered(4, at=1.0))
    first = referee.handle(ButtonPressed(at=2.0))
    second = referee.handle(ButtonPressed(at=2.3))
    assert first.log == () and second.log == ("Yellow asked for a hint.",)
    assert referee.controls.due(10.0) == [] and referee.next_rules == "classic"


def test_a_single_press_is_said_when_no_second_press_can_follow() -> None:
    referee = against(None)
    referee.handle(DiscEntered(4, at=1.0))
    assert referee.handle(ButtonPressed(at=2.0)).log == ()
    assert referee.controls.deadline() == 2.0 + DOUBLE_PRESS
    assert referee.controls.due(2.0 + DOUBLE_PRESS - 0.01) == []
    assert referee.controls.due(2.0 + DOUBLE_PRESS) == ["The next game will be Pop Out."]
    # or by the next event, whatever comes first
    referee.handle(ButtonPressed(at=5.0))
    verdict = referee.handle(DiscEntered(3, at=5.1))
    assert verdict.log[0] == "The next game will be Pop 10."


RULES_SENTENCES = ("The next game will be ", "Rules changed to ")


@given(
    begun=st.booleans(),
    gaps=st.lists(st.sampled_from([0.1, 0.3, DOUBLE_PRESS - 0.01, DOUBLE_PRESS, 1.0]), max_size=8),
)
def test_presses_say_only_the_rules_they_leave_chosen(begun: bool, gaps: list[float]) -> None:
    """Whatever the rhythm of the presses: each press that is not half of a
    double press says the rules it chose, and nothing else mentions rules."""
    referee = against(None)
    if begun:
        referee.handle(DiscEntered(4, at=0.5))
    said: list[str] = []
    singles = 0
    last: float | None = None  # a press that may begin a double press
    at = 1.0
    for gap in [0.0, *gaps]:
        at += gap
        said += referee.handle(ButtonPressed(at=at)).log
        if last is not None and at - last < DOUBLE_PRESS:
            singles -= 1  # the first press of the pair was not a single one
            last = None
        else:
            singles += 1
            last = at
    said += referee.controls.due(at + DOUBLE_PRESS)
    assert sum(s.startswith(RULES_SENTENCES) for s in said) == singles


def test_choosing_the_opponent_from_the_command_line() -> None:
    referee = against(None)
    verdict = referee.choose_computer(Colour.RED)
    assert verdict.new_game and referee.computer is not None
    assert referee.needs_computer() is not None  # Red moves first
    assert not referee.choose_computer(Colour.RED).changed
    referee.computer_chose(Move.drop(4))
    referee.handle(DiscEntered(4, at=1.0))
    verdict = referee.choose_computer(None)
    assert verdict.log == ("The next game: two players.",) and referee.computer is not None


def test_the_computers_move_ends_the_mode_buttons_choosing_of_rules() -> None:
    referee = against(Colour.YELLOW)
    referee.handle(DiscEntered(4, at=1.0))
    referee.handle(ButtonPressed(at=2.0))  # the next game's rules, while the computer thinks
    assert display(referee).status.startswith("Next game: Pop Out, the computer plays Yellow.")
    referee.computer_chose(Move.drop(5))
    # the move to make shows at once, not after the next disc
    shown = display(referee)
    assert shown.status == "The computer's move: drop a Yellow disc into column 5."
    assert shown.columns[4] == ColumnLight(Lamp.COMPUTER_DROP, Colour.YELLOW)
    assert referee.next_rules == "popout"  # the press's choice stands
