"""The interactive simulator: shorthand commands and the picture it draws."""

from __future__ import annotations

import io
import logging
import os
import pty
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.daemon.config import parse_config
from controller.daemon.logs import setup_logging
from controller.i18n.text import LANGUAGES, _t
from controller.referee.commands import PairingRequested, RemoteInvited, TakebackHeard
from controller.referee.invitation import Invitation, b64url
from controller.simulator.script import ScriptError, parse_command
from controller.simulator.simulation import Simulation
from controller.simulator.terminal import HELP, LAMP_MARKS, Lines, interact, render
from engine import Colour
from hardware.clock import FakeClock
from hardware.display import Lamp


@pytest.mark.parametrize(
    ("typed", "verb", "column", "colour"),
    [
        ("4", "drop", 4, None),
        ("y3", "drop", 3, Colour.YELLOW),
        ("r1", "drop", 1, Colour.RED),
        ("p7", "pop", 7, None),
        ("o", "open", 0, None),
        ("c", "close", 0, None),
        ("b", "press", 0, None),
        ("h", "hold", 0, None),
        ("d", "double", 0, None),
        ("drop 2 yellow", "drop", 2, Colour.YELLOW),
    ],
)
def test_shorthand(typed: str, verb: str, column: int, colour: Colour | None) -> None:
    action = parse_command(typed, 7)
    assert action is not None
    assert (action.verb, action.column, action.colour) == (verb, column, colour)


def test_w_waits() -> None:
    action = parse_command("w 500", 7)
    assert action is not None and (action.verb, action.ms) == ("wait", 500)


def test_a_column_off_the_grid_is_refused() -> None:
    with pytest.raises(ScriptError, match="column 9 is not on the grid"):
        parse_command("9", 7)


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("p", "p needs a column number: p4 pops from column 4"),
        ("r", "r needs a column number: r4 drops a Red disc into column 4"),
        ("y²", "y² needs a column number"),
        ("w", "w needs milliseconds: w 500"),
        ("jump", "'jump' is not an action; type ? for help"),
        ("drop", "drop needs a column number, e.g. 'drop 4'"),
    ],
)
def test_mistakes_are_answered_in_the_prompts_shorthand(typed: str, said: str) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_command(typed, 7)
    message = str(caught.value)
    assert message.startswith(said)
    assert "input" not in message and "line 1" not in message and "('" not in message[:3]


def test_a_session_plays_and_catches_a_mistake(tmp_path: Path) -> None:
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    out = io.StringIO()
    try:
        assert interact(simulation, io.StringIO("4\nbogus\np4\n9\n?\nq\n"), out) == 0
    finally:
        simulation.close()
    text = out.getvalue()
    assert text.startswith(f"popref on a simulated 7-column grid; the game is kept in {tmp_path}")
    assert "Yellow to move, Classic." in text
    assert "'bogus' is not an action; type ? for help" in text
    assert "Pop the bottom disc out of column 4." not in text  # Red's disc: put it back
    assert "Drop a Red disc into column 4." in text
    assert "column 9 is not on the grid" in text
    assert "r4, y4" in text  # the help


def test_a_disc_the_referee_counts_otherwise_is_marked(tmp_path: Path) -> None:
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    out = io.StringIO()
    try:
        assert interact(simulation, io.StringIO("4\nr5\nq\n"), out) == 0
    finally:
        simulation.close()
    picture = out.getvalue().split("> ")[-2]  # after r5
    assert " |. . . R r . .|" in picture
    assert "r in column 5: a Red disc that the referee counts as Yellow" in picture
    assert simulation.daemon.referee.grid[4] == [Colour.YELLOW]


def test_agreeing_discs_are_not_marked(tmp_path: Path) -> None:
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    out = io.StringIO()
    try:
        assert interact(simulation, io.StringIO("4\ny5\nq\n"), out) == 0
    finally:
        simulation.close()
    picture = out.getvalue().split("> ")[-2]
    assert " |. . . R Y . .|" in picture and "counts" not in picture


