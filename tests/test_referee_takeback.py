"""The takeback on one grid (issue 23): the last move comes off the referee's
game, the lights lead the grid back by the repair, play goes on; against the
computer the person's last turn comes back; a finished game and Pop 10's
scores come back right; the journal replays it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.computer.dispatch import position
from controller.daemon.config import parse_config
from controller.referee import repair
from controller.referee.commands import RemoteInvited, TakebackAsked
from controller.referee.core import Referee, Table
from controller.referee.invitation import Invitation, b64url
from controller.referee.view import display
from controller.simulator.script import parse_line
from controller.simulator.simulation import Simulation
from controller.store.eventcodec import decode, encode
from controller.store.persist import restore, snapshot
from engine import Move, MoveKind, game_from_position, new_game, parse_move
from engine.colour import Colour
from hardware.display import Lamp
from hardware.events import DiscEntered, DiscLeft, SliderMoved

R, Y = Colour.RED, Colour.YELLOW


class Hands:
    """A person at the grid: makes moves and repair steps as physical
    events, one second apart (never two discs at once)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.at = 0.0

    def tick(self) -> float:
        self.at += 1.0
        return self.at

    def move(self, move: Move) -> None:
        column = move.column - self.referee.offset
        if move.kind is MoveKind.POP:
            verdict = self.referee.handle(DiscLeft(column, self.tick()))
        else:
            verdict = self.referee.handle(DiscEntered(column, self.tick()))
        assert verdict.accepted == move, verdict.log

    def repair(self) -> int:
        """Follow the lights until the grid matches; the steps it took."""
        steps = 0
        while not self.referee.in_step():
            step = self.referee.repair_plan()[0]
            if isinstance(step, repair.PopStep):
                self.referee.handle(DiscLeft(step.column, self.tick()))
            elif isinstance(step, repair.DropStep):
                self.referee.handle(DiscEntered(step.column, self.tick(), step.colour))
            else:
                self.referee.handle(SliderMoved(True, self.tick()))
                self.referee.handle(SliderMoved(False, self.tick()))
            steps += 1
            assert steps < 100
        return steps


def played(rules: str, moves: str, computer: Colour | None = None) -> tuple[Referee, Hands]:
    referee = Referee(Table(), rules, computer)
    hands = Hands(referee)
    for move in moves.split():
        if referee.computer_to_move():
            referee.computer_chose(parse_move(move))
        hands.move(parse_move(move))
    return referee, hands


def test_a_drop_taken_back_lights_the_disc_to_take_out_and_play_goes_on() -> None:
    referee, hands = played("classic", "4 3 4")
    verdict = referee.handle(TakebackAsked(at=10.0))
    assert verdict.changed and [str(m) for m in referee.game.moves] == ["4", "3"]
    assert verdict.log == (
        "Taken back: Red's drop into column 4. Take the grid back as the lights show.",
    )
    shown = display(referee)
    assert shown.columns[3].lamp is Lamp.ERROR  # pop column 4: its top disc drops back
    assert "Taken back" in str(shown.fault) and "column 4" in str(shown.status)
    assert hands.repair() == 1  # the bottom Red disc out; the top one falls into its place
    assert referee.problem is None and referee.game.to_move is R
    hands.move(Move.drop(5))
    assert [str(m) for m in referee.game.moves] == ["4", "3", "5"]


def test_a_pop_taken_back_asks_for_the_disc_to_go_back_in() -> None:
    referee, hands = played("popout", "4 4 p4")
    referee.handle(TakebackAsked())
    assert [str(m) for m in referee.game.moves] == ["4", "4"] and referee.game.to_move is R
    hands.repair()
    assert referee.model_grid()[3] == (R, Y) and [list(c) for c in referee.grid][3] == [R, Y]


def test_a_finished_game_is_taken_back_by_its_last_move() -> None:
    referee, hands = played("classic", "4 3 4 3 4 3 4")
    assert referee.game.result is R
    verdict = referee.handle(TakebackAsked())
    assert referee.game.result is None and referee.game.to_move is R and verdict.finished is None
    hands.repair()
    hands.move(Move.drop(1))
    assert referee.game.result is None and len(referee.game.moves) == 7


SCORING = ["YRYR", "RYRY", "YRYR", "RRRR"]  # 4x4 Pop 10: Red's bottom row is a line


def test_pop10_scored_discs_and_the_turn_come_back() -> None:
    referee = Referee(Table(columns=4, rows=4), "pop10")
    game = game_from_position(referee.rules_for("pop10"), SCORING, R)
    referee.grid = [list(column) for column in [game.column(c) for c in range(1, 5)]]
    referee.game = referee.fresh_game("pop10")
    hands = Hands(referee)
    before = (referee.game.scores, referee.game.phase, referee.game.to_move)
    hands.move(Move.pop(1))  # scores: Red keeps the disc and pops again
    assert referee.game.scores[R] == 1 and referee.game.to_move is R
    referee.handle(TakebackAsked())
    assert (referee.game.scores, referee.game.phase, referee.game.to_move) == before
    hands.repair()
    assert referee.grid[0] == [R, Y, R, Y]


