"""The takeback both sides of a remote game agree to, in the pure referee
(issue 23): two referees, each the other's remote seat, their words handed
across by hand, in any order, duplicated and replayed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.referee.commands import (
    RemoteInvited,
    TakebackAsked,
    TakebackDeclined,
    TakebackHeard,
)
from controller.referee.core import Referee, Table
from controller.referee.invitation import Invitation, b64url
from controller.referee.state import state_of
from controller.referee.view import display
from controller.store.eventcodec import decode, encode
from controller.store.persist import restore, snapshot
from engine import parse_move
from engine.colour import Colour
from hardware.events import DiscEntered, DiscLeft

R, Y = Colour.RED, Colour.YELLOW
GAME = Invitation(b64url(bytes(16)), bytes(32), Y, 0.0)


def seated(friend: Colour, moves: str = "4 3 4") -> Referee:
    """A referee whose ``friend`` colour is a remote seat, after ``moves``
    (made on its grid as the lights ask, the friend's as its requests)."""
    referee = Referee(Table(), "classic")
    referee.handle(RemoteInvited(Invitation(GAME.game, GAME.key, friend, 0.0)))
    for at, move in enumerate(moves.split()):
        referee.remote.move = parse_move(move) if referee.game.to_move is friend else None
        referee.handle(DiscEntered(parse_move(move).column, float(at)))
    assert len(referee.game.moves) == len(moves.split())
    return referee


def word(referee: Referee, seq: int, agree: bool = True) -> TakebackHeard:
    """What ``referee``'s side says to the other: its position and its word."""
    return TakebackHeard(seq, referee.remote.agreement.epoch, len(referee.game.moves), agree)


def test_an_agreed_takeback_undoes_the_last_move_on_both_sides() -> None:
    a, b = seated(Y), seated(R)
    verdict = a.handle(TakebackAsked())
    assert verdict.changed and len(a.game.moves) == 3
    assert verdict.log == ("Asked the other side to take back Red's drop into column 4.",)
    heard = b.handle(word(a, 1))
    assert heard.log == (
        "The other side asks to take back Red's drop into column 4: "
        "take it back too to agree, or decline.",
    )
    assert str(display(b).status).startswith("The other side asks to take back")
    question = state_of(b, display(b))["takeback"]
    assert question == {"asked": False, "heard": True, "declined": False, "seq": 1}
    b.handle(TakebackAsked())  # B agrees: both asked, B takes it back
    assert [str(m) for m in b.game.moves] == ["4", "3"] and b.takebacks == 1
    a.handle(TakebackHeard(2, 0, 3, True))  # B's agreement, said before its takeback
    assert [str(m) for m in a.game.moves] == ["4", "3"] and a.takebacks == 1
    for referee in (a, b):
        assert display(referee).columns[3].lamp.value == "error"  # take the disc out
        referee.handle(DiscLeft(4, 10.0))
        assert referee.in_step() and state_of(referee, display(referee))["takeback"] is None


def test_a_declined_takeback_changes_no_game() -> None:
    a, b = seated(Y), seated(R)
    a.handle(TakebackAsked())
    b.handle(word(a, 1))
    verdict = b.handle(TakebackDeclined())
    assert verdict.log == ("You declined to take back Red's drop into column 4; play on.",)
    verdict = a.handle(TakebackHeard(2, 0, 3, False))
    assert verdict.log == ("The other side declined the takeback; play on.",)
    assert len(a.game.moves) == len(b.game.moves) == 3 and a.takebacks == b.takebacks == 0
    assert not a.remote.agreement.ours and not b.remote.agreement.theirs


def test_asked_by_both_at_once_both_take_back_once() -> None:
    a, b = seated(Y), seated(R)
    a.handle(TakebackAsked())
    b.handle(TakebackAsked())
    a_word, b_word = word(a, 1), word(b, 1)
    a.handle(b_word)
    b.handle(a_word)
    assert [str(m) for m in a.game.moves] == [str(m) for m in b.game.moves] == ["4", "3"]
    assert a.takebacks == b.takebacks == 1


def test_a_replayed_or_stale_word_changes_nothing() -> None:
    a, b = seated(Y), seated(R)
    a.handle(TakebackAsked())
    asked = word(a, 5)
    b.handle(asked)
    b.handle(TakebackDeclined())
    assert not b.handle(asked).changed  # the same word again: a replay
    stale = TakebackHeard(6, 0, 2, True)  # said at another position
    assert not b.handle(stale).log and not b.remote.agreement.theirs
    old_epoch = TakebackHeard(7, 1, 3, True)  # after a takeback this side never made
    b.handle(old_epoch)
    assert not b.remote.agreement.theirs and len(b.game.moves) == 3


def test_the_other_side_caught_up_with_takes_it_back_here_too() -> None:
    """B agreed and took back, but its agreement was lost: its next word
    (epoch 1, one move fewer) proves it, since it could only take back on
    this side's request."""
    a = seated(Y)
    a.handle(TakebackAsked())
    a.handle(TakebackHeard(9, 1, 2, True))
    assert [str(m) for m in a.game.moves] == ["4", "3"] and a.takebacks == 1


def test_a_move_settles_a_question_asked_before_it() -> None:
    a = seated(Y, "4 3")
    a.handle(TakebackAsked())
    a.remote.move = parse_move("5")
    a.handle(DiscEntered(5, 9.0))  # the friend's move, made before any answer
    assert len(a.game.moves) == 3 and not a.remote.agreement.ours
    assert not a.handle(TakebackHeard(3, 0, 2, True)).log  # the answer to the old question


def test_the_question_survives_the_journal() -> None:
    b = seated(R)
    b.handle(TakebackHeard(4, 0, 3, True))
    again = restore(Table(), snapshot(b))
    assert again.remote.agreement.data() == b.remote.agreement.data()
    assert again.handle(TakebackHeard(4, 0, 3, True)).changed is False  # still a replay
    for command in (TakebackDeclined(1.0), TakebackHeard(3, 1, 4, False, 2.0)):
        assert decode(encode(command)) == command


@given(
    order=st.permutations(range(4)),
    copies=st.lists(st.integers(0, 3), max_size=4),
    a_asks=st.booleans(),
    b_asks=st.booleans(),
)
def test_any_order_of_words_takes_back_once_on_both_or_on_neither(
    order: list[int], copies: list[int], a_asks: bool, b_asks: bool
) -> None:
    """Each side may ask; its word reaches the other side in any order,
    duplicated: the last move goes on both grids exactly when both asked,
    once, and never on one alone."""
    a, b = seated(Y), seated(R)
    words: list[tuple[Referee, TakebackHeard]] = []
    asking = {0: (a_asks, a, b), 1: (b_asks, b, a)}
    for index in order:
        if index in asking and asking[index][0]:
            _, asker, other = asking[index]
            asker.handle(TakebackAsked())
            words.append((other, word(asker, 1)))
        for target, said in list(words) + [words[i % len(words)] for i in copies if words]:
            target.handle(said)
    for target, said in words:
        target.handle(said)
    both = a_asks and b_asks
    assert len(a.game.moves) == len(b.game.moves) == (2 if both else 3)
    assert a.takebacks == b.takebacks == (1 if both else 0)
