"""The remote player in the pure referee: its requests become the move the
board waits for, shown and refereed exactly as the computer's; what is not
taken and why; the invitation across games, the computer's colour, the
journal."""

from __future__ import annotations

import pytest

from controller.referee.commands import (
    OpponentChosen,
    RemoteChosen,
    RemoteInvited,
    RemoteRequested,
    RemoteRevoked,
)
from controller.referee.core import Referee, Table
from controller.referee.invitation import DAY, Invitation, b64url
from controller.referee.state import state_of
from controller.referee.view import display
from controller.store.eventcodec import decode, encode
from controller.store.persist import restore, snapshot
from engine import Move
from engine.colour import Colour
from hardware.display import Alert, ColumnLight, Lamp
from hardware.events import ButtonHeld, ButtonPressed, DiscEntered, DiscLeft, SliderMoved


def invitation(colour: Colour = Colour.YELLOW, n: int = 0, made_at: float = 100.0) -> Invitation:
    return Invitation(b64url(bytes([n]) * 16), bytes([n]) * 32, colour, made_at)


def invited(colour: Colour = Colour.YELLOW, rules: str = "classic") -> Referee:
    referee = Referee(Table(), rules)
    referee.handle(RemoteInvited(invitation(colour)))
    return referee


def test_a_request_is_lit_in_the_remotes_colour_as_the_computers_move_is() -> None:
    referee = invited()
    referee.handle(DiscEntered(4, at=1.0))
    shown = display(referee)
    assert shown.status == "Waiting for your friend (Yellow) to choose a move."
    assert {light.lamp for light in shown.columns} == {Lamp.OFF} and shown.turn is Colour.YELLOW
    verdict = referee.handle(RemoteRequested(1, 1, Move.drop(5)))
    assert verdict.changed and verdict.declined is None
    assert verdict.log == ("Your friend (Yellow) plays a drop into column 5.",)
    shown = display(referee)
    assert shown.columns[4] == ColumnLight(Lamp.COMPUTER_DROP, Colour.YELLOW)
    assert [light.lamp for light in shown.columns].count(Lamp.OFF) == 6
    assert shown.status == (
        "Your friend's move: drop a Yellow disc into column 5; make it on the grid."
    )
    state = state_of(referee, shown)
    assert (state["remote"], state["computer"], state["remote_colour"]) == ("5", None, "yellow")
    made = referee.handle(DiscEntered(5, at=3.0))
    assert made.accepted == Move.drop(5) and referee.remote.move is None
    assert state_of(referee, display(referee))["remote"] is None


def test_a_wrong_disc_for_the_remote_is_a_mistake_repaired_step_by_step() -> None:
    referee = invited(rules="popout")
    referee.handle(DiscEntered(4, at=1.0))
    early = referee.handle(DiscEntered(3, at=2.0))
    assert early.mistake == "remote-choosing" and early.accepted is None
    assert referee.problem == (
        "The drop into column 3 came before your friend chose a move; wait for it to light up."
    )
    assert display(referee).columns[2].lamp is Lamp.ERROR
    referee.handle(DiscLeft(3, at=3.0))
    referee.handle(RemoteRequested(1, 1, Move.drop(2)))
    other = referee.handle(DiscEntered(6, at=5.0))
    assert other.mistake == "not-remote-move"
    assert referee.problem == "Your friend plays a drop into column 2, not a drop into column 6."
    assert display(referee).alert is Alert.ERROR
    referee.handle(DiscLeft(6, at=7.0))
    assert display(referee).columns[1] == ColumnLight(Lamp.COMPUTER_DROP, Colour.YELLOW)
    assert referee.handle(DiscEntered(2, at=9.0)).accepted == Move.drop(2)


@pytest.mark.parametrize(
    ("before", "asked", "code", "reason"),
    [
        (["4"], RemoteRequested(1, 0, Move.drop(3)), "stale", "moved on since that position"),
        ([], RemoteRequested(1, 0, Move.drop(3)), "turn", "It is Red's turn, not yours."),
        (["4"] * 6 + ["1"], RemoteRequested(1, 7, Move.drop(4)), "illegal", "full"),
        (["4"], RemoteRequested(1, 1, Move.pop(4)), "illegal", "pop"),
    ],
)
def test_a_request_not_taken_gets_the_reason(
    before: list[str], asked: RemoteRequested, code: str, reason: str
) -> None:
    referee = invited()
    for number, move in enumerate(before):
        referee.remote.move = Move.drop(int(move)) if number % 2 else None
        referee.handle(DiscEntered(int(move), at=1.0 + 2 * number))
    verdict = referee.handle(asked)
    assert verdict.declined is not None and verdict.declined.code == code
    assert reason in verdict.declined.reason
    assert referee.remote.last_seq == asked.seq and referee.remote.move is None


