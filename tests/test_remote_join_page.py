"""A link given to the joining grid's page (issue 23: "the link of the
remote seat, given to B's page"), against a real Mosquitto: grid B, a plain
daemon with no ``[remote]`` of its own, joins grid A's game with no restart,
keeps the link through a restart, and plays on its own again once that
game is over there and a new one begins here; its next link is given the
same way. Refusals are one sentence each, and the page's box does it all
in a phone-sized Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.daemon.config import parse_config
from controller.referee.commands import RulesChosen
from controller.referee.verdict import Verdict
from controller.remote.link import parse_link
from controller.simulator.simulation import Simulation
from controller.store.joined import FILE, stored
from engine.colour import Colour
from tests.broker import Mosquitto
from tests.browser import By, needs_chromium, pair_page, text, wait
from tests.test_remote_linked import RED_WINS, both, grid_a, linked, waits
from tests.test_remote_page import Running
from tests.test_remote_seat import act
from tests.webclient import Table

pytestmark = pytest.mark.slow


def grid_b(state_dir: Path, **tables: Any) -> Simulation:
    """A grid with nothing of the other's in its configuration."""
    return Simulation(parse_config(dict(tables), "b.toml"), state_dir)


def join(sim: Simulation, link: str) -> Verdict:
    verdicts: list[Verdict] = []
    sim.join(parse_link(link), verdicts.append)
    assert len(verdicts) == 1  # taken at once: the simulation steps the daemon
    return verdicts[0]


def join_up(a: Simulation, b: Simulation) -> None:
    """B's page is given A's link, and the link is up on both grids."""
    assert join(b, a.links[-1]).declined is None
    assert both(a, b, lambda: linked(a, b))


def play(a: Simulation, b: Simulation, moves: tuple[str, ...], first: int = 1) -> None:
    """Each move made on its owner's grid (Red's on A), then copied on the other."""
    for ply, move in enumerate(moves, start=first):
        owner, copier = (a, b) if ply % 2 else (b, a)
        act(owner, f"drop {move}")
        assert both(a, b, waits(copier, move)), copier.daemon.state()
        act(copier, f"drop {move}")
        assert len(copier.daemon.referee.game.moves) == ply


def test_a_link_given_on_the_page_joins_keeps_and_parts(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a", rules="popout")
    b = grid_b(tmp_path / "b", game={"rules": "pop10", "repetition": 3})
    try:
        verdict = join(b, a.links[-1])
        assert verdict.declined is None and verdict.changed
        assert "it plays Yellow, in Pop Out" in verdict.log[-1]
        state = b.daemon.state()
        assert state["linked"] == "joined" and state["rules"] == "popout"
        assert b.daemon.referee.game.rules.repetition is None  # the link's house rules
        assert (tmp_path / "b" / FILE).stat().st_mode & 0o777 == 0o600
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS[:2])
        b.close()
        # a restart joins the same game again, from the kept link
        b = grid_b(tmp_path / "b", game={"rules": "pop10", "repetition": 3})
        assert b.daemon.state()["linked"] == "joined"
        assert b.daemon.state()["moves"] == ["4", "5"]
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS[2:], first=3)
        assert a.daemon.state()["result"] == b.daemon.state()["result"] == "red"
        # A's next game is on the same link: B follows it by itself, and keeps it
        old = a.links[-1]
        act(a, "slider open", "slider close")
        assert both(a, b, lambda: stored(tmp_path / "b") == a.links[-1] != old)
        act(b, "slider open", "slider close")
        assert both(a, b, lambda: linked(a, b))
        assert b.daemon.state()["moves"] == [] and b.daemon.state()["rules"] == "popout"
        play(a, b, ("1", "2"))
        # A abandons that game midway: its new link is not B's, and B is its own again
        act(a, "hold", "hold", "slider open", "slider close")
        act(b, "hold", "hold", "slider open", "slider close")  # B's game, its own now, ends
        assert both(a, b, lambda: b.daemon.guest is None)
        own = b.daemon.state()
        assert own["linked"] is None and own["fault"] is None and own["moves"] == []
        assert own["rules"] == "pop10" and b.daemon.referee.game.rules.repetition == 3
        assert not (tmp_path / "b" / FILE).exists()
        # the next link, given the same way
        join_up(a, b)
        play(a, b, ("1", "2"))
    finally:
        b.close()
        a.close()


