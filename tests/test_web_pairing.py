"""Pairing is deliberate (issue 19, item 3): the asking page and the board
show the same code, and only a press made once the code has shown for a
while grants it. A press meant for something else (choosing rules as the
request came in) or a hold refuses it, says so, and does its usual job."""

from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from controller.daemon.config import parse_config
from controller.referee.commands import PAIRING_WINDOW, PairingRequested
from controller.referee.core import Referee
from controller.referee.core import Table as RefereeTable
from controller.referee.pairing_window import LOOK, Answer, PairingWindow
from controller.referee.view import display
from controller.simulator.simulation import Simulation
from controller.store.journal import Journal
from controller.store.persist import restore, snapshot
from controller.web.pairing import new_code
from hardware.display import ColumnLight, Lamp
from hardware.events import ButtonHeld, ButtonPressed
from tests.webclient import LOOKED, Table

REFUSED = "The mode button refused the pairing request: the browser was not paired."


def test_a_press_as_the_request_arrives_refuses_it_and_chooses_rules(table: Table) -> None:
    """The attack: a page asks to pair just before someone presses the mode
    button to choose the rules of the next game."""
    status, asked = table.post("/api/pair", {})
    assert status == 202
    table.act("press")  # at once, long before the code could be compared
    state = table.get_json("/api/state")
    assert not state["pairing"] and state["next_rules"] == "popout"  # what the press was for
    status, answer = table.post("/api/pair/claim", {"request": asked["request"]})
    assert status == 410 and "not paired" in answer["error"]
    assert table.get_json("/api/session") == {"paired": False, "watch": True}
    # the refused browser hears it at once, and may ask again at once
    assert table.post("/api/pair", {})[0] == 202


def test_a_hold_refuses_a_request_and_starts_the_next_game(table: Table) -> None:
    _, asked = table.post("/api/pair", {})
    table.act(LOOKED, "hold")  # a deliberate no, however long the code has shown
    assert table.post("/api/pair/claim", {"request": asked["request"]})[0] == 410
    state = table.get_json("/api/state")
    assert not state["pairing"] and state["game_number"] == 2  # what the hold was for


def test_a_press_once_the_code_has_shown_pairs_and_chooses_nothing(table: Table) -> None:
    _, asked = table.post("/api/pair", {})
    table.act(f"wait {round(LOOK * 1000) - 100}")
    assert table.get_json("/api/state")["pairing"]  # still showing, not yet long enough
    table.act("wait 100", "press")
    status, claimed = table.post("/api/pair/claim", {"request": asked["request"]})
    assert status == 200 and table.get_json("/api/session", token=claimed["token"])["paired"]
    assert table.get_json("/api/state")["next_rules"] == "classic"


def test_a_claim_with_an_id_of_another_form_is_refused_and_the_request_still_pairs(
    table: Table,
) -> None:
    """The attack: a non-ASCII id made the comparison raise, and the claim
    got no answer at all (the connection closed, a warning logged)."""
    _, asked = table.post("/api/pair", {})
    request = asked["request"]
    for wrong in ("\u00e9" * 4, "\u00e9" * len(request), "\u00e9" + request[1:], request[:-1], ""):
        status, headers, raw = table.request("POST", "/api/pair/claim", {"request": wrong})
        assert status == 400, wrong
        assert headers["Content-Type"] == "application/json" and b"\n" not in raw
        assert json.loads(raw)["error"] == 'send {"request": ID} from POST /api/pair'
    # none of them ended the pending request
    table.act(LOOKED, "press")
    status, claimed = table.post("/api/pair/claim", {"request": request})
    assert status == 200 and table.get_json("/api/session", token=claimed["token"])["paired"]


def test_the_board_and_the_page_show_the_same_code_and_it_is_journalled(tmp_path: Path) -> None:
    table = Table(tmp_path / "state")
    try:
        _, asked = table.post("/api/pair", {})
        code = asked["code"]
        state = table.get_json("/api/state")
        assert [i + 1 for i, lamp in enumerate(state["lights"]) if lamp == "chosen"] == code
        assert f"columns {', '.join(map(str, code))} lit" in state["status"]
        table.act(LOOKED, "press")
    finally:
        table.close()
    journal = Journal(tmp_path / "state" / "journal")
    pairs = [r for r in journal.load().records if r.get("e") == "pair"]
    journal.close()
    assert [r["code"] for r in pairs] == [code]
    # replayed, the press paired again rather than choosing rules
    again = Simulation(parse_config({}, "test"), tmp_path / "state")
    try:
        assert again.state("x")["next_rules"] == "classic"
    finally:
        again.close()


def test_a_new_request_shows_a_new_code() -> None:
    rng = random.Random(7)
    before: tuple[int, ...] = ()
    for _ in range(200):
        code = new_code(7, rng, before)
        assert code != before and 2 <= len(code) <= 5 and list(code) == sorted(set(code))
        before = code


def test_a_pending_request_survives_a_snapshot_with_its_code() -> None:
    referee = Referee(RefereeTable(), "classic")
    referee.handle(PairingRequested((1, 4, 6), at=90.0))
    restored = restore(RefereeTable(), snapshot(referee))
    assert restored.pairing.since == 90.0 and restored.pairing.code == (1, 4, 6)
    lamps = [light.lamp for light in display(restored).columns]
    assert lamps == [Lamp.CHOSEN, Lamp.OFF, Lamp.OFF, Lamp.CHOSEN, Lamp.OFF, Lamp.CHOSEN, Lamp.OFF]
    restored.restarted()  # a restart forgets the old clock, and the request with it
    assert restored.pairing_since is None and display(restored).columns[1] != ColumnLight()


@given(
    asked=st.floats(0, 1000),
    after=st.floats(0, 2 * PAIRING_WINDOW),
    hold=st.booleans(),
)
def test_only_a_press_between_the_look_and_the_window_pairs(
    asked: float, after: float, hold: bool
) -> None:
    referee = Referee(RefereeTable(), "classic")
    referee.handle(PairingRequested((2, 3), at=asked))
    button = ButtonHeld(at=asked + after) if hold else ButtonPressed(at=asked + after)
    verdict = referee.handle(button)
    deliberate = not hold and LOOK <= (asked + after) - asked <= PAIRING_WINDOW
    assert verdict.paired == deliberate
    in_window = (asked + after) - asked <= PAIRING_WINDOW
    assert (REFUSED in verdict.log) == (in_window and not deliberate)
    if not deliberate and not hold:  # the press did its usual job
        assert referee.next_rules == "popout"
    if in_window:
        assert referee.pairing_since is None


def test_the_window_answers_each_press_once() -> None:
    window = PairingWindow()
    assert window.pressed(1.0) is Answer.NONE and window.pressed(1.0, held=True) is Answer.NONE
    window.request(at=5.0, code=(1, 2))
    assert window.pressed(6.0) is Answer.REFUSED
    assert window.pressed(9.0) is Answer.NONE  # refused: nothing pending any more
    window.request(at=10.0, code=(1, 2))
    assert window.pressed(20.0, held=True) is Answer.REFUSED