def test_a_second_request_while_one_waits_is_refused_and_a_replay_does_nothing() -> None:
    referee = invited()
    referee.handle(DiscEntered(4, at=1.0))
    referee.handle(RemoteRequested(3, 1, Move.drop(4)))
    second = referee.handle(RemoteRequested(4, 1, Move.drop(5)))
    assert second.declined is not None and second.declined.code == "waiting"
    assert referee.remote.move == Move.drop(4)
    replay = referee.handle(RemoteRequested(2, 1, Move.drop(6)))
    assert not replay.changed and replay.declined is None and referee.remote.last_seq == 4


def test_after_the_game_requests_are_refused_and_the_next_game_is_on_the_same_link() -> None:
    referee = invited(Colour.RED)
    played = referee.remote.invitation
    for n, column in enumerate((1, 2, 1, 2, 1, 2)):
        if n % 2 == 0:
            referee.handle(RemoteRequested(n + 1, n, Move.drop(column)))
        referee.handle(DiscEntered(column, at=1.0 + 2 * n))
    referee.handle(RemoteRequested(10, 6, Move.drop(1)))
    referee.handle(DiscEntered(1, at=20.0))
    assert referee.game.result is Colour.RED
    over = referee.handle(RemoteRequested(11, 7, Move.drop(3)))
    assert over.declined is not None and over.declined.code == "over"
    referee.handle(SliderMoved(True, at=30.0))
    assert referee.remote.invitation is None and referee.remote.colour() is None
    # nobody asked for one in each game, but the friend played this one through:
    # the daemon invites them again, on the same link (docs/remote.md)
    assert referee.remote.sequel == played and referee.remote.wanted() is Colour.RED


def test_a_new_game_in_the_middle_of_one_revokes_the_invitation() -> None:
    referee = invited(Colour.RED)
    referee.handle(RemoteRequested(1, 0, Move.drop(1)))
    referee.handle(DiscEntered(1, at=1.0))
    referee.handle(ButtonPressed(at=2.0))
    referee.handle(ButtonHeld(at=4.0))
    referee.handle(ButtonHeld(at=6.0))  # held again: the game is abandoned
    assert not referee.game.moves and referee.game_number == 2
    assert referee.remote.invitation is None
    assert referee.remote.sequel is None and not referee.remote.due


def finish(referee: Referee) -> None:
    """Red wins in column 1 (two people at the grid)."""
    for n, column in enumerate((1, 2, 1, 2, 1, 2, 1)):
        referee.handle(DiscEntered(column, at=1.0 + 2 * n))
    assert referee.game.is_over()


def test_an_invitation_made_between_games_is_for_the_next_one() -> None:
    referee = Referee(Table(), "classic")
    finish(referee)
    referee.handle(RemoteInvited(invitation(n=1)))
    assert referee.remote.for_next
    referee.handle(SliderMoved(True, at=30.0))  # the next game begins: the friend plays it
    assert referee.remote.invitation == invitation(n=1) and not referee.remote.for_next
    referee.handle(SliderMoved(False, at=31.0))
    referee.handle(RemoteChosen(Colour.YELLOW))  # and each game after it, a link each
    referee.handle(ButtonPressed(at=40.0))
    referee.handle(ButtonHeld(at=42.0))  # no move yet: a hold starts the next game at once
    assert referee.remote.invitation is None and referee.remote.due


def test_an_expired_invitation_leaves_new_games_inviting() -> None:
    referee = Referee(Table(), "classic")
    referee.handle(RemoteChosen(Colour.YELLOW))
    assert referee.remote.due
    referee.handle(RemoteInvited(invitation(n=1)))
    verdict = referee.handle(RemoteRevoked(expired=True))
    assert verdict.log == ("The invitation to play Yellow expired unused after a day.",)
    assert referee.remote.invitation is None and referee.remote.next_colour is Colour.YELLOW


