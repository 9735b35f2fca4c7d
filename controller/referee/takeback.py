"""Taking back the last move: which moves a takeback undoes, and why one is refused.

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

from controller.i18n.text import Text, _n, _t
from controller.i18n.words import player
from engine import Game, Move
from engine.colour import Colour


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
