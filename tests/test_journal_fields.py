"""Property tests: any JSON value in any field of the daemon's journal records
is either read exactly (writing the state again gives back that very value)
or refused: the journal is damaged at a line, said in one line. Nothing is
coerced (``"5"``, ``true`` or ``1.9`` as a level, ``" 4"`` as a move), an
absent key is never read as a null, and the sentence templates the journal
carries cannot make start-up format a field of any width.

The journals are real ones (a game against the computer on the simulated
grid, its page commands, a sensor fault, a restart), plus a snapshot holding
every optional field: a problem sentence, a pairing request, a board mark.
"""

from __future__ import annotations

import copy
import json
import re
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.computer.thinker import InlineThinker
from controller.daemon.config import parse_config
from controller.i18n.text import LANGUAGES, TEXT_LIMIT, Text, _n, _t, sentences
from controller.referee.commands import LevelChosen, OpponentChosen, PairingRequested, RulesChosen
from controller.referee.core import Referee, Table
from controller.referee.invitation import Invitation
from controller.simulator.script import parse_script
from controller.simulator.simulation import Simulation
from controller.store.entries import Archived, ComputerMove, EventEntry, Resumed, read_entry
from controller.store.eventcodec import encode as encode_event
from controller.store.journal import Journal, JournalDamaged
from controller.store.journal import encode as encode_line
from controller.store.persist import BoardChanged, restore, snapshot
from engine.colour import Colour
from hardware.events import ButtonPressed, SensorCleared, SensorFault
from tests.test_journal_properties import resume

PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)
Path_ = tuple[str | int, ...]

# Keys older journals lack: absent, they are read as what the daemon assumes for them.
OPTIONAL = {"id", "size", "computer", "next_computer", "computer_move", "next_level"}
OPTIONAL |= {"pairing_since", "pairing_code", "problem_text", "colour", "takebacks"}
OPTIONAL |= {"repetition", "both_lines"}  # the game's own house rules, since 2026-12-05
OPTIONAL |= {"takeback"}  # the remote seat's, since the agreed takeback
OPTIONAL |= {"remote"}  # journals from before the remote seat
OPTIONAL |= {"sequel"}  # the remote seat's, since a link plays on into the next game
OPTIONAL |= {"code"}  # a pairing request's, since pairing codes (eventcodec: "pair")
MARK = {"boot": 7, "drops": [0] * 7, "pops": [0] * 7, "slider_changes": 0, "slider": False}
MARK |= {"presses": 1, "holds": 0}


def act(simulation: Simulation, *lines: str) -> None:
    for line in lines:
        (action,) = parse_script(line, "test")
        simulation.act(action)


def records(state: Path) -> list[dict[str, Any]]:
    return Journal(state / "journal").load().records


@cache
def played() -> tuple[str, ...]:
    """A game against the computer: its choices, the person's moves, the
    page's commands, a sensor fault and its end, a restart."""
    config = parse_config({"opponent": {"plays": "red", "level": 3}}, "test")
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch)
        simulation = Simulation(config, state, thinker=InlineThinker(1.0))
        try:
            computer = simulation.state("start")["computer"]  # the move it waits for
            act(simulation, f"drop {computer}", "drop 3", "drop 3")  # the last: a mistake
            for command in (  # for the next game: the game has begun
                OpponentChosen(Colour.YELLOW, 0.0),
                OpponentChosen(None, 0.0),
                LevelChosen(4, 0.0),
                RulesChosen("popout", 0.0),
                PairingRequested((2, 5), 0.0),
            ):
                simulation.submit(command)
        finally:
            simulation.close()
        Simulation(config, state, thinker=InlineThinker(1.0)).close()
        kept = [json.dumps(record) for record in records(state)]
    # records the simulated grid does not make: the sensor board's counters, a
    # fault and its end (the daemon journals them from the sensor board)
    made = [
        {**encode_event(ButtonPressed(8.0)), "board": MARK},
        encode_event(SensorFault("exit 2", "a beam blocked for 3 s", 8.5)),
        encode_event(SensorCleared("exit 2", 9.0)),
    ]
    return (*kept, *(json.dumps(record) for record in made))


