"""Starting games: from the empty board, or from a known position."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.bitboard import has_line
from engine.colour import Colour
from engine.dropgame import DropGame
from engine.errors import PositionError, RulesError
from engine.game import Game
from engine.phase import Phase
from engine.rules import Rules, rules_named


def _rules(rules: str | Rules, size: tuple[int, int] | None) -> Rules:
    if isinstance(rules, Rules):
        if size is None or size == rules.size:
            return rules
        import dataclasses

        return dataclasses.replace(rules, width=size[0], height=size[1])
    if not isinstance(rules, str):
        raise RulesError(f"rules are a name or a Rules value, not {rules!r}")
    return rules_named(rules, size)


# Building a game's tables costs far more than a playout of Classic; copying a
# fresh game keyed by the arguments (a str hashes once, a Rules is a value) is cheap.
_FRESH: dict[tuple[str | Rules, tuple[int, int] | None], Game] = {}
_FRESH_LIMIT = 256


def new_game(rules: str | Rules, size: tuple[int, int] | None = None) -> Game:
    """A new game from the empty board (5-in-a-Row's strips already full).

    >>> game = new_game("five")
    >>> game.rows()[-1], [str(m) for m in game.legal_moves()]
    ('R.......Y', ['2', '3', '4', '5', '6', '7', '8'])
    """
    key = (rules, size)
    fresh = _FRESH.get(key)
    if fresh is None:
        chosen = _rules(rules, size)
        fresh = Game(chosen) if chosen.pops or chosen.pop10 else DropGame(chosen)
        if len(_FRESH) >= _FRESH_LIMIT:
            _FRESH.clear()
        _FRESH[key] = fresh
    return fresh.copy()


def game_from_position(
    rules: str | Rules,
    rows: Sequence[str],
    to_move: Colour | str,
    scores: tuple[int, int] | Mapping[Colour, int] = (0, 0),
) -> Game:
    """A game starting from ``rows`` (top first, ``.``/``R``/``Y``).

    The board size comes from ``rows``. Pop 10 starts in the pop phase when
    the grid is full or points have been scored, else in the fill phase.

    >>> game = game_from_position("pop10", ["RYRY", "YRYR", "RYRY", "YRYR"], "red")
    >>> game.phase, [str(m) for m in game.legal_moves()]
    (<Phase.POP: 'pop'>, ['p2', 'p4'])
    """
    rows = [rows] if isinstance(rows, str) else list(rows)
    if not rows or not all(isinstance(row, str) for row in rows):
        raise PositionError("a position is a list of rows, top first, of '.', 'R' and 'Y'")
    width = len(rows[0])
    chosen = _rules(rules, (width, len(rows)))
    try:
        mover = Colour(to_move)
    except ValueError:
        raise PositionError(f"to_move must be 'red' or 'yellow', not {to_move!r}") from None
    red_score, yellow_score = _scores(scores)
    game = new_game(chosen)
    model = game.rows()
    game._bb = [0, 0]
    game._h = [0] * (chosen.width + 1)
    for number, row in enumerate(rows, start=1):
        if len(row) != width:
            raise PositionError(f"row {number} has {len(row)} cells; row 1 has {width}")
        if set(row) - set(".RY"):
            raise PositionError(f"row {number} ({row!r}): cells are '.', 'R' or 'Y'")
    for column in range(1, width + 1):
        _place_column(game, column, [row[column - 1] for row in reversed(rows)])
    for column in (1, width) if chosen.strips else ():
        if [row[column - 1] for row in rows] != [row[column - 1] for row in model]:
            pattern = "R, Y, R" if column == 1 else "Y, R, Y"
            raise PositionError(
                f"column {column} is an edge strip: it must be full and read "
                f"{pattern}, ... from the bottom"
            )
    game._side = 0 if mover is Colour.RED else 1
    game._scores = [red_score, yellow_score]
    _set_phase(game, chosen, mover)
    game._start()
    return game


def _scores(scores: tuple[int, int] | Mapping[Colour, int]) -> tuple[int, int]:
    if isinstance(scores, Mapping):
        pair = (scores.get(Colour.RED, 0), scores.get(Colour.YELLOW, 0))
    else:
        pair = tuple(scores)  # type: ignore[assignment]
    if len(pair) != 2 or not all(type(n) is int and n >= 0 for n in pair):
        raise PositionError(f"scores are two whole numbers (red, yellow), not {scores!r}")
    return pair[0], pair[1]


def _place_column(game: Game, column: int, cells: list[str]) -> None:
    """Put one column's cells (bottom up) on the board, checking gravity."""
    height = sum(1 for cell in cells if cell != ".")
    if any(cell == "." for cell in cells[:height]):
        raise PositionError(f"column {column} has a gap under a disc: discs fall to the bottom")
    base = game._base[column]
    for row, cell in enumerate(cells[:height]):
        game._bb[0 if cell == "R" else 1] |= 1 << (base + row)
    game._h[column] = height


def _set_phase(game: Game, rules: Rules, mover: Colour) -> None:
    red, yellow = ((board & game._playable_cells).bit_count() for board in game._bb)
    cells = game._playable_cells.bit_count()
    lines = [
        colour
        for colour, board in zip(Colour, game._bb, strict=True)
        if has_line(board, rules.line, game._layout.directions)
    ]
    scored = sum(game._scores)
    if not rules.pop10:
        if scored:
            raise PositionError("points are scored only in Pop 10")
        if lines:
            raise PositionError(f"the position already has a line for {lines[0].title}")
        if not rules.pops and red - yellow != (0 if mover is Colour.RED else 1):
            raise PositionError(
                f"with {red} Red and {yellow} Yellow discs it cannot be {mover.title}'s "
                "turn: Red moves first and players alternate"
            )
        if red + yellow == cells:
            raise PositionError("the grid is full: the game would already be a draw")
        return
    if max(game._scores) >= rules.target:
        raise PositionError(f"a score of {rules.target} has already won the game")
    if scored or red + yellow == cells:
        if red + yellow + scored != cells:
            raise PositionError(
                f"in the pop phase the discs in the grid ({red + yellow}) and the points "
                f"({scored}) must add up to the {cells} cells"
            )
        game._phase = Phase.POP
        game._begin_pop_turn(game._side)
        return
    heights = [game._h[c] for c in rules.playable_columns]
    if max(heights) - min(heights) > 1:
        raise PositionError("in the fill phase the grid fills one row at a time from the bottom")
    if red - yellow != (0 if mover is Colour.RED else 1):
        raise PositionError(
            f"with {red} Red and {yellow} Yellow discs it cannot be {mover.title}'s "
            "turn in the fill phase: Red drops first and players alternate"
        )
