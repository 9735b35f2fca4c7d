"""Taking back moves: which a takeback undoes, why one is refused, how the sides agree.

The referee takes the moves off its game; its belief of the physical grid is
left as the sensors proved it, so the grid no longer matches the game and the
repair (:mod:`controller.referee.repair`) leads the players back: the lights
say which disc to take out (in a pop-out grid a disc high in a column comes
out by popping the column and dropping the rest back), or which popped disc
to put back.

Against the computer a takeback gives the person their last turn again, as
chess programs do: it undoes the person's last move and every move the
computer made after it.

>>> from engine import new_game
>>> game = new_game("classic")
>>> for move in "4435":
...     game.play(move)
>>> plies(game, computer=None), plies(game, computer=Colour.YELLOW)
(1, 2)
>>> plies(game, computer=Colour.RED)
1
"""

from __future__ import annotations

from typing import Protocol

from controller.i18n.text import Text, _n, _t
from controller.i18n.words import player
from controller.referee.agreement import Heard
from controller.referee.commands import TakebackHeard
from controller.referee.computer_seat import Seat
from controller.referee.proxy import ProxySeat
from controller.referee.remote_seat import RemoteSeat
from controller.referee.verdict import Draft, Word
from engine import Game, Move
from engine.colour import Colour


class Taker(Protocol):
    """What a takeback reads and changes of the referee."""

    game: Game
    takebacks: int
    problem: Text | None
    remote: RemoteSeat

    @property
    def computer(self) -> Seat | None: ...

    def physical(self, move: Move) -> Text: ...

    def in_step(self) -> bool: ...

    def proxies(self) -> tuple[ProxySeat, ...]: ...


def plies(game: Game, computer: Colour | None) -> int:
    """How many of ``game``'s last moves a takeback undoes (0: none may be).

    Without the computer, the last move. With it, back to the last move of
    the person's colour, that one included: the computer's replies after it
    go too. A game in which only the computer has moved has nothing of the
    person's to take back."""
    probe = game.copy()
    undone = 0
    while probe.moves:
        probe.undo()
        undone += 1
        # after an undo the side to move is the one that made the undone move
        if probe.to_move is not computer:
            return undone
    return 0


def refusal(game: Game, computer: Colour | None) -> Text | None:
    """Why there is nothing to take back, or ``None`` when there is."""
    if not game.moves:
        return _t("Nothing to take back: no move has been made in this game.")
    if plies(game, computer) == 0:
        return _t("Nothing to take back: only the computer has moved in this game.")
    return None


def undone(moves: list[tuple[Colour, Text]]) -> Text:
    """The sentence for the moves taken back, each its mover and how the hands
    made it, last first: it names the earliest, the turn that comes again."""
    mover, made = moves[-1]
    if len(moves) == 1:
        return _t(
            "Taken back: {colour}'s {move}. Take the grid back as the lights show.",
            colour=player(mover),
            move=made,
        )
    return _n(
        "Taken back: {n} move, back to before {colour}'s {move}. "
        "Take the grid back as the lights show.",
        "Taken back: {n} moves, back to before {colour}'s {move}. "
        "Take the grid back as the lights show.",
        len(moves),
        colour=player(mover),
        move=made,
    )


def take_off(game: Game, count: int) -> list[tuple[Colour, Move]]:
    """Undo ``game``'s last ``count`` moves; each with its mover, last first."""
    taken: list[tuple[Colour, Move]] = []
    for _ in range(count):
        move = game.undo()
        mover = game.to_move
        assert mover is not None  # a position before a move has a side to move
        taken.append((mover, move))
    return taken


def ask(referee: Taker, out: Draft) -> None:
    """Take back the last move (against the computer, the person's last
    turn); the grid is left as it is, and the repair leads it back. With
    a remote seat, only once the other side agrees too."""
    computer = referee.computer.colour if referee.computer is not None else None
    refused = refusal(referee.game, computer)
    if refused is not None:
        out.log.append(refused)
        return
    if referee.remote.colour() is None:
        _take_off(referee, plies(referee.game, computer), out)
        return
    agreement = referee.remote.agreement
    if agreement.ours:
        out.log.append(_t("The takeback is asked already; waiting for the other side."))
        return
    out.changed = True
    out.word = Word(agreement.epoch, len(referee.game.moves), agree=True)
    if agreement.asked():
        _take_off(referee, 1, out)
        return
    out.log.append(_t("Asked the other side to take back {move}.", move=last_move(referee)))


def decline(referee: Taker, out: Draft) -> None:
    """This side declines the takeback the other side asked for."""
    if not referee.remote.agreement.decline():
        out.log.append(_t("Nothing to decline: nobody asks to take a move back."))
        return
    out.changed = True
    out.word = Word(referee.remote.agreement.epoch, len(referee.game.moves), agree=False)
    out.log.append(_t("You declined to take back {move}; play on.", move=last_move(referee)))


def heard(referee: Taker, word: TakebackHeard, out: Draft) -> None:
    """The other side's word on a takeback (a replay or a stale word changes nothing)."""
    if referee.remote.invitation is None:
        return
    moves = len(referee.game.moves)
    news = referee.remote.agreement.heard(word.seq, word.epoch, word.ply, word.agree, moves)
    if news is Heard.REPLAY:
        return
    out.changed = True  # its number is kept: a replay after a restart is still one
    if news in (Heard.AGREED, Heard.CAUGHT_UP):
        _take_off(referee, 1, out)
    elif news is Heard.ASKED:
        out.log.append(question(referee))
    elif news is Heard.DECLINED:
        out.log.append(_t("The other side declined the takeback; play on."))


def last_move(referee: Taker) -> Text:
    """The last move as a takeback names it: who made it and how."""
    probe = referee.game.copy()
    move = probe.undo()
    mover = probe.to_move
    assert mover is not None  # a position before a move has a side to move
    return _t("{colour}'s {move}", colour=player(mover), move=referee.physical(move))


def question(referee: Taker) -> Text:
    """What this side is asked when the other side wants the last move back."""
    return _t(
        "The other side asks to take back {move}: take it back too to agree, or decline.",
        move=last_move(referee),
    )


def asked(referee: Taker) -> Text:
    """What this side sees while the other side has not answered its takeback."""
    return _t("You asked to take back {move}; waiting for the other side.", move=last_move(referee))


def _take_off(referee: Taker, count: int, out: Draft) -> None:
    """Take the last ``count`` moves back; the repair leads the grid after."""
    out.changed = True
    taken = take_off(referee.game, count)
    referee.takebacks += 1
    if referee.remote.colour() is not None:
        referee.remote.agreement.took_back()
    for seat in referee.proxies():
        seat.move = None
    said = undone([(mover, referee.physical(move)) for mover, move in taken])
    out.log.append(said)
    referee.problem = None if referee.in_step() else said