def test_both_grids_say_what_the_next_game_needs(mosquitto: Mosquitto, tmp_path: Path) -> None:
    """Game after game as a family plays it, whichever grid is emptied
    first: B waits for A's next game and joins it on the same link (not left
    with "the link is up" over the last game); when A abandons a game
    instead, B's people are told to join its new link, and B back on its own
    says how to play on together."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b")
    try:
        assert join(b, a.links[-1]).declined is None
        again = [str(sentence) for sentence in join(b, a.links[-1]).log]
        assert again == ["This grid already plays that game, as Yellow."]
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS)
        act(b, "slider open", "slider close")  # B emptied first: it waits for A's next game
        waiting = "joins its next game when that grid begins it"
        assert waiting in str(b.daemon.state()["status"])
        act(a, "slider open", "slider close")  # A's next game, on the same link
        assert both(a, b, lambda: linked(a, b))
        said = b.daemon.state()
        assert said["linked"] == "joined" and said["fault"] is None and said["moves"] == []
        assert "began its next game on the same link" in str(said["status"])
        assert a.daemon.state()["linked"] == "inviting"
        play(a, b, RED_WINS[:2])
        assert "same link" not in str(b.daemon.state()["status"])  # said until a move
        act(a, "hold", "hold", "slider open", "slider close")  # A abandons: a new link
        spent = "join the link of its next game"
        assert both(a, b, lambda: spent in str(b.daemon.state()["fault"]))
        said = b.daemon.state()
        assert said["link"] == "down"
        state = a.daemon.state()
        assert state["linked"] is None and state["link"] == "up" and state["fault"] is None
        act(b, "hold", "hold", "slider open", "slider close")  # B's own game, emptied
        own = b.daemon.state()
        assert own["linked"] is None and own["fault"] is None
        assert str(own["status"]).startswith("This grid plays on its own again:")
        act(b, "drop 4")  # said until its own game's first move
        assert "on its own again" not in str(b.daemon.state()["status"])
        act(b, "slider open", "slider close", "hold")  # its own game abandoned
        assert b.daemon.state()["moves"] == []
        assert "on its own again" not in str(b.daemon.state()["status"])
        join_up(a, b)
        assert a.daemon.state()["linked"] == "inviting"
        play(a, b, RED_WINS[:2])
    finally:
        b.close()
        a.close()


def test_the_grid_emptied_second_takes_the_rules_chosen_for_the_next_game(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """Found by a families' walk: A emptied first, B still showing the
    finished game said it plays the next "in Classic; open the slider to
    begin"; A's owner then chose Pop Out, and B said Classic until its
    slider, then "open the slider to begin" until its first move."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b")
    try:
        join_up(a, b)
        play(a, b, RED_WINS)
        act(a, "slider open", "slider close")  # A's next game, on the same link
        followed = "this grid plays Yellow again, in Classic."
        assert both(a, b, lambda: followed in str(b.daemon.state()["status"]))
        # the finished game's own sentence says to open the slider, once
        assert str(b.daemon.state()["status"]).count("slider") == 1
        a.daemon.submit(RulesChosen("popout"))  # as A's page chooses them
        said = "The other grid chose Pop Out for this game: this grid plays it too."
        assert both(a, b, lambda: said in str(b.daemon.state()["status"]))
        assert b.daemon.referee.next_rules == "popout"
        act(b, "slider open", "slider close")
        assert both(a, b, lambda: linked(a, b))
        state = b.daemon.state()
        assert state["rules"] == "popout" and state["moves"] == []
        assert "slider" not in str(state["status"])
        play(a, b, RED_WINS)
        assert a.daemon.state()["result"] == b.daemon.state()["result"] == "red"
    finally:
        b.close()
        a.close()


