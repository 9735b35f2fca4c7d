"""The page's commands in the pure referee, every kind of them: each does its
own transition and no other, and an input the referee does not know is an
error, never a new game (issue 21, item 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.referee.commands import (
    Command,
    HintAsked,
    LevelChosen,
    NewGameAsked,
    OpponentChosen,
    PairingEnded,
    PairingRequested,
    RemoteChosen,
    RemoteInvited,
    RemoteRequested,
    RemoteRevoked,
    RulesChosen,
    TakebackAsked,
    TakebackDeclined,
    TakebackHeard,
)
from controller.referee.core import Referee, Table
from controller.referee.invitation import Invitation, b64url
from controller.referee.state import state_of
from controller.referee.view import display
from engine import RULES_NAMES, Move
from engine.colour import Colour
from hardware.events import DiscEntered

colours = st.sampled_from([None, *Colour])
invitations = st.builds(
    lambda n, colour: Invitation(b64url(bytes([n]) * 16), bytes([n]) * 32, colour, 0.0),
    st.integers(0, 255),
    st.sampled_from(Colour),
)
moves = st.builds(Move.drop, st.integers(1, 7)) | st.builds(Move.pop, st.integers(1, 7))
# one strategy a kind, so a new kind of command fails the test below until it is here
KINDS: dict[type[Any], st.SearchStrategy[Any]] = {
    RulesChosen: st.builds(RulesChosen, st.sampled_from([*RULES_NAMES, "pop11"])),
    NewGameAsked: st.builds(NewGameAsked),
    OpponentChosen: st.builds(OpponentChosen, colours),
    LevelChosen: st.builds(LevelChosen, st.integers(0, 11)),
    HintAsked: st.builds(HintAsked),
    TakebackAsked: st.builds(TakebackAsked),
    TakebackDeclined: st.builds(TakebackDeclined),
    TakebackHeard: st.builds(
        TakebackHeard, st.integers(1, 3), st.integers(0, 2), st.integers(0, 4), st.booleans()
    ),
    PairingRequested: st.builds(PairingRequested, st.sampled_from([(), (2, 5)])),
    PairingEnded: st.builds(PairingEnded),
    RemoteChosen: st.builds(RemoteChosen, colours),
    RemoteInvited: st.builds(RemoteInvited, invitations),
    RemoteRevoked: st.builds(RemoteRevoked, st.booleans()),
    RemoteRequested: st.builds(RemoteRequested, st.integers(1, 3), st.integers(0, 3), moves),
}


def test_every_kind_of_command_is_drawn() -> None:
    assert set(KINDS) == set(get_args(Command))


def mid_game() -> Referee:
    referee = Referee(Table(), "classic")
    for at, column in enumerate((4, 3, 4)):
        referee.handle(DiscEntered(column, at=float(at)))
    return referee


@given(commands=st.lists(st.one_of(*KINDS.values()), max_size=6))
def test_only_a_new_game_asked_for_ends_a_game_in_progress(commands: list[Command]) -> None:
    referee = mid_game()
    game, played = referee.game, referee.game.moves
    for command in commands:
        verdict = referee.handle(command)
        if isinstance(command, NewGameAsked):
            assert verdict.finished is game and verdict.new_game
            assert referee.game is not game and referee.game_number == 2
            return
        assert verdict.finished is None and not verdict.new_game
        assert referee.game is game
        if isinstance(command, TakebackAsked | TakebackHeard):
            played = referee.game.moves  # the same game, its last move taken back
            if not played:
                return  # every move taken back: a game not begun, which new rules replace
        assert referee.game.moves == played


@dataclass(frozen=True, slots=True)
class Unknown:
    """Neither an event nor a command: what a new kind of input looks like
    to a referee that has not learnt it."""

    at: float = 0.0


def test_an_input_the_referee_does_not_know_is_an_error_and_not_a_new_game() -> None:
    """Controls.command used to take whatever it did not recognise for the
    page's new game; now each kind is named, and mypy checks none is left."""
    referee = mid_game()
    game, played = referee.game, referee.game.moves
    with pytest.raises(AssertionError, match="Unknown"):
        referee.handle(Unknown(at=5.0))  # type: ignore[arg-type]
    assert referee.game is game and referee.game.moves == played


def test_a_game_renewed_before_its_first_move_drops_the_friends_move_for_the_old_one() -> None:
    """A friend's move asked for in 5-in-a-Row (column 8 of its 9) stayed
    waiting when the game became Classic: the board could not draw it
    (IndexError), and the snapshot written then could not be read back, so a
    restart moved the journal aside (found by feeding the referee seeded
    random inputs)."""
    referee = Referee(Table(), "five")
    referee.handle(RemoteInvited(Invitation(b64url(bytes(16)), bytes(32), Colour.RED, 0.0)))
    assert referee.handle(RemoteRequested(1, 0, Move.drop(8))).declined is None
    assert referee.handle(RulesChosen("classic", at=1.0)).new_game
    shown = display(referee)
    assert shown.status == "Waiting for your friend (Red) to choose a move."
    assert state_of(referee, shown)["remote"] is None
    assert referee.handle(RemoteRequested(2, 0, Move.drop(4))).declined is None
