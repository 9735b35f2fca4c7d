"""Rules values: presets, combinations, sizes and option validation."""

from __future__ import annotations

import dataclasses

import pytest

from engine import RULES_NAMES, Rules, RulesError, new_game, parse_size, rules_named


def test_every_preset_name_is_available() -> None:
    assert RULES_NAMES == ("classic", "popout", "pop10", "five", "five+popout", "five+pop10")


@pytest.mark.parametrize(
    ("name", "width", "line", "pops", "pop10", "strips", "title"),
    [
        ("classic", 7, 4, False, False, False, "Classic"),
        ("popout", 7, 4, True, False, False, "Pop Out"),
        ("pop10", 7, 4, False, True, False, "Pop 10"),
        ("five", 9, 5, False, False, True, "5-in-a-Row"),
        ("five+popout", 9, 5, True, False, True, "5-in-a-Row Pop Out"),
        ("five+pop10", 9, 5, False, True, True, "5-in-a-Row Pop 10"),
    ],
)
def test_presets(
    name: str, width: int, line: int, pops: bool, pop10: bool, strips: bool, title: str
) -> None:
    rules = rules_named(name)
    assert (rules.name, rules.width, rules.height, rules.line) == (name, width, 6, line)
    assert (rules.pops, rules.pop10, rules.strips, rules.title) == (pops, pop10, strips, title)
    assert rules.repetition is None and rules.both_lines == "popper" and rules.target == 10


def test_combinations_are_derived_values_not_new_types() -> None:
    combined = rules_named("five+popout")
    assert type(combined) is Rules
    assert combined == dataclasses.replace(rules_named("five"), name="five+popout", pops=True)


def test_size_counts_the_whole_board_with_strips() -> None:
    assert rules_named("five", (11, 7)).playable_columns == tuple(range(2, 11))
    assert rules_named("classic", (12, 10)).playable_columns == tuple(range(1, 13))


def test_name_is_forgiving_about_case_and_spaces() -> None:
    assert rules_named(" Pop10 ") is rules_named("pop10")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rules_named("chess"), "unknown rules 'chess': choose one of classic"),
        (lambda: rules_named("classic", (3, 6)), "must be 4 to 20 columns wide, not 3"),
        (lambda: rules_named("classic", (7, 21)), "must be 4 to 20 rows high, not 21"),
        (lambda: rules_named("five", (5, 6)), "with its two edge strips must be 6 to 22"),
        (lambda: rules_named("classic", (7,)), "a size is (width, height)"),  # type: ignore[arg-type]
        (lambda: Rules(line=2), "a line must be 3 to 7 discs long"),
        (lambda: Rules(pops=True, pop10=True), "cannot be combined"),
        (lambda: Rules(repetition=1), "repetition must be None (off) or a count of 2"),
        (lambda: Rules(both_lines="nobody"), "both_lines must be 'popper' or 'opponent'"),  # type: ignore[arg-type]
        (lambda: Rules(target=0), "target must be at least 1"),
        (lambda: Rules(width=7.5), "width must be a whole number"),  # type: ignore[arg-type]
    ],
)
def test_bad_rules_say_what_is_wrong_in_one_line(call: object, message: str) -> None:
    with pytest.raises(RulesError) as raised:
        call()  # type: ignore[operator]
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_options_change_through_dataclasses_replace_and_are_validated() -> None:
    rules = dataclasses.replace(rules_named("popout"), repetition=3, both_lines="opponent")
    assert new_game(rules).rules.repetition == 3
    with pytest.raises(RulesError):
        dataclasses.replace(rules, width=2)


def test_boards_from_4x4_to_12x10_and_beyond_play() -> None:
    for size in [(4, 4), (12, 10), (20, 20)]:
        game = new_game("classic", size)
        assert len(game.rows()) == size[1] and len(game.legal_moves()) == size[0]


def test_parse_size() -> None:
    assert parse_size("12X10") == (12, 10)
    for bad in ["7", "7x", "x6", "7by6", "-7x6"]:
        with pytest.raises(RulesError, match="write WIDTHxHEIGHT"):
            parse_size(bad)