def test_the_owner_revokes_an_invitation_and_new_games_invite_nobody() -> None:
    referee = Referee(Table(), "classic")
    referee.handle(RemoteChosen(Colour.RED))
    referee.handle(RemoteInvited(invitation(Colour.RED)))
    verdict = referee.handle(RemoteRevoked())
    assert verdict.log == ("The invitation to play Red was revoked; its link reaches nothing now.",)
    assert referee.remote.next_colour is None and referee.remote.invitation is None
    assert referee.handle(DiscEntered(4, at=1.0)).accepted == Move.drop(4)  # a person plays Red


def test_a_friend_takes_the_computers_colour_and_the_computer_cannot_take_it_back() -> None:
    referee = Referee(Table(computer_level=3), "classic", computer=Colour.YELLOW)
    assert referee.computer is not None
    verdict = referee.handle(RemoteInvited(invitation(Colour.YELLOW)))
    assert "The computer no longer plays Yellow." in verdict.log
    assert referee.computer is None and referee.next_computer is None
    refused = referee.handle(OpponentChosen(Colour.YELLOW))
    assert refused.log == ("Ignored: a friend plays Yellow; revoke the invitation first.",)
    assert referee.next_computer is None
    # the double press between games skips the friend's colour
    referee.handle(ButtonPressed(at=1.0))
    referee.handle(ButtonPressed(at=1.2))
    assert referee.next_computer is Colour.RED


def test_no_hint_on_the_remotes_turn() -> None:
    referee = invited()
    referee.handle(DiscEntered(4, at=1.0))
    assert referee.no_hint() == "No hint: it is your friend's move."


def test_the_journal_keeps_the_invitation_the_last_request_and_the_pending_move() -> None:
    referee = invited()
    referee.handle(DiscEntered(4, at=1.0))
    referee.handle(RemoteRequested(7, 1, Move.drop(3)))
    again = restore(Table(), snapshot(referee))
    assert again.remote.invitation == referee.remote.invitation
    assert (again.remote.last_seq, again.remote.move) == (7, Move.drop(3))
    assert again.remote.expires() is None  # used: it no longer expires
    shown = display(again)
    assert shown.columns[2] == ColumnLight(Lamp.COMPUTER_DROP, Colour.YELLOW)


def test_an_unused_invitation_expires_a_day_after_it_was_made() -> None:
    referee = invited()
    assert referee.remote.expires() == 100.0 + DAY


@pytest.mark.parametrize(
    "command",
    [
        RemoteChosen(Colour.RED, at=1.0),
        RemoteChosen(None, at=1.0),
        RemoteInvited(invitation(Colour.RED, 9, 1.5), at=2.0),
        RemoteRevoked(expired=True, at=3.0),
        RemoteRequested(2**53 - 1, 12, Move.pop(3), at=4.0),
    ],
)
def test_the_remote_inputs_are_journalled_as_they_were(command: object) -> None:
    assert decode(encode(command)) == command  # type: ignore[arg-type]


def test_a_damaged_remote_record_is_damage_named_by_its_field() -> None:
    from controller.store.eventcodec import CodecError

    record = encode(RemoteInvited(invitation()))
    with pytest.raises(CodecError, match="invitation is malformed"):
        decode({**record, "key": "short"})
    with pytest.raises(CodecError, match='"seq"'):
        decode({"e": "request", "seq": 0, "ply": 0, "move": "4", "at": 1.0})
    with pytest.raises(CodecError, match='"move"'):
        decode({"e": "request", "seq": 1, "ply": 0, "move": "x9", "at": 1.0})


def test_a_request_arriving_while_the_mode_button_chooses_rules_ends_the_choosing() -> None:
    referee = invited()
    referee.handle(DiscEntered(4, at=1.0))
    referee.handle(ButtonPressed(at=2.0))  # the next game's rules, while the friend thinks
    assert display(referee).status == "Next game: Pop Out. Press again for other rules."
    referee.handle(RemoteRequested(1, 1, Move.drop(5)))
    # the move to make shows at once, not after the next disc
    shown = display(referee)
    assert shown.status == (
        "Your friend's move: drop a Yellow disc into column 5; make it on the grid."
    )
    assert shown.columns[4] == ColumnLight(Lamp.COMPUTER_DROP, Colour.YELLOW)
    assert referee.next_rules == "popout"  # the press's choice stands
