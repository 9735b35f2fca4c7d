"""What the referee says about play: a move as the hands make it, a move
played (and what it scored, a pass, the result it brought), a disc of the
wrong colour, a disc nobody asked for, a game's result. Plain functions of
the game and the physical column (the grid's own number, as its lights and
the simulator show it: :meth:`controller.referee.core.Referee.label`); the
referee decides when each is said.

>>> from engine import new_game
>>> game = new_game("classic")
>>> physical(Move.drop(4), column=4)
'drop into column 4'
>>> game.play("4")
>>> played(game, Colour.RED, Move.drop(4), column=4, scored=False)
['Red played a drop into column 4.']
>>> result(game)
'The game is not over.'
"""

from __future__ import annotations

from controller.i18n.text import Text, _n, _t
from controller.i18n.words import player
from engine import Game, Move, MoveKind
from engine.colour import Colour


def physical(move: Move, column: int) -> Text:
    """``move`` as the hands make it, in physical ``column``."""
    if move.kind is MoveKind.POP:
        return _t("pop from column {column}", column=column)
    return _t("drop into column {column}", column=column)


def instead(chosen: Move, chosen_column: int, move: Move, column: int) -> Text:
    """The computer's ``chosen`` move against the ``move`` a person made in
    its place (each with its physical column); a drop against a drop, or a
    pop against a pop, names the kind once.

    >>> instead(Move.drop(2), 2, Move.drop(7), 7)
    'The computer plays a drop into column 2, not into column 7.'
    >>> instead(Move.pop(2), 2, Move.drop(7), 7)
    'The computer plays a pop from column 2, not a drop into column 7.'
    """
    if chosen.kind is not move.kind:
        return _t(
            "The computer plays a {chosen}, not a {move}.",
            chosen=physical(chosen, chosen_column),
            move=physical(move, column),
        )
    if chosen.kind is MoveKind.POP:
        return _t(
            "The computer plays a pop from column {chosen}, not from column {column}.",
            chosen=chosen_column,
            column=column,
        )
    return _t(
        "The computer plays a drop into column {chosen}, not into column {column}.",
        chosen=chosen_column,
        column=column,
    )


def played(game: Game, mover: Colour, move: Move, column: int, scored: bool) -> list[Text]:
    """What to log once ``mover``'s ``move`` in physical ``column`` was
    played in ``game``: the move (or the disc it ``scored``), a pass, the
    result."""
    if scored:
        said = [
            _t(
                "{colour} scored: the disc popped from column {column} was in a line "
                "and is set aside ({score} for {colour}).",
                colour=player(mover),
                column=column,
                score=game.scores[mover],
            )
        ]
    else:
        said = [_t("{colour} played a {move}.", colour=player(mover), move=physical(move, column))]
    if game.passed is not None:
        said.append(
            _t(
                "{colour} has no disc in the bottom row; the turn passes.",
                colour=player(game.passed),
            )
        )
    if game.is_over():
        said.append(result(game))
    return said


def wrong_colour(colour: Colour | None, column: int, mover: Colour) -> Text:
    """A disc of ``colour`` (``None``: unknown) went into ``column`` on ``mover``'s turn."""
    if colour is not None:
        return _t(
            "{colour}'s disc went into column {column}, but it is {mover}'s turn.",
            colour=player(colour),
            column=column,
            mover=player(mover),
        )
    return _t(
        "A disc of unknown colour went into column {column}, but it is {mover}'s turn.",
        column=column,
        mover=player(mover),
    )


def unasked(went_in: bool, column: int, game_over: bool) -> tuple[Text, Text]:
    """The problem to show and the sentence to log when a disc went in (or
    out) of ``column`` and nobody asked for it: a step the board did not ask
    for, or any disc after the game ended (the board's own message then adds
    what to do next: :mod:`controller.referee.view`).

    >>> unasked(False, 3, game_over=True)[1]
    'A disc left column 3 after the game ended; open the slider for a new game.'
    """
    if not game_over:
        if went_in:
            problem = _t(
                "A disc went into column {column}; that was not the step the board asked for.",
                column=column,
            )
        else:
            problem = _t(
                "A disc left column {column}; that was not the step the board asked for.",
                column=column,
            )
        return problem, problem
    if went_in:
        return (
            _t("A disc went into column {column} after the game ended.", column=column),
            _t(
                "A disc went into column {column} after the game ended; "
                "open the slider for a new game.",
                column=column,
            ),
        )
    return (
        _t("A disc left column {column} after the game ended.", column=column),
        _t(
            "A disc left column {column} after the game ended; open the slider for a new game.",
            column=column,
        ),
    )


def result(game: Game) -> Text:
    """The result of ``game``, or that it is not over."""
    outcome = game.result
    if outcome is None:
        return _t("The game is not over.")
    if outcome == "draw":
        return _t("The game is a draw.")
    assert isinstance(outcome, Colour)
    if game.rules.pop10:
        return _n(
            "{colour} wins with {n} disc set aside.",
            "{colour} wins with {n} discs set aside.",
            game.scores[outcome],
            colour=player(outcome),
        )
    return _t("{colour} wins.", colour=player(outcome))
