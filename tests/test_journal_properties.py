"""Property tests: whatever a crash or a bad disk does to the journal, the
daemon resumes the longest valid prefix of what it wrote, or stops with one
line and keeps the file; never a traceback, never a game that did not happen.

The journal under test is a real one: a game played on the simulated grid,
with a restart in the middle and a win (archived) at the end.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.daemon.config import parse_config
from controller.daemon.loop import Daemon
from controller.referee.core import Table
from controller.simulator.script import parse_script
from controller.simulator.simulation import Simulation
from controller.store.journal import Journal, JournalDamaged
from controller.store.persist import snapshot
from hardware.backend import Backend
from hardware.clock import FakeClock

PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)


@dataclass(frozen=True)
class Resumed:
    state: dict[str, Any]
    archived: int
    accepted: list[dict[str, Any]]


def play(state: Path, *lines: str) -> None:
    sim = Simulation(parse_config({}, "test"), state)
    try:
        for line in lines:
            (action,) = parse_script(line, "test")
            sim.act(action)
    finally:
        sim.close()


@cache
def original() -> tuple[bytes, ...]:
    """The lines of a real journal: snapshot, drops, a restart, a win, archived."""
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch)
        play(state, "drop 1", "drop 2", "drop 1")
        play(state, "drop 2", "drop 1", "drop 2", "drop 1")
        return tuple((state / "journal").read_bytes().splitlines(keepends=True))


def resume(data: bytes) -> Resumed:
    """Start a daemon on a journal holding *data*; JournalDamaged propagates."""
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch)
        (state / "journal").write_bytes(data)
        daemon = Daemon(
            table=Table(),
            rules="classic",
            backend=cast(Backend, None),  # resume() never touches the board
            clock=FakeClock(),
            state_dir=state,
        )
        try:
            daemon.resume()
        except JournalDamaged as error:
            message = str(error)
            assert "\n" not in message and f"line {error.line} (" in message
            assert error.moved_to == state / "journal.damaged-1"
            assert error.moved_to.read_bytes() == data and not (state / "journal").exists()
            raise
        finally:
            daemon.journal.close()
        accepted = Journal(state / "journal").load().records
        if accepted[-1:] == [{"resumed": True}]:
            accepted.pop()
        else:  # nothing was kept: a fresh journal of a new game
            assert len(accepted) == 1 and "snapshot" in accepted[0]
            accepted = []
        games = list((state / "games").glob("*.txt")) if (state / "games").exists() else []
        return Resumed(snapshot(daemon.referee), len(games), accepted)


@cache
def expected(lines: int) -> Resumed:
    """What resuming from the first *lines* lines of the original gives."""
    return resume(b"".join(original()[:lines]))


def longest_prefix(data: bytes) -> tuple[int, bytes]:
    """How many of the original lines *data* starts with, unchanged, and what follows."""
    count = 0
    for line in original():
        if not data.startswith(line):
            break
        data = data[len(line) :]
        count += 1
    return count, data


def check(data: bytes) -> bool:
    """The property; True when the journal was judged damaged."""
    lines, rest = longest_prefix(data)
    try:
        got = resume(data)
    except JournalDamaged:
        return True
    # only an incomplete last line may be dropped: a complete one that is not
    # the original's is damage, even a duplicated or moved good line
    assert b"\n" not in rest, "a complete line that is not the original's was accepted"
    want = expected(lines)
    assert got.accepted == want.accepted, f"kept {len(got.accepted)} records, not {lines}"
    assert got.state == want.state
    assert got.archived == want.archived
    return False


def test_the_original_resumes_whole_and_every_prefix_is_a_game_that_happened() -> None:
    lines = original()
    assert len(lines) >= 10
    whole = expected(len(lines))
    assert whole.state["moves"] == ["1", "2", "1", "2", "1", "2", "1"]
    assert whole.archived == 0  # its last line says the win is archived already
    assert expected(len(lines) - 1).archived == 1  # the win without that line
    assert expected(len(lines) - 2).archived == 0


@PROPERTY
@given(st.data())
def test_a_cut_at_any_byte_resumes_the_complete_lines(data: st.DataObject) -> None:
    whole = b"".join(original())
    cut = data.draw(st.integers(0, len(whole)))
    assert not check(whole[:cut])  # a cut is never damage: only the tail is torn


def mutations() -> st.SearchStrategy[bytes]:
    whole = b"".join(original())
    lines = list(original())
    size = len(whole)
    index = st.integers(0, size - 1)
    line = st.integers(0, len(lines) - 1)
    few_bytes = st.binary(min_size=1, max_size=4)

    def flip(at: int, mask: int) -> bytes:
        return whole[:at] + bytes([whole[at] ^ mask]) + whole[at + 1 :]

    def swap(at: int) -> bytes:
        at = min(at, len(lines) - 2)
        return b"".join([*lines[:at], lines[at + 1], lines[at], *lines[at + 2 :]])

    return st.one_of(
        st.builds(flip, index, st.integers(1, 255)),
        st.builds(lambda at, new: whole[:at] + new + whole[at:], index, few_bytes),
        st.builds(lambda at, n: whole[:at] + whole[at + n :], index, st.integers(1, 8)),
        st.builds(lambda at: b"".join([*lines[: at + 1], *lines[at:]]), line),
        st.builds(lambda at: b"".join(lines[:at] + lines[at + 1 :]), line),
        st.builds(swap, line),
    )


@PROPERTY
@given(st.deferred(mutations))
def test_a_mutation_resumes_the_longest_valid_prefix_or_is_damage(mutated: bytes) -> None:
    check(mutated)