@cache
def full_snapshot() -> str:
    """A snapshot with every optional field set."""
    referee = Referee(Table(), "popout", computer=Colour.YELLOW)
    for move in ("4", "4", "p4"):
        referee.game.play(move)
    problem = _t("Pop the bottom disc out of column {column}.", column=4)
    steps = _n("({n} more step after this.)", "({n} more steps after this.)", 2)
    referee.problem = sentences(problem, steps, "p4")
    referee.last_entry_at = 3.25
    referee.pairing.since = 2.5
    referee.seats.next_level = 7
    referee.remote.sequel = Invitation("A" * 22, bytes(32), Colour.RED, made_at=1.0)
    return json.dumps({"snapshot": snapshot(referee), "id": "0123456789abcdef", "board": MARK})


def journals() -> list[tuple[str, ...]]:
    return [played(), (full_snapshot(), '{"resumed": true}')]


def paths(value: Any, here: Path_ = ()) -> list[Path_]:
    """Every place in a record: each key and item, nested ones too."""
    found = [here] if here else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*here, index))
    return found


ATOMS: list[Any] = [None, True, False, 0, 1, -1, 2, 4, 5, 10, 11, 1.5, 2.0, -0.0, 1e308]
ATOMS += [2**32, 2**53 + 1]
ATOMS += [10**400, "", "4", "p4", "04", " 4", "P4", "4 ", "red", "Red", "yellow", "5", "classic"]
ATOMS += ["popout", "chess", "{column}", "{column:>99999}", "{", "}", "{0}", "{column!r}", "p"]
ATOMS += [[], {}, [4], ["4"], {"id": "x"}, [{"id": "{n}", "values": {"n": 1}}], "x" * 2000]
json_values = st.recursive(
    st.sampled_from(ATOMS) | st.integers() | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def changed(record: dict[str, Any], where: Path_, how: str, value: Any) -> dict[str, Any]:
    """``record`` with the place ``where`` deleted, replaced by ``value``, or
    (for an object) given one more key."""
    record = copy.deepcopy(record)
    parent: Any = record
    for step in where[:-1]:
        parent = parent[step]
    last = where[-1]
    if how == "delete":
        del parent[last]
    elif how == "add" and isinstance(parent[last], dict):
        parent[last]["extra"] = value
    else:
        parent[last] = value
    return record


def encoded(lines: list[str]) -> bytes:
    """A journal of the records ``lines`` hold, numbered and checksummed."""
    return b"".join(encode_line(json.loads(text), n) for n, text in enumerate(lines, 1))


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``true`` is not ``1``, but ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def written_again(line: int, record: dict[str, Any]) -> dict[str, Any]:
    """What the daemon writes for the state or fact it read from ``record``,
    as the journal holds it."""
    again: dict[str, Any] = json.loads(json.dumps(_written_again(line, record)))
    return again


def _written_again(line: int, record: dict[str, Any]) -> dict[str, Any]:
    entry = read_entry(line, record)
    if isinstance(entry, EventEntry):
        again = encode_event(entry.event)
        return again if entry.board is None else {**again, "board": entry.board}
    if isinstance(entry, ComputerMove):
        return {"computer": str(entry.move)}
    if isinstance(entry, Archived):
        return {"archived": entry.number}
    if isinstance(entry, Resumed):
        return {"resumed": True}
    state = snapshot(restore(Table(), entry.state))
    again = {"snapshot": state, "id": entry.journal_id}
    return again if entry.board is None else {**again, "board": entry.board}


def read_exactly(record: dict[str, Any], again: dict[str, Any]) -> None:
    """Every value ``record`` holds is written again as it was; a key it
    lacks is an optional one."""
    for key, value in record.items():
        if isinstance(value, dict) and key in ("snapshot", "remote"):
            read_exactly(value, again[key])  # each holds keys older journals lack
        elif not (key == "problem_text" and value is None):  # older: the English alone
            assert key in again and same(value, again[key]), (key, value, again.get(key))
    for key in again.keys() - record.keys():
        assert key in OPTIONAL, f"{key} was missing, and read anyway"


@cache
def found_values() -> list[Any]:
    """Every value in the journals, anywhere: often right somewhere else."""
    found = []
    for lines in journals():
        for text in lines:
            record = json.loads(text)
            for where in paths(record):
                value: Any = record
                for step in where:
                    value = value[step]
                found.append(value)
    return found


@st.composite
def mutations(draw: st.DrawFn) -> tuple[list[str], int, dict[str, Any]]:
    lines = list(draw(st.sampled_from(journals())))
    index = draw(st.integers(0, len(lines) - 1))
    record = json.loads(lines[index])
    where = draw(st.sampled_from(paths(record)))
    how = draw(st.sampled_from(["replace", "delete", "add"]))
    value = draw(json_values | st.sampled_from(found_values()))
    mutated = changed(record, where, how, value)
    lines[index] = json.dumps(mutated)
    return lines, index + 1, mutated


@PROPERTY
@given(mutations())
def test_any_value_in_any_field_is_read_exactly_or_is_damage_at_a_line(
    case: tuple[list[str], int, dict[str, Any]],
) -> None:
    lines, line, mutated = case
    try:
        resume(encoded(lines))  # a damaged journal is said in one line, and kept
    except JournalDamaged as error:
        assert error.line >= line  # at the changed record, or where it stops fitting
        return
    try:
        again = written_again(line, mutated)
    except BoardChanged:
        return  # saved for another board size: kept aside whole, not read (not damage)
    read_exactly(mutated, again)


def test_the_journals_resume_as_they_are() -> None:
    for lines in journals():
        resume(encoded(list(lines)))
        for line, text in enumerate(lines, 1):
            record = json.loads(text)
            read_exactly(record, written_again(line, record))


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"level": "5"}, '"level" is not an integer'),
        ({"level": True}, '"level" is not an integer'),
        ({"level": 1.9}, '"level" is not an integer'),
        ({"level": 10**400}, '"level" is 100000000000... (401 digits), outside 1..10'),
        ({"seed": -1}, '"seed" is -1, outside'),
        ({"colour": "Red"}, "\"colour\" is 'Red'"),
        ({"extra": 1}, "the computer's seat has a key it never holds"),
    ],
)
def test_the_computers_seat_is_read_exactly(change: dict[str, Any], reason: str) -> None:
    record = json.loads(full_snapshot())
    record["snapshot"]["computer"] |= change
    with pytest.raises(JournalDamaged, match="damaged at line 1 .*" + re.escape(reason)):
        resume(encoded([json.dumps(record)]))


