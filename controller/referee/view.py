"""What the board shows for a referee's state: one :class:`Display`.

The priorities, highest first: a browser asks to be paired (its code
blinks for the mode button); the slider is open; the grid disagrees with
the game (show the next repair step, one at a time); the game is over; the
player is choosing the next rules; normal play. A sensor fault is shown on top
of any of them.
"""

from __future__ import annotations

import dataclasses

from controller.i18n.text import Text, Value, _n, _t, sentences
from controller.i18n.words import disc, player, rules_title, title_of
from controller.referee import commentary, repair
from controller.referee.computer_seat import describe
from controller.referee.core import Referee
from controller.referee.discs import SLIDER_OPENED
from controller.referee.proxy import ProxySeat
from engine import RULES_NAMES, Move, MoveKind, Phase
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
    if referee.abandon_armed:
        # the first hold mid-game: the status says what a second does (the
        # page and the board's own status line show nothing else of it)
        again = _t("Hold the mode button again to abandon this game.")
        shown = dataclasses.replace(shown, status=sentences(again, shown.status))
    # a takeback between two sides: the question asked of this side, else
    # this side's own question while it waits (it stands on both grids)
    agreement = referee.remote.agreement
    if agreement.theirs or agreement.ours:
        said = referee.takeback_question() if agreement.theirs else referee.takeback_asked()
        shown = dataclasses.replace(shown, status=sentences(said, shown.status))
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
        fault = _t("The slider is open: close it, then rebuild the game as the lights show.")
    else:
        fault = _t("The slider is open: close it to play.")
    return Display(
        columns=tuple(_dark(referee)),
        scores=_scores(referee),
        alert=Alert.ERROR if referee.rebuilding else Alert.NONE,
        status=fault,
        fault=fault,
    )


def _pairing(referee: Referee) -> Display:
    """The request's code blinks (the columns its page shows lit; every
    column for a request from before codes) until the mode button answers
    (at most :data:`controller.referee.commands.PAIRING_WINDOW`); the game waits
    meanwhile."""
    code = referee.pairing.code
    columns = range(1, referee.table.columns + 1)
    lit = [ColumnLight(Lamp.CHOSEN) if c in code or not code else ColumnLight() for c in columns]
    return Display(columns=tuple(lit), scores=_scores(referee), status=referee.pairing.sentence())