def test_a_double_press_says_only_what_it_did(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="popref")
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    try:
        for typed in ("4", "d"):
            action = parse_command(typed, 7)
            assert action is not None
            simulation.act(action)
        assert "Yellow asked for a hint." in caplog.messages
        assert not [m for m in caplog.messages if m.startswith("The next game will be")]
        caplog.clear()
        action = parse_command("b", 7)
        assert action is not None
        simulation.act(action)  # a single press: said once no second press can follow
        assert "The next game will be Pop Out." in caplog.messages
    finally:
        simulation.close()


# -- simulated time follows the real clock while nobody types -------------------------


# lines typed at moments of the real clock, or what another thread does then
Script = list[tuple[float, str | Callable[[], None]]]


class Scripted:
    """Typed lines at given moments of a fake real clock; a callable in their
    place is something another thread does then (the page), which wakes the
    prompt. Every wait is recorded."""

    def __init__(self, clock: FakeClock, script: Script) -> None:
        self.clock, self.script = clock, list(script)
        self.waits: list[float | None] = []

    def get(self, timeout: float | None) -> str | None:
        self.waits.append(timeout)
        if not self.script:
            return ""
        at, what = self.script[0]
        if timeout is not None and at > self.clock() + timeout:
            self.clock.advance(timeout)
            return None
        self.clock.set(max(at, self.clock()))
        self.script.pop(0)
        if callable(what):
            what()
            return None
        return what

    def wake(self) -> None:
        """Nothing to wake: :meth:`get` returns after each callable anyway."""


def play(simulation: Simulation, script: Script) -> tuple[Scripted, str]:
    """``script`` typed at ``simulation``'s prompt, a real clock's 100 s on."""
    clock = FakeClock(100.0)
    typed = Scripted(clock, script)
    out = io.StringIO()
    try:
        assert interact(simulation, io.StringIO(), out, typed=typed, clock=clock) == 0
    finally:
        simulation.close()
    return typed, out.getvalue()


def test_a_hint_goes_dark_after_five_seconds_while_nobody_types(tmp_path: Path) -> None:
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    typed, text = play(simulation, [(100.0, "4\n"), (101.0, "d\n"), (130.0, "q\n")])
    lit, _, after = text.partition("Hint for Yellow: drop a Yellow disc into column 4.")
    assert lit and "Yellow to move, Classic." in after  # redrawn, unasked, once it went dark
    # its own mark over column 4, not the computer's V (the lamps and page differ too)
    assert lit.rsplit("1 2 3 4 5 6 7\n", 1)[1].splitlines()[0].rstrip() == "        h"
    assert simulation.daemon.dispatcher.hint is None
    # no busy loop: each wait lasts until the daemon's next deadline (at the
    # fastest a blinking light's, eight a second)
    assert all(wait is None or wait > 0 for wait in typed.waits)
    assert len(typed.waits) <= 8 * 30


def test_a_pairing_request_from_the_page_expires_after_thirty_seconds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="popref")
    simulation = Simulation(parse_config({}, "test"), tmp_path)

    def ask() -> None:  # the page's thread: the request wakes the prompt
        simulation.submit(PairingRequested())

    # "w 0" (a wait of no time) shows the picture at that moment
    script: Script = [(105.0, ask), (134.9, "w 0\n"), (135.1, "w 0\n"), (200.0, "q\n")]
    typed, text = play(simulation, script)
    # at 134.9 s, still asking; redrawn, unasked, once it ran out; at 135.1 s, gone
    *_, before, redrawn, after, _ = text.split("\n> ")
    asking = "A browser asks to be paired: press the mode button to allow it."
    assert asking in before
    assert asking not in redrawn + after and "Red to move, Classic." in redrawn
    assert "Nobody pressed the mode button; the browser was not paired." in caplog.messages
    assert all(wait is None or wait > 0 for wait in typed.waits)


def test_typed_lines_come_through_a_terminal_with_a_timeout() -> None:
    main, terminal = pty.openpty()
    stream = os.fdopen(terminal, "r", encoding="utf-8")
    try:
        lines = Lines(stream)
        assert lines.get(timeout=0) is None  # nobody typed
        os.write(main, b"p4\n")
        assert lines.get(timeout=30) == "p4\n"  # at once: it waits for the line
        lines.wake()
        assert lines.get(timeout=30) is None  # woken, not timed out
    finally:
        os.close(main)  # the terminal hangs up: the end of input
    assert lines.get(timeout=30) == ""
    stream.close()


