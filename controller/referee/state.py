"""The state of a table as one JSON-able object: what ``popref simulate
--json`` prints after each action and what the web page shows, from one
function, so the two can never tell different stories.

>>> from controller.referee.core import Referee, Table
>>> from controller.referee.view import display
>>> referee = Referee(Table(columns=4, rows=4), "classic")
>>> state = state_of(referee, display(referee))
>>> state["board"], state["to_move"], state["lights"][0]
(['....', '....', '....', '....'], 'red', 'drop')
"""

from __future__ import annotations

from typing import Any

from controller.i18n.words import rules_title
from controller.referee.core import Referee
from engine import Move
from engine.colour import Colour, picture
from hardware.display import Display


def state_of(referee: Referee, shown: Display, grid: list[str] | None = None) -> dict[str, Any]:
    """``referee``'s state with the display ``shown``.

    ``grid`` is the physical grid's content, top row first; without it, the
    referee's belief of it (a disc whose colour nobody saw is ``?``).

    ``board`` is the game's grid without 5-in-a-Row's edge strips (they are
    card beside the grid), ``winning`` the winning cells as physical
    ``[column, row]`` pairs (row 1 at the bottom), ``colours`` each column
    light's colour, ``turn`` the turn light; ``level`` the computer's level
    in this game, ``next_opponent`` and ``next_level`` the computer's colour
    and level in the next; ``computer`` and ``remote`` the move the board
    waits for a person to make for the computer or the remote player (or
    ``None``), ``remote_colour`` the colour a remote player has in this game;
    ``epoch`` the moves taken back by agreement under a remote seat's
    invitation (its move numbers count from there), ``takeback`` a takeback
    asked of, or by, the other side of a remote game (or ``None``).
    """
    game = referee.game
    return {
        "board": picture(referee.model_grid(), referee.table.rows),
        "grid": grid if grid is not None else believed_grid(referee),
        "to_move": game.to_move.value if game.to_move else None,
        "result": None if game.result is None else str(game.result),
        "scores": {"red": game.scores[Colour.RED], "yellow": game.scores[Colour.YELLOW]},
        "phase": game.phase.value,
        "rules": game.rules.name,
        "moves": [str(m) for m in game.moves],
        "fault": shown.fault,
        "status": shown.status,
        "lights": [light.lamp.value for light in shown.columns],
        "opponent": referee.computer.colour.value if referee.computer else None,
        "level": referee.computer.level if referee.computer else None,
        "computer": _notation(referee.seats.pending(game)),
        "remote": _notation(referee.remote.pending(game)),
        "remote_colour": _value(referee.remote.colour()),
        "colours": [light.colour.value if light.colour else None for light in shown.columns],
        "turn": shown.turn.value if shown.turn else None,
        "winning": sorted([column, row] for column, row in shown.winning),
        "title": rules_title(game.rules),
        "next_rules": referee.next_rules,
        "next_opponent": referee.next_computer.value if referee.next_computer else None,
        "next_level": referee.seats.next_level,
        "game_number": referee.game_number,
        "pairing": referee.pairing_since is not None,
        "epoch": referee.remote.agreement.epoch,
        "takeback": _question(referee),
    }


def _question(referee: Referee) -> dict[str, Any] | None:
    """A takeback both sides must agree to, while one is asked or was just
    declined: ``asked`` by this side, ``heard`` from the other, ``declined``
    by this side, ``seq`` the other side's last word taken
    (controller.referee.agreement)."""
    agreement = referee.remote.agreement
    if not (agreement.ours or agreement.theirs or agreement.declined):
        return None
    flags = {"asked": agreement.ours, "heard": agreement.theirs, "declined": agreement.declined}
    return {**flags, "seq": agreement.seq}


def _notation(move: Move | None) -> str | None:
    """A move the board waits for a person to make, in notation."""
    return str(move) if move is not None else None


def _value(colour: Colour | None) -> str | None:
    return colour.value if colour is not None else None


def believed_grid(referee: Referee) -> list[str]:
    """What the referee believes the physical grid holds, top row first."""
    rows = referee.table.rows
    return [
        "".join(
            (d.letter if d is not None else "?") if r < len(column) else "."
            for column in referee.grid
            for d in [column[r] if r < len(column) else None]
        )
        for r in reversed(range(rows))
    ]
