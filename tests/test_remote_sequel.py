"""The next game on the same link (docs/remote.md): which finished games
lead on, what the journal keeps of it, how the daemon makes the next
invitation, and what a client accepts as the next game named by the old
one's last state. The whole way through a broker is in
tests/test_remote_linked.py, tests/test_remote_join_page.py,
tests/test_remote_page.py and tests/test_remote_play.py."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from controller.daemon.assembly import remote_host
from controller.daemon.config import parse_config
from controller.referee.invitation import Invitation, b64url, sequel
from controller.referee.remote_seat import RemoteSeat
from controller.referee.verdict import Draft
from controller.remote.link import Link
from engine.colour import Colour

OLD = Invitation("A" * 22, bytes(range(32)), Colour.YELLOW, made_at=0.0)


def seat_after(
    finished: bool, used: bool, next_colour: Colour | None = None, for_next: bool = False
) -> RemoteSeat:
    """The seat once a new game began after a game with ``OLD`` in it."""
    seat = RemoteSeat()
    seat.next_colour = next_colour
    seat.invited(OLD, between_games=for_next, out=Draft())
    seat.used = used
    seat.next_game(finished)
    return seat


@pytest.mark.parametrize("next_colour", [None, Colour.YELLOW])
def test_a_game_finished_through_the_link_leads_on_for_the_same_colour(
    next_colour: Colour | None,
) -> None:
    seat = seat_after(finished=True, used=True, next_colour=next_colour)
    assert seat.sequel == OLD and seat.invitation is None
    assert seat.wanted() is Colour.YELLOW and seat.holds(Colour.YELLOW)


@pytest.mark.parametrize(
    ("finished", "used", "next_colour"),
    [
        (False, True, Colour.YELLOW),  # abandoned midway (or a joining grid's game)
        (True, False, Colour.YELLOW),  # the link was never used
        (True, True, Colour.RED),  # new games invite the other colour
    ],
)
def test_any_other_new_game_gets_a_link_of_its_own(
    finished: bool, used: bool, next_colour: Colour
) -> None:
    seat = seat_after(finished, used, next_colour)
    assert seat.sequel is None and seat.wanted() is next_colour


def test_nothing_is_wanted_after_a_game_abandoned_without_plays() -> None:
    seat = seat_after(finished=False, used=True)
    assert seat.sequel is None and seat.wanted() is None and not seat.holds(Colour.YELLOW)


def test_an_invitation_made_for_the_next_game_stays_and_leads_nowhere_else() -> None:
    seat = seat_after(finished=True, used=True, for_next=True)
    assert seat.invitation == OLD and seat.sequel is None


@pytest.mark.parametrize("expired", [False, True])
def test_a_revoke_or_an_expiry_ends_the_chain(expired: bool) -> None:
    seat = seat_after(finished=True, used=True, next_colour=Colour.YELLOW)
    seat.revoked(expired, Draft())
    assert seat.sequel is None


def test_inviting_nobody_any_more_ends_the_chain() -> None:
    seat = seat_after(finished=True, used=True, next_colour=Colour.YELLOW)
    seat.choose(None, Draft())
    assert seat.sequel is None and seat.wanted() is None


def test_the_journal_keeps_the_sequel_and_reads_journals_without_one() -> None:
    seat = seat_after(finished=True, used=True)
    again = RemoteSeat()
    again.restore(seat.data())
    assert again.sequel == OLD and again.wanted() is Colour.YELLOW
    older = {key: value for key, value in seat.data().items() if key != "sequel"}
    again.restore(older)
    assert again.sequel is None


def test_the_daemon_makes_the_sequel_only_for_its_own_colour() -> None:
    config = parse_config({"remote": {"broker": "mqtt://127.0.0.1:1"}}, "t.toml")
    host = remote_host(config, wall=lambda: 5.0)
    assert host is not None
    try:
        after = host.invitation(Colour.YELLOW, after=OLD)
        assert (after.game, after.key) == sequel(OLD.key) and after.made_at == 5.0
        assert after.colour is Colour.YELLOW
        other = host.invitation(Colour.RED, after=OLD)
        assert other.game != after.game and other.key != after.key
    finally:
        host.close()


LINK = Link.of(OLD, "http://pi.local:8080/remote", "classic", broker="mqtt://pi.local:1883")
NAMED = {"game": sequel(OLD.key)[0], "rules": "popout", "repetition": 3, "both_lines": "opponent"}


def test_a_client_takes_the_next_game_its_old_link_names() -> None:
    after = LINK.sequel(NAMED)
    assert after is not None
    assert (after.game, after.key) == sequel(OLD.key)
    assert (after.rules, after.repetition, after.both_lines) == ("popout", 3, "opponent")
    assert (after.page, after.broker, after.colour) == (LINK.page, LINK.broker, LINK.colour)


@pytest.mark.parametrize(
    "change",
    [
        {"game": b64url(bytes(16))},  # another game: not this link's sequel
        {"rules": "chess"},
        {"rules": 4},
        {"repetition": 1},
        {"repetition": True},
        {"repetition": "3"},
        {"both_lines": "nobody"},
    ],
)
def test_a_client_refuses_a_next_game_that_is_not_its_link_s(change: dict[str, Any]) -> None:
    assert LINK.sequel({**NAMED, **change}) is None


@pytest.mark.parametrize("named", [None, "x", [], {}])
def test_a_client_refuses_a_next_game_named_by_no_object(named: Any) -> None:
    assert LINK.sequel(named) is None


def test_a_kept_link_is_a_later_game_of_the_one_given_within_so_many_games() -> None:
    later = LINK
    for _ in range(3):
        found = later.sequel({**NAMED, "game": sequel(later.key)[0]})
        assert found is not None
        later = found
    assert later.follows(LINK) and later.follows(LINK, games=3)
    assert not later.follows(LINK, games=2)
    assert not LINK.follows(later) and not LINK.follows(LINK)
    forged = dataclasses.replace(later, key=bytes(32))  # the game id without its secret
    assert not forged.follows(LINK)


def test_the_log_says_the_friend_plays_again_from_the_same_link() -> None:
    seat = seat_after(finished=True, used=True)
    out = Draft()
    seat.invited(OLD.sequel(made_at=9.0), between_games=False, out=out)
    assert str(out.log[-1]) == (
        "The friend who played Yellow plays it again, from the same link; revoke the "
        "invitation to play without them."
    )
    other = Draft()
    seat.invited(Invitation(b64url(bytes(16)), bytes(32), Colour.YELLOW, 9.0), False, other)
    assert str(other.log[-1]) == "A friend is invited to play Yellow."