def step_sentence(referee: Referee, step: repair.Step) -> Text:
    """One instruction a player can follow."""
    if isinstance(step, repair.SliderStep):
        return _t("Open the slider to empty the grid, then close it.")
    column = referee.label(step.column)
    if isinstance(step, repair.PopStep):
        return _t("Pop the bottom disc out of column {column}.", column=column)
    return _t("Drop a {colour} disc into column {column}.", colour=disc(step.colour), column=column)


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
    more = _n("({n} more step after this.)", "({n} more steps after this.)", left) if left else None
    problem: str = referee.problem or _t("The grid does not match the game.")
    if referee.rebuilding:
        rebuild = _t("Rebuild the game after the slider, or hold the mode button to abandon it.")
        # the latest wrong disc first, so that the message changes with it
        problem = rebuild if problem == SLIDER_OPENED else sentences(problem, rebuild)
    status: Text = instruction
    if referee.game.is_over():
        # the slider empties the grid and starts the next game, a repair too
        status = sentences(instruction, _t("Or open the slider for a new game."))
        if referee.problem is None:
            problem = sentences(
                commentary.result(referee.game), _t("The grid does not match the finished game.")
            )
    fault = sentences(problem, status, more)
    return Display(
        columns=tuple(lights),
        turn=turn,
        scores=_scores(referee),
        alert=Alert.ERROR,
        status=status,
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
    status = sentences(commentary.result(referee.game), _t("Open the slider for a new game."))
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
        # in the computer's colour when the game is against it
        lights[index] = ColumnLight(Lamp.CHOSEN, referee.next_computer)
    title: Text = title_of(referee.next_rules)
    if referee.next_computer is not None:
        title = sentences(title, describe(referee.next_computer), separator=", ")
    if referee.game.moves and not referee.game.is_over():
        status = _t("Next game: {title}. Press again for other rules.", title=title)
    else:
        status = _t("Rules: {title}. Press again for other rules, or start playing.", title=title)
    return Display(columns=tuple(lights), scores=_scores(referee), status=status)


def _playing(referee: Referee) -> Display:
    game = referee.game
    mover = game.to_move
    assert mover is not None
    proxy = referee.proxy_to_move()
    if proxy is not None:
        return _proxied(referee, mover, proxy)
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


def move_light(move: Move, colour: Colour, hint: bool = False) -> ColumnLight:
    """The look of a move chosen away from the grid (the computer's, a remote
    player's: the same), or a ``hint``."""
    pop = move.kind is MoveKind.POP
    if hint:
        return ColumnLight(Lamp.HINT_POP if pop else Lamp.HINT_DROP, colour)
    return ColumnLight(Lamp.COMPUTER_POP if pop else Lamp.COMPUTER_DROP, colour)


def move_sentence(move: Move, colour: Colour) -> Text:
    """What to do with the hands to make ``move``."""
    if move.kind is MoveKind.POP:
        return _t("pop the bottom disc out of column {column}", column=move.column)
    return _t("drop a {colour} disc into column {column}", colour=disc(colour), column=move.column)


def _proxied(referee: Referee, colour: Colour, proxy: ProxySeat) -> Display:
    """The turn of the computer or a remote player: choosing (nothing lit),
    or its move, lit in its colour, for a person to make."""
    lights = _dark(referee)
    move = proxy.move
    if move is None:
        status = proxy.choosing(colour)
    else:
        lights[move.column - referee.offset - 1] = move_light(move, colour)
        status = proxy.showing(move_sentence(move, colour))
    return Display(columns=tuple(lights), turn=colour, scores=_scores(referee), status=status)


def _turn_sentence(referee: Referee) -> Text:
    game = referee.game
    mover = game.to_move
    assert mover is not None
    title = rules_title(game.rules)
    if game.phase is Phase.RETURN and game.pending_return is not None:
        columns = sorted(referee.label(m.column - referee.offset) for m in game.legal_moves())
        where = ", ".join(str(c) for c in columns)
        # "into column 1, 3" read as one column's name: a choice says so
        return _n(
            "{colour}: drop the popped disc back into column {where}.",
            "{colour}: drop the popped disc back into one of these columns: {where}.",
            len(columns),
            colour=player(mover),
            where=where,
        )
    if game.rules.pop10:
        red, yellow = game.scores[Colour.RED], game.scores[Colour.YELLOW]
        values: dict[str, Value] = {
            "colour": player(mover),
            "title": title,
            "red": red,
            "yellow": yellow,
        }
        if game.phase is Phase.FILL:
            sentence = _t("{colour} to drop, {title} {red}:{yellow}.", **values)
        else:
            sentence = _t("{colour} to pop, {title} {red}:{yellow}.", **values)
        if game.passed is not None:
            passed = _t("{colour} has no disc in the bottom row.", colour=player(game.passed))
            sentence = sentences(passed, sentence)
        return sentence
    return _t("{colour} to move, {title}.", colour=player(mover), title=title)


def _with_faults(referee: Referee, shown: Display) -> Display:
    if not referee.faults:
        return shown
    sensor, message = next(iter(referee.faults.items()))
    lights = list(shown.columns)
    for name in referee.faults:
        kind, _, number = name.partition(" ")
        if kind in ("entry", "exit") and number.isdigit() and 1 <= int(number) <= len(lights):
            lights[int(number) - 1] = ColumnLight(Lamp.ERROR)
    fault = sentences(message, shown.fault)
    return Display(
        columns=tuple(lights),
        turn=shown.turn,
        scores=shown.scores,
        alert=Alert.ERROR,
        winning=shown.winning,
        status=_t("Sensor fault on {sensor}.", sensor=sensor),
        fault=fault,
    )


def with_hint(referee: Referee, shown: Display, move: Move, proven: bool) -> Display:
    """``shown`` with a hint lit: only the hinted column, in the mover's colour;
    a move not ``proven`` to keep the position's outcome says so. Anything
    more pressing (a repair, a fault, a rules choice) hides it."""
    mover = referee.game.to_move
    plain = referee.in_step() and not referee.selecting and not referee.faults
    if mover is None or not plain or referee.proxy_to_move() is not None:
        return shown
    lights = _dark(referee)
    lights[move.column - referee.offset - 1] = move_light(move, mover, hint=True)
    status = _t("Hint for {colour}: {move}.", colour=player(mover), move=move_sentence(move, mover))
    if not proven:
        status = sentences(status, _t("Not proven: the search ran out of time."))
    return Display(columns=tuple(lights), turn=mover, scores=shown.scores, status=status)
