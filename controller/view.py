"""What the board shows for a referee's state: one :class:`Display`.

The priorities, highest first: a browser asks to be paired (every light
blinks for the mode button); the slider is open; the grid disagrees with
the game (show the next repair step, one at a time); the game is over; the
player is choosing the next rules; normal play. A sensor fault is shown on top
of any of them.
"""

from __future__ import annotations

from controller import repair
from controller.referee import Referee
from engine import RULES_NAMES, MoveKind, Phase, rules_named
from engine.colour import Colour
from hardware.display import Alert, ColumnLight, Display, Lamp


def display(referee: Referee) -> Display:
    """The display for ``referee``'s current state."""
    if referee.pairing_since is not None:
        shown = _pairing(referee)
    elif referee.slider_open:
        shown = _slider_open(referee)
    elif not referee.in_step():
        shown = _repairing(referee)
    elif referee.game.is_over():
        shown = _finished(referee)
    elif referee.selecting:
        shown = _selecting(referee)
    else:
        shown = _playing(referee)
    return _with_faults(referee, shown)


def _scores(referee: Referee) -> tuple[int, int] | None:
    if not referee.game.rules.pop10:
        return None
    scores = referee.game.scores
    return (scores[Colour.RED], scores[Colour.YELLOW])


def _dark(referee: Referee) -> list[ColumnLight]:
    return [ColumnLight() for _ in range(referee.table.columns)]


def _slider_open(referee: Referee) -> Display:
    if referee.game.moves and not referee.game.is_over():
        fault = "The slider is open: close it, then rebuild the game as the lights show."
    else:
        fault = "The slider is open: close it to play."
    return Display(
        columns=tuple(_dark(referee)),
        scores=_scores(referee),
        alert=Alert.ERROR if referee.rebuilding else Alert.NONE,
        status=fault,
        fault=fault,
    )


def _pairing(referee: Referee) -> Display:
    """Every column light blinks until the mode button answers (at most
    :data:`controller.commands.PAIRING_WINDOW`); the game waits meanwhile."""
    return Display(
        columns=tuple(ColumnLight(Lamp.CHOSEN) for _ in range(referee.table.columns)),
        scores=_scores(referee),
        status="A browser asks to be paired: press the mode button to allow it.",
    )


def step_sentence(referee: Referee, step: repair.Step) -> str:
    """One instruction a player can follow."""
    if isinstance(step, repair.SliderStep):
        return "Open the slider to empty the grid, then close it."
    column = referee.label(step.column)
    if isinstance(step, repair.PopStep):
        return f"Pop the bottom disc out of column {column}."
    return f"Drop a {step.colour.title} disc into column {column}."


def _repairing(referee: Referee) -> Display:
    steps = referee.repair_plan()
    step = steps[0]
    lights = _dark(referee)
    turn: Colour | None = None
    if isinstance(step, repair.SliderStep):
        lights = [ColumnLight(Lamp.ERROR) for _ in lights]
    elif isinstance(step, repair.PopStep):
        bottom = referee.grid[step.column - 1][0]
        lights[step.column - 1] = ColumnLight(Lamp.ERROR, bottom)
    else:
        lights[step.column - 1] = ColumnLight(Lamp.CHOSEN, step.colour)
        turn = step.colour
    instruction = step_sentence(referee, step)
    left = len(steps) - 1
    more = f" ({left} more step{'s' if left != 1 else ''} after this.)" if left else ""
    problem = referee.problem or "The grid does not match the game."
    if referee.rebuilding:
        problem = "Rebuild the game after the slider, or hold the mode button to abandon it."
    fault = f"{problem} {instruction}{more}"
    return Display(
        columns=tuple(lights),
        turn=turn,
        scores=_scores(referee),
        alert=Alert.ERROR,
        status=instruction,
        fault=fault,
    )


def _finished(referee: Referee) -> Display:
    game = referee.game
    winning = frozenset(
        (column - referee.offset, row)
        for column, row in game.winning_cells()
        if 1 <= column - referee.offset <= referee.table.columns
    )
    lights = _dark(referee)
    result = game.result
    winner = result if isinstance(result, Colour) else None
    for column, _row in winning:
        lights[column - 1] = ColumnLight(Lamp.WINNING, winner)
    status = referee.result_sentence() + " Open the slider for a new game."
    return Display(
        columns=tuple(lights),
        turn=winner,
        scores=_scores(referee),
        alert=Alert.WIN if winner is not None else Alert.DRAW,
        winning=winning,
        status=status,
    )


def _selecting(referee: Referee) -> Display:
    lights = _dark(referee)
    index = RULES_NAMES.index(referee.next_rules)
    if index < len(lights):
        lights[index] = ColumnLight(Lamp.CHOSEN)
    title = rules_named(referee.next_rules).title
    if referee.game.moves and not referee.game.is_over():
        status = f"Next game: {title}. Press again for other rules."
    else:
        status = f"Rules: {title}. Press again for other rules, or start playing."
    return Display(columns=tuple(lights), scores=_scores(referee), status=status)


def _playing(referee: Referee) -> Display:
    game = referee.game
    mover = game.to_move
    assert mover is not None
    drops: set[int] = set()
    pops: set[int] = set()
    for move in game.legal_moves():
        physical = move.column - referee.offset
        (pops if move.kind is MoveKind.POP else drops).add(physical)
    lights = _dark(referee)
    for column in range(1, referee.table.columns + 1):
        lamp = {
            (True, True): Lamp.DROP_OR_POP,
            (True, False): Lamp.DROP,
            (False, True): Lamp.POP,
            (False, False): Lamp.OFF,
        }[(column in drops, column in pops)]
        lights[column - 1] = ColumnLight(lamp, mover if lamp is not Lamp.OFF else None)
    return Display(
        columns=tuple(lights),
        turn=mover,
        scores=_scores(referee),
        status=_turn_sentence(referee),
    )


def _turn_sentence(referee: Referee) -> str:
    game = referee.game
    mover = game.to_move
    assert mover is not None
    title = game.rules.title
    if game.phase is Phase.RETURN and game.pending_return is not None:
        columns = sorted(m.column for m in game.legal_moves())
        where = ", ".join(str(c) for c in columns)
        return f"{mover.title}: drop the popped disc back into column {where}."
    if game.rules.pop10:
        red, yellow = game.scores[Colour.RED], game.scores[Colour.YELLOW]
        action = "to drop" if game.phase is Phase.FILL else "to pop"
        sentence = f"{mover.title} {action}, {title} {red}:{yellow}."
        if game.passed is not None:
            sentence = f"{game.passed.title} has no disc in the bottom row. {sentence}"
        return sentence
    return f"{mover.title} to move, {title}."


def _with_faults(referee: Referee, shown: Display) -> Display:
    if not referee.faults:
        return shown
    sensor, message = next(iter(referee.faults.items()))
    lights = list(shown.columns)
    for name in referee.faults:
        kind, _, number = name.partition(" ")
        if kind in ("entry", "exit") and number.isdigit() and 1 <= int(number) <= len(lights):
            lights[int(number) - 1] = ColumnLight(Lamp.ERROR)
    fault = f"{message}" if shown.fault is None else f"{message} {shown.fault}"
    return Display(
        columns=tuple(lights),
        turn=shown.turn,
        scores=shown.scores,
        alert=Alert.ERROR,
        winning=shown.winning,
        status=f"Sensor fault on {sensor}.",
        fault=fault,
    )
