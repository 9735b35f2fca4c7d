"""POST /api/takeback (issue 23): a paired browser takes the last move back,
the board's lights and the page's state lead the grid back, the journal
holds it; anyone else, and any other body, is refused and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from controller.i18n.text import LANGUAGES
from tests.test_web_controls import journalled
from tests.webclient import WIN, Table


def test_a_paired_browser_takes_back_the_winning_move_and_the_lights_lead_back(
    table: Table,
) -> None:
    token = table.pair()
    table.act(*WIN)
    assert table.get_json("/api/state")["result"] == "red"
    status, answer = table.post("/api/takeback", {}, token=token)
    assert status == 202
    assert answer["said"] == [
        "Taken back: Red's drop into column 1. Take the grid back as the lights show."
    ]
    assert set(answer["said_in"]) == set(LANGUAGES)
    state = table.get_json("/api/state")
    assert state["result"] is None and state["to_move"] == "red" and len(state["moves"]) == 6
    assert state["lights"][0] == "error" and "takeback" in journalled(table)
    # the simulated grid's own pins light the same column
    assert [i + 1 for i, look in enumerate(table.sim.lights.shown().columns) if look] == [1]
    table.act("pop 1")  # the bottom Red disc out: the top one falls into its place
    state = table.get_json("/api/state")
    assert state["fault"] is None and state["lights"] == ["drop"] * 7
    table.act("drop 3")
    assert table.get_json("/api/state")["moves"][-1] == "3"


def test_nothing_to_take_back_is_said_and_journals_nothing(table: Table) -> None:
    token = table.pair()
    status, answer = table.post("/api/takeback", {}, token=token)
    assert status == 202
    assert answer["said"] == ["Nothing to take back: no move has been made in this game."]
    assert "takeback" not in journalled(table)


@pytest.mark.parametrize("path", ["/api/takeback", "/api/takeback/decline"])
def test_an_unpaired_browser_gets_403_and_the_game_stays(table: Table, path: str) -> None:
    table.act("drop 4")
    before = table.get_json("/api/state")
    for token in (None, "not-a-token"):
        status, answer = table.post(path, {}, token=token)
        assert status == 403 and "mode button" in answer["error"]
    assert table.get_json("/api/state") == before
    assert not {"takeback", "takeback-no"} & set(journalled(table))


def test_declining_with_nothing_asked_says_so(table: Table) -> None:
    token = table.pair()
    table.act("drop 4")
    status, answer = table.post("/api/takeback/decline", {}, token=token)
    assert status == 202
    assert answer["said"] == ["Nothing to decline: nobody asks to take a move back."]
    assert "takeback-no" not in journalled(table)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ([], "send a JSON object"),
        ({"moves": 2}, "unknown field 'moves'"),
    ],
)
def test_any_other_body_gets_400_and_one_line(table: Table, body: Any, reason: str) -> None:
    token = table.pair()
    table.act("drop 4")
    before = table.get_json("/api/state")
    status, answer = table.post("/api/takeback", body, token=token)
    assert status == 400 and answer["error"].startswith(reason) and "\n" not in answer["error"]
    assert table.get_json("/api/state") == before
