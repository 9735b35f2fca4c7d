"""The page's controls for the computer, without a browser: the opponent, its
level and a hint, through the referee's command path (journalled, replayed
after a restart), for paired browsers only; and the terminal simulator
redrawing when a command comes from the page."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import parse_config
from controller.i18n.text import LANGUAGES
from controller.referee.commands import HintAsked, LevelChosen, OpponentChosen
from controller.referee.core import Referee
from controller.referee.core import Table as RefereeTable
from controller.simulator.simulation import Simulation
from controller.simulator.terminal import interact
from controller.store.eventcodec import CodecError, decode, encode
from controller.store.journal import Journal
from engine.colour import Colour
from tests.webclient import WIN, Table

CONTROLS: list[tuple[str, dict[str, Any]]] = [
    ("/api/opponent", {"plays": "yellow"}),
    ("/api/level", {"level": 3}),
    ("/api/hint", {}),
]


@pytest.fixture
def quick(tmp_path: Path) -> Any:
    """A served table whose computer thinks for at most 0.3 s (real time:
    the simulator's thinker searches at once)."""
    served = Table(tmp_path / "state", opponent={"think_ms": 300})
    try:
        yield served
    finally:
        served.close()


def journalled(table: Table) -> list[str]:
    records = Journal(table.sim.state_dir / "journal").load().records
    return [str(record.get("e")) for record in records if "e" in record]


# -- the opponent --------------------------------------------------------------------------


def test_the_opponent_sits_now_before_the_first_move_else_from_the_next_game(
    quick: Table,
) -> None:
    token = quick.pair()
    status, answer = quick.post("/api/opponent", {"plays": "yellow"}, token=token)
    assert status == 202
    assert answer["plays"] == "yellow"
    assert answer["said"] == ["This game: the computer plays Yellow."]
    state = quick.get_json("/api/state")
    assert state["opponent"] == "yellow" and state["next_opponent"] == "yellow"
    assert state["level"] == 5  # the configured level
    quick.act("drop 4")  # the computer answers at once in the simulator
    state = quick.get_json("/api/state")
    assert state["computer"] is not None and state["to_move"] == "yellow"
    assert "computer-drop" in state["lights"] or "computer-pop" in state["lights"]
    status, answer = quick.post("/api/opponent", {"plays": "none"}, token=token)
    assert answer["said"] == ["The next game: two players."]
    state = quick.get_json("/api/state")
    assert state["opponent"] == "yellow" and state["next_opponent"] is None
    # the same choice again changes nothing and says nothing
    assert quick.post("/api/opponent", {"plays": "none"}, token=token)[1]["said"] == []
    # journalled: the first choice began the game afresh (a snapshot), the second is a record
    assert journalled(quick) == ["drop", "opponent"]


def test_the_page_and_the_double_press_choose_the_same_opponent(quick: Table) -> None:
    token = quick.pair()
    quick.act("double")  # between games: two players -> the computer as Yellow
    assert quick.get_json("/api/state")["next_opponent"] == "yellow"
    quick.post("/api/opponent", {"plays": "red"}, token=token)
    quick.act("double")  # the button goes on from what the page chose: red -> none
    state = quick.get_json("/api/state")
    assert state["next_opponent"] is None and state["opponent"] is None


# -- the level -----------------------------------------------------------------------------


def test_the_level_applies_now_before_the_first_move_else_next_game(quick: Table) -> None:
    token = quick.pair()
    quick.post("/api/opponent", {"plays": "red"}, token=token)
    status, answer = quick.post("/api/level", {"level": 2}, token=token)
    assert status == 202 and answer["said"] == ["This game: the computer plays at level 2."]
    state = quick.get_json("/api/state")
    assert state["level"] == 2 and state["next_level"] == 2
    assert state["computer"] is not None  # Red moves first: it has chosen at level 2
    quick.act(f"drop {state['computer']}", "drop 3")
    status, answer = quick.post("/api/level", {"level": 10}, token=token)
    assert answer["said"] == ["The next game: the computer plays at level 10."]
    state = quick.get_json("/api/state")
    assert state["level"] == 2 and state["next_level"] == 10
    assert quick.post("/api/new", {"confirm": True}, token=token)[0] == 202
    state = quick.get_json("/api/state")
    assert state["game_number"] == 2 and state["level"] == 10


def test_the_chosen_level_survives_a_restart_and_a_config_change_overrides_it(
    tmp_path: Path,
) -> None:
    state_dir = tmp_path / "state"
    table = Table(state_dir)
    token = table.pair()
    table.act("drop 4")
    table.post("/api/level", {"level": 7}, token=token)
    table.close()
    kinds = [r.get("e") for r in Journal(state_dir / "journal").load().records]
    assert kinds[-1] == "level"
    again = Simulation(parse_config({}, "test"), state_dir)
    try:
        assert again.state("x")["next_level"] == 7  # the configuration did not change
    finally:
        again.close()
    changed = Simulation(parse_config({"opponent": {"level": 4}}, "test"), state_dir)
    try:
        assert changed.state("x")["next_level"] == 4
    finally:
        changed.close()


# -- the hint ------------------------------------------------------------------------------


def test_a_hint_lights_its_column_on_the_board_and_the_page_for_a_few_seconds(
    quick: Table,
) -> None:
    token = quick.pair()
    quick.act("drop 4")
    status, answer = quick.post("/api/hint", {}, token=token)
    assert status == 202 and answer["said"] == ["Yellow asked for a hint."]
    # in every language too, so the page can say it again after a language change
    assert set(answer["said_in"]) == set(LANGUAGES) and answer["said_in"]["en"] == answer["said"]
    assert answer["said_in"]["it"] == ["Giallo ha chiesto un suggerimento."]
    state = quick.get_json("/api/state")
    hint = state["hint"]
    assert hint is not None and state["status"].startswith("Hint for Yellow")
    lit = [i + 1 for i, lamp in enumerate(state["lights"]) if lamp != "off"]
    assert lit == [int(hint.lstrip("p"))] and state["colours"][lit[0] - 1] == "yellow"
    # the board's own lights (the simulated grid's pins) show the same column
    shown = quick.sim.lights.shown()
    assert [i + 1 for i, look in enumerate(shown.columns) if look] == lit
    assert "hint" in journalled(quick)
    quick.act("wait 6000")
    state = quick.get_json("/api/state")
    assert state["hint"] is None and state["lights"] == ["drop"] * 7


def test_no_hint_on_the_computers_turn_or_after_the_game(quick: Table) -> None:
    token = quick.pair()
    quick.act(*WIN)
    assert quick.post("/api/hint", {}, token=token)[1]["said"] == ["No hint: the game is over."]
    quick.act("slider open", "slider close")
    quick.post("/api/opponent", {"plays": "red"}, token=token)
    said = quick.post("/api/hint", {}, token=token)[1]["said"]
    assert said == ["No hint: it is the computer's move."]
    assert quick.get_json("/api/state")["hint"] is None


# -- who may, and bad values ---------------------------------------------------------------


@pytest.mark.parametrize(("path", "body"), CONTROLS)
def test_an_unpaired_browser_gets_403(table: Table, path: str, body: dict[str, Any]) -> None:
    before = table.get_json("/api/state")
    for token in (None, "not-a-token"):
        status, answer = table.post(path, body, token=token)
        assert status == 403 and "mode button" in answer["error"]
    assert table.get_json("/api/state") == before
    assert "opponent" not in journalled(table) and "hint" not in journalled(table)


@pytest.mark.parametrize(
    ("path", "body", "reason"),
    [
        ("/api/opponent", {"plays": "blue"}, 'plays must be "red", "yellow" or "none"'),
        ("/api/opponent", {}, 'plays must be "red", "yellow" or "none"'),
        ("/api/opponent", {"plays": None}, 'plays must be "red", "yellow" or "none"'),
        ("/api/level", {"level": 0}, "level must be a whole number from 1"),
        ("/api/level", {"level": 11}, "level must be a whole number from 1"),
        ("/api/level", {"level": "5"}, "level must be a whole number from 1"),
        ("/api/level", {"level": 5.5}, "level must be a whole number from 1"),
        ("/api/level", {"level": True}, "level must be a whole number from 1"),
        ("/api/hint", [], "send a JSON object"),
    ],
)
def test_bad_values_get_400_and_one_line(table: Table, path: str, body: Any, reason: str) -> None:
    token = table.pair()
    before = table.get_json("/api/state")
    status, answer = table.post(path, body, token=token)
    assert status == 400 and answer["error"].startswith(reason)
    assert "\n" not in answer["error"]
    assert table.get_json("/api/state") == before


# -- the referee and the journal -----------------------------------------------------------


def test_the_new_commands_travel_the_journal_codec() -> None:
    for command in (
        OpponentChosen(Colour.RED, 1.0),
        OpponentChosen(None, 2.0),
        LevelChosen(7, 3.0),
        HintAsked(4.0),
    ):
        assert decode(encode(command)) == command
    for damaged in (
        {"e": "opponent", "plays": "blue", "at": 1.0},
        {"e": "level", "level": 11, "at": 1.0},
        {"e": "level", "at": 1.0},
    ):
        with pytest.raises(CodecError):
            decode(damaged)


def test_the_referee_takes_the_commands_as_the_button_would() -> None:
    referee = Referee(RefereeTable(computer_level=5), "classic")
    verdict = referee.handle(OpponentChosen(Colour.YELLOW, 1.0))
    assert verdict.changed and verdict.new_game and referee.computer is not None
    assert referee.handle(LevelChosen(3, 2.0)).log == ("This game: the computer plays at level 3.",)
    assert referee.computer is not None and referee.computer.level == 3
    assert not referee.handle(LevelChosen(3, 3.0)).changed
    verdict = referee.handle(HintAsked(4.0))  # before the first move, Red may ask
    assert verdict.hint and verdict.log == ("Red asked for a hint.",)


# -- the terminal simulator ----------------------------------------------------------------


class Screen(io.StringIO):
    """A terminal that says when the prompt is shown."""

    def __init__(self) -> None:
        super().__init__()
        self.prompted = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if text.endswith("> "):
            self.prompted.set()
        return written


def test_the_terminal_redraws_when_a_command_comes_from_the_page(table: Table) -> None:
    token = table.pair()
    reading, writing = os.pipe()
    out = Screen()
    with os.fdopen(reading) as stdin:
        player = threading.Thread(target=interact, args=(table.sim, stdin, out))
        player.start()
        try:
            assert out.prompted.wait(10)  # the player is at the prompt
            assert table.post("/api/rules", {"rules": "pop10"}, token=token)[0] == 202
            # drawn before the page's answer: the page's thread draws it
            redrawn = out.getvalue().split("(from the web page)")
            assert len(redrawn) == 2 and "Pop 10" in redrawn[1]
            assert redrawn[1].endswith("\n> ")
            table.post("/api/opponent", {"plays": "yellow"}, token=token)
            assert out.getvalue().count("(from the web page)") == 2
        finally:
            os.write(writing, b"q\n")
            os.close(writing)
            player.join(timeout=10)
    assert not player.is_alive()