def test_against_the_computer_the_persons_last_turn_comes_back() -> None:
    referee, hands = played("classic", "4 3 5 2", computer=Y)
    verdict = referee.handle(TakebackAsked())
    assert [str(m) for m in referee.game.moves] == ["4", "3"] and referee.game.to_move is R
    assert "2 moves, back to before Red's drop into column 5" in str(verdict.log[0])
    hands.repair()
    assert referee.needs_computer() is None  # the person's turn, not the computer's


def test_against_the_computer_while_it_chooses_only_the_persons_move_goes() -> None:
    referee, _ = played("classic", "4 3 5", computer=Y)
    referee.computer_chose(Move.drop(6))
    referee.handle(TakebackAsked())
    assert [str(m) for m in referee.game.moves] == ["4", "3"] and referee.computer_move is None


def test_nothing_to_take_back_is_said_and_changes_nothing() -> None:
    referee = Referee(Table(), "classic")
    verdict = referee.handle(TakebackAsked())
    assert not verdict.changed and "no move" in str(verdict.log[0])
    referee, _ = played("classic", "4", computer=R)
    verdict = referee.handle(TakebackAsked())
    assert not verdict.changed and "only the computer" in str(verdict.log[0])
    assert len(referee.game.moves) == 1


def test_with_a_friend_seated_one_grid_alone_takes_nothing_back() -> None:
    referee, _ = played("classic", "4 3")
    referee.handle(RemoteInvited(Invitation(b64url(bytes(16)), bytes(32), Y, 0.0)))
    verdict = referee.handle(TakebackAsked())
    assert verdict.log == ("Asked the other side to take back Yellow's drop into column 3.",)
    assert len(referee.game.moves) == 2 and referee.remote.agreement.ours  # until it agrees
    # said on this grid too while it waits, before what the board says anyway
    status = str(display(referee).status)
    assert status.startswith("You asked to take back Yellow's drop into column 3; waiting")


def test_a_search_for_move_n_before_a_takeback_is_not_one_for_the_new_move_n() -> None:
    """The computer's searches are named by their position: after a takeback
    the same number of moves is another position, and an answer for the old
    one must never be played in the new one."""
    referee, hands = played("classic", "4 3")
    old = position(referee)
    hands.move(Move.drop(5))
    referee.handle(TakebackAsked())
    hands.repair()
    assert len(referee.game.moves) == 2 and position(referee) != old


def test_the_takeback_is_a_journal_record() -> None:
    assert decode(encode(TakebackAsked(at=3.5))) == TakebackAsked(at=3.5)


RULES = st.sampled_from(["classic", "popout", "pop10", "five", "five+popout"])


@settings(max_examples=60, deadline=None)
@given(rules=RULES, data=st.data())
def test_any_move_taken_back_and_repaired_is_as_if_never_made(
    rules: str, data: st.DataObject
) -> None:
    """Whatever was played, taking back the last move and following the
    lights leaves the referee where it was before that move: the same game
    (moves, scores, phase, turn, result) and the grid matching it."""
    referee = Referee(Table(), rules)
    hands = Hands(referee)
    count = data.draw(st.integers(1, 30))
    for _ in range(count):
        if referee.game.is_over():
            break
        hands.move(data.draw(st.sampled_from(list(referee.game.legal_moves()))))
    before = referee.game.copy()
    before.undo()
    referee.handle(TakebackAsked())
    hands.repair()
    game = referee.game
    assert game.moves == before.moves and game.scores == before.scores
    assert (game.phase, game.to_move, game.result) == (before.phase, before.to_move, before.result)
    assert referee.problem is None and referee.in_step()
    if not game.is_over():
        hands.move(game.legal_moves()[0])


def test_a_restart_replays_the_takeback(tmp_path: Path) -> None:
    config = parse_config({}, "test")
    first = Simulation(config, tmp_path)
    for line in ("drop 4", "drop 3", "drop 4", "takeback"):
        first.act(parse_line(line, 1, "test"))  # type: ignore[arg-type]
    taken = first.state("taken")
    assert taken["moves"] == ["4", "3"] and taken["lights"][3] == "error"
    first.close()
    second = Simulation(config, tmp_path)
    again = second.state("again")
    assert again["moves"] == ["4", "3"] and again["lights"] == taken["lights"]
    assert again["fault"] == taken["fault"]
    second.close()


def test_the_engine_undo_is_what_takes_a_pop10_point_back() -> None:
    game = game_from_position("pop10", SCORING, "red")
    game.play("p1")
    game.undo()
    assert game.scores == new_game("pop10").scores and game.to_move is R


def test_a_remote_seat_with_a_key_it_never_holds_is_damage() -> None:
    """The journal property found it once the snapshot grew: a "remote"
    object with a stray key was read as if the key were not there."""
    data = snapshot(Referee(Table(), "classic"))
    data["remote"]["extra"] = {"moves": ["4"]}
    with pytest.raises(ValueError, match="never holds"):
        restore(Table(), data)