def test_a_finished_game_shows_no_fault_while_the_other_grid_waits(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """B's people empty their grid after the linked game: A's finished game
    has no move to wait for, so no "play goes on when it is back" with the
    error alert; B's people may play a game of their own meanwhile, and the
    old link given again on B's empty grid leads to A's next game."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b")
    try:
        old = a.links[-1]
        assert join(b, old).declined is None
        assert both(a, b, lambda: linked(a, b))
        play(a, b, RED_WINS)
        act(b, "slider open", "slider close", "drop 4")  # a game of B's own
        own = str(b.daemon.state()["status"])
        assert "same link" not in own and own.startswith("This game is this grid's own:")
        assert b.daemon.state()["remote"] is None and b.daemon.state()["moves"] == ["4"]
        assert a.daemon.state()["fault"] is None and a.daemon.state()["result"] == "red"
        act(b, "slider open", "slider close", "hold")  # and abandoned
        act(a, "slider open", "slider close")
        assert both(a, b, lambda: linked(a, b))
        state = a.daemon.state()
        assert state["linked"] == "inviting" and state["fault"] is None
        # the old link given again on B's empty grid: the game it leads to now
        assert join(b, old).declined is None
        assert both(a, b, lambda: stored(tmp_path / "b") == a.links[-1])
    finally:
        b.close()
        a.close()


def die(sim: Simulation) -> None:
    """As ``kill -9`` leaves it: the grid's broker connection ends with no
    goodbye (the broker publishes its will) and is never made again."""
    remote = sim.daemon.remote
    assert remote is not None
    remote.connection._client.reconnect_delay_set(3600, 3600)
    remote.connection.reconnect()


def test_the_inviting_grid_gone_for_good_is_seen_in_any_game(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A's will is left with its connection: made for the first game's
    invitation, it told nobody in a later game that A was gone (B's page said
    "the link is up" for good, and nothing said to leave). Each invitation
    now renews the connection, with no loss shown on A meanwhile."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b")
    try:
        join_up(a, b)
        play(a, b, RED_WINS)
        shown: list[str | None] = []
        a.daemon.on_state = lambda state: shown.append(state["fault"])
        act(a, "slider open", "slider close")  # A's next game, a new link
        act(b, "slider open", "slider close")
        join_up(a, b)
        assert not any("link to the other side" in str(fault) for fault in shown)
        play(a, b, RED_WINS[:2])
        die(a)  # as kill -9, or a laptop's battery
        assert both(a, b, lambda: b.daemon.state()["link"] == "down")
    finally:
        b.close()
        a.close()


def test_a_grid_says_in_one_sentence_why_it_may_not_join_now(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    busy = grid_b(tmp_path / "busy")
    remote = {"broker": mosquitto.url}
    inviting = Simulation(
        parse_config({"remote": remote}, "c.toml"), tmp_path / "inviting", remote=Colour.RED
    )
    try:
        act(busy, "drop 4")
        declined = join(busy, a.links[-1]).declined
        assert declined is not None and str(declined.reason).startswith(
            "A game is in progress on this grid: finish it or begin a new one"
        )
        assert busy.daemon.state()["linked"] is None
        assert not (tmp_path / "busy" / FILE).exists()
        declined = join(inviting, a.links[-1]).declined
        assert declined is not None and "revoke the invitation" in str(declined.reason)
        assert inviting.daemon.guest is None
    finally:
        inviting.close()
        busy.close()
        a.close()


def leave(sim: Simulation) -> Verdict:
    verdicts: list[Verdict] = []
    sim.leave(verdicts.append)
    assert len(verdicts) == 1
    return verdicts[0]


def test_the_owner_leaves_a_linked_game_whose_other_grid_is_gone(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b", game={"rules": "pop10"})
    try:
        declined = leave(b).declined
        assert declined is not None and str(declined.reason) == (
            "This grid has joined no other grid's game."
        )
        join_up(a, b)
        play(a, b, RED_WINS[:2])
        a.close()  # gone for good: B's linked game could never end
        left = leave(b)
        assert left.declined is None and "left the other grid's game" in left.log[-1]
        own = b.daemon.state()
        assert own["linked"] is None and own["remote"] is None and own["moves"] == ["4", "5"]
        assert not (tmp_path / "b" / FILE).exists()
        act(b, "drop 4")  # Red's move, A's colour before, made here now
        assert b.daemon.state()["moves"] == ["4", "5", "4"]
        b.close()
        b = grid_b(tmp_path / "b", game={"rules": "pop10"})
        assert b.daemon.state()["linked"] is None
        assert b.daemon.referee.next_rules == "pop10"  # the next game is as B was set up
    finally:
        b.close()
        a.close()


def test_a_grid_started_again_after_the_other_left_meanwhile_says_the_link_is_down(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A was stopped while B's owner left the game: back, A had heard nothing
    of it and said "Waiting for your friend" with the link up for good. Each
    side's presence is retained on the broker, so A hears B's last word as
    it subscribes."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b")
    try:
        join_up(a, b)
        play(a, b, RED_WINS[:2])
        a.close()
        assert leave(b).declined is None
        a = grid_a(mosquitto, tmp_path / "a")  # from its journal: the same game and link
        # "down" at first too, until A reaches the broker: then B's word says why
        assert both(a, b, lambda: a.daemon.state()["linked"] == "inviting")
        assert a.daemon.state()["link"] == "down" and a.daemon.state()["moves"] == ["4", "5"]
    finally:
        b.close()
        a.close()


def test_a_game_under_way_past_this_grids_first_move_is_not_joined_midway(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """Found by the households' walk: B left, began afresh and pasted the same
    link while A's game went on; B's own earlier moves were never lit, and
    the two grids held two games, said only in the log."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b")
    try:
        join_up(a, b)
        play(a, b, RED_WINS[:3])
        assert leave(b).declined is None
        act(b, "slider open", "slider close", "hold")  # B's own game abandoned
        assert b.daemon.state()["moves"] == []
        assert join(b, a.links[-1]).declined is None
        said = "That game is under way on the other grid (3 moves made)"
        assert both(a, b, lambda: said in str(b.daemon.state()["status"]))
        state = b.daemon.state()
        assert state["linked"] is None and state["remote"] is None and state["moves"] == []
        assert b.daemon.guest is None and not (tmp_path / "b" / FILE).exists()
        act(b, "drop 1")  # its own game, Red first, and the sentence gives way
        assert said not in str(b.daemon.state()["status"])
    finally:
        b.close()
        a.close()