def test_an_opponent_record_without_plays_is_damage_not_two_players() -> None:
    lines = list(played())
    index = next(i for i, text in enumerate(lines) if '"e": "opponent"' in text)
    record = json.loads(lines[index])
    del record["plays"]
    lines[index] = json.dumps(record)
    with pytest.raises(JournalDamaged, match=f'line {index + 1} .*"plays" is missing'):
        resume(encoded(lines))


# -- the sentence templates ------------------------------------------------------------------

names = st.sampled_from(["n", "column", "x", "0", "a.b", ""])
templates = st.text(alphabet="{}:!<>rn0123456789 .column[]x", max_size=24)
value = st.integers() | st.text(max_size=30)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {"id": draw(templates | st.sampled_from(ATOMS))}
    if draw(st.booleans()):
        message["values"] = draw(st.dictionaries(names, value | st.sampled_from(ATOMS), max_size=3))
    if draw(st.booleans()):
        message["plural"] = draw(templates)
        message["count"] = draw(st.integers() | st.sampled_from(ATOMS))
    if draw(st.booleans()):
        message["context"] = draw(templates | st.sampled_from(ATOMS))
    return message


texts = st.lists(st.text(max_size=20) | messages(), max_size=4)


@PROPERTY
@given(texts | json_values)
def test_a_text_from_the_journal_is_read_exactly_or_refused_and_stays_short(data: Any) -> None:
    try:
        text = Text.from_data(data)
    except ValueError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert same(text.data(), data)  # read exactly
    for language in LANGUAGES:
        assert len(text.render(language)) <= 2 * TEXT_LIMIT  # a template cannot widen it


def test_a_text_whose_fields_repeat_a_long_value_is_refused() -> None:
    long = [{"id": "{v}" * 300, "values": {"v": "x" * 900}}]
    with pytest.raises(ValueError, match=f"longer than {TEXT_LIMIT}"):
        Text.from_data(long)