def test_the_end_of_input_ends_the_wait(tmp_path: Path) -> None:
    lines = Lines(io.StringIO("q\n"))
    assert lines.get(timeout=30) == "q\n"
    assert lines.get(timeout=30) == ""


@pytest.fixture
def popref_logger() -> Iterator[logging.Logger]:
    """popref's logger, put back as it was after the test set it up."""
    logger = logging.getLogger("popref")
    kept = logger.handlers[:], logger.level, logger.propagate
    try:
        yield logger
    finally:
        logger.handlers[:], logger.level, logger.propagate = kept


@pytest.mark.parametrize("one_screen", [True, False])
def test_a_sentence_logged_by_another_thread_goes_above_the_prompt(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    popref_logger: logging.Logger,
    one_screen: bool,
) -> None:
    """The broker's thread says the connection was lost while the prompt
    waits: on one terminal the sentence gets a line of its own and the
    prompt is written again below it, instead of the sentence landing on
    the prompt's line."""
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)  # standard error on the same terminal
    setup_logging()

    def broker_thread_says() -> None:
        said = threading.Thread(target=popref_logger.warning, args=("The broker is away.",))
        said.start()
        said.join()

    clock = FakeClock(100.0)
    typed = Scripted(clock, [(101.0, broker_thread_says), (102.0, "q\n")])
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    try:
        interact(simulation, io.StringIO(), screen, typed=typed, clock=clock, one_screen=one_screen)
    finally:
        simulation.close()
    last = screen.getvalue().rsplit("Type ? for help.", 1)[1]
    if one_screen:
        assert last.endswith("> \r\033[KThe broker is away.\n> \n")
    else:  # standard error elsewhere (a file, journald): the prompt is left alone
        assert last.endswith("> The broker is away.\n\n") and "\033" not in last


def test_the_other_sides_takeback_question_names_the_keys_and_the_help_the_moves(
    tmp_path: Path,
) -> None:
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    try:
        # Yellow is a remote seat (the other grid), Red's drop is made, and
        # the other side asks to take it back
        simulation.submit(RemoteInvited(Invitation(b64url(bytes(16)), bytes(32), Colour.YELLOW, 0)))
        simulation.act(parse_command("4", 7) or pytest.fail("a drop"))
        simulation.submit(TakebackHeard(1, 0, 1, True))
        picture = render(simulation)
    finally:
        simulation.close()
    assert (
        "The other side asks to take back Red's drop into column 4: type t to take it back "
        "too and agree, or n to decline."
    ) in picture
    assert "take it back too to agree, or decline" not in picture  # the page's version
    legend = _t(HELP).render("en")
    assert "the computer's move" not in legend
    assert "V / A drop or pop for a move to make for another player" in legend


def test_the_help_fits_an_80_column_terminal() -> None:
    """Typing ? in an 80-column terminal wrapped the legend's lines mid-word
    ("# winning line," alone on a line, "d" + "ouble")."""
    for code in LANGUAGES:  # each language's own wrapping
        assert max(len(line) for line in _t(HELP).render(code).splitlines()) <= 80, code


class Screen(io.StringIO):
    """Standard output on a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_picture_drawn_while_nobody_types_takes_the_prompts_line(tmp_path: Path) -> None:
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    clock = FakeClock(100.0)
    typed = Scripted(clock, [(100.0, "4\n"), (101.0, "d\n"), (130.0, "q\n")])
    out = Screen()
    try:
        assert interact(simulation, io.StringIO(), out, typed=typed, clock=clock) == 0
    finally:
        simulation.close()
    text = out.getvalue()
    # the hint went dark: the waiting prompt's line cleared, the picture in its place
    assert "> \r\033[K  1 2 3 4 5 6 7\n" in text
    # no empty prompt left above a picture (the last is the quit's, after the typed q)
    assert "> \n" not in text.removesuffix("> \n")


def test_every_lamp_has_its_own_mark_in_the_picture() -> None:
    """A lamp added to hardware/display.py without a mark would stop the
    picture with a KeyError only when a game first lights it."""
    assert set(LAMP_MARKS) == set(Lamp)
    assert len(set(LAMP_MARKS.values())) == len(LAMP_MARKS)