def test_a_grid_joined_by_its_configuration_is_left_there(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(tmp_path / "b", remote={"join": a.links[-1]})
    try:
        declined = leave(b).declined
        assert declined is not None and "remove [remote] join" in str(declined.reason)
        assert b.daemon.state()["linked"] == "joined"
    finally:
        b.close()
        a.close()


def test_the_page_refuses_what_is_not_a_link_and_asks_for_pairing(tmp_path: Path) -> None:
    table = Table(tmp_path / "state")
    try:
        status, answer = table.post("/api/remote/join", {"link": "http://x/remote#v=1"})
        assert status == 403
        token = table.pair()
        status, answer = table.post("/api/remote/join", {"link": "http://x/remote#v=1"}, token)
        assert status == 400
        # what is wrong in the link's words, within a sentence of the catalogs
        assert answer["error"] == (
            "That is not the other grid's whole invitation link (the link is cut short: it "
            "has no game (g); copy all of it). Copy it again with the Copy the link button on "
            "that grid's page, and paste all of it."
        )
        status, answer = table.post("/api/remote/join", {"link": " \n "}, token)
        assert status == 400 and answer["error"].startswith(
            "Paste the other grid's invitation link first"
        )
        status, answer = table.post("/api/remote/join", {"link": 4}, token)
        assert status == 400 and "invitation link" in answer["error"]
        status, answer = table.post("/api/remote/leave", {}, token)
        assert status == 409 and answer["error"] == "This grid has joined no other grid's game."
    finally:
        table.close()


@needs_chromium
def test_the_joining_grids_page_takes_the_link(
    browser: Any, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    b = Table(tmp_path / "b")
    stepping = [Running(a), Running(b.sim)]
    try:
        browser.get(b.web.url)
        pair_page(browser, b)
        wait(browser, lambda d: d.find_element(By.ID, "join").is_displayed(), "the join box")
        browser.find_element(By.ID, "join-link").send_keys(a.links[-1])
        browser.find_element(By.ID, "join").click()
        wait(browser, lambda d: "it plays Yellow" in text(d, "message"), "the board's word")
        wait(browser, lambda d: text(d, "linked").startswith("Linked with another grid"), "linked")
        assert not browser.find_element(By.ID, "invite-box").is_displayed()
        assert not browser.find_element(By.ID, "rules-choice").is_displayed()
        assert browser.find_element(By.ID, "leave").is_displayed()
        # a second tap once it joined (the box is empty again): what it said stays
        browser.find_element(By.ID, "join").click()
        assert "it plays Yellow" in text(browser, "message")
        with a.lock:
            act(a, "drop 4")
        # A's move, lit on B for its person to copy, as the page says it
        wait(browser, lambda d: "column 4" in text(d, "status"), "A's move to copy")
    finally:
        for each in stepping:
            each.close()  # before the daemons they step
        b.close()
        a.close()


@needs_chromium
def test_the_inviting_grids_page_shows_each_new_games_link(
    browser: Any, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """Each game of a grid that invites in every game has a link of its own:
    the page shows the new one, so its Copy the link never copies the last
    game's (a grid joining with it would find its game over)."""
    remote = {"broker": mosquitto.url, "web_broker": mosquitto.ws_url, "plays": "yellow"}
    a = Table(tmp_path / "a", remote=remote)
    stepping = Running(a.sim)
    try:
        browser.get(a.web.url)
        pair_page(browser, a)
        field = browser.find_element(By.ID, "invite-link")
        wait(browser, lambda d: field.get_attribute("value").startswith("http"), "the link")
        with a.sim.lock:
            first = a.sim.daemon.remote.current_link() if a.sim.daemon.remote else None
        assert first is not None and field.get_attribute("value") == first
        with a.sim.lock:
            a.act("drop 4")
        browser.find_element(By.ID, "new-game").click()
        wait(browser, lambda d: d.find_element(By.ID, "confirm-yes").is_displayed(), "confirm")
        browser.find_element(By.ID, "confirm-yes").click()
        wait(browser, lambda d: "New game" in text(d, "message"), "the next game")
        with a.sim.lock:
            second = a.sim.daemon.remote.current_link() if a.sim.daemon.remote else None
        assert second is not None and second != first
        wait(browser, lambda d: field.get_attribute("value") == second, "the next game's link")
    finally:
        stepping.close()
        a.close()


@needs_chromium
def test_the_joining_pages_answers_give_way_to_what_came_of_them(
    browser: Any, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """What a control's answer said stays until the game moves on past it:
    "This grid joins the other grid's game" once that link turned out spent
    (its game was over: the status says so), and "Asked the other side to
    take back ..." once both grids took the move back."""
    a = grid_a(mosquitto, tmp_path / "a")
    b = Table(tmp_path / "b")
    stepping = [Running(a), Running(b.sim)]
    try:
        old = a.links[-1]
        with a.lock:
            # abandoned, the grid emptied: A's next game has a new link
            act(a, "drop 4", "hold", "hold", "slider open", "slider close")
            assert a.links[-1] != old
        browser.get(b.web.url)
        pair_page(browser, b)
        wait(browser, lambda d: d.find_element(By.ID, "join").is_displayed(), "the join box")
        browser.find_element(By.ID, "join-link").send_keys(old)
        browser.find_element(By.ID, "join").click()
        wait(browser, lambda d: "on its own again" in text(d, "status"), "the old link spent")
        wait(browser, lambda d: text(d, "message") == "", "no word of joining")
        browser.find_element(By.ID, "join-link").send_keys(a.links[-1])
        browser.find_element(By.ID, "join").click()
        wait(browser, lambda d: text(d, "linked").endswith("the link is up."), "linked")
        with a.lock:
            act(a, "drop 4")
        wait(browser, lambda d: "column 4" in text(d, "status"), "A's move to copy")
        with b.sim.lock:
            b.act("drop 4", "drop 5")  # the copy, and B's own move
        wait(browser, lambda d: text(d, "moves") == "4 5", "B's move")
        wait(browser, lambda d: a.daemon.state()["remote"] == "5", "B's move lit on A")
        with a.lock:
            act(a, "drop 5")
        browser.find_element(By.ID, "takeback").click()
        wait(browser, lambda d: text(d, "message").startswith("Asked the other side"), "asked")
        wait(browser, lambda d: "take it back too" in str(a.daemon.state()["status"]), "asked of A")
        with a.lock:
            act(a, "takeback")  # agreed: both grids take Yellow's 5 back
        wait(browser, lambda d: text(d, "moves") == "4", "the takeback")
        wait(browser, lambda d: text(d, "message") == "", "the question answered")
    finally:
        for each in stepping:
            each.close()
        b.close()
        a.close()
