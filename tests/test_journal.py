"""The journal keeps every appended record through crashes, and never trusts damage."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path
from typing import Any

import pytest

from controller.store.journal import (
    Journal,
    JournalDamaged,
    JournalLoad,
    NotAJournalFile,
    decode,
    encode,
    write_synced,
)

REPO = Path(__file__).resolve().parent.parent

RECORDS: list[dict[str, Any]] = [
    {"kind": "game", "rules": "pop10", "size": [7, 6]},
    {"kind": "move", "move": "4", "by": "red"},
    {"kind": "move", "move": "p4", "by": "yellow", "note": "line\nbreak \u00e9"},
    {"kind": "repair", "columns": [3, 5], "pending": None, "ok": True, "x": 1.5},
]


def line(sequence: int | None, data: bytes) -> bytes:
    """A journal line around *data* with a good checksum (no number: an older line)."""
    body = data if sequence is None else b"%d %s" % (sequence, data)
    return b"%08x %s\n" % (zlib.crc32(body), body)


def lines(records: list[dict[str, Any]], first: int = 1) -> bytes:
    return b"".join(encode(record, n) for n, record in enumerate(records, first))


def write_journal(path: Path, records: list[dict[str, Any]]) -> None:
    with Journal(path) as journal:
        journal.load()
        for record in records:
            journal.append(record)


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    write_journal(path, RECORDS)
    assert Journal(path).load() == JournalLoad(records=RECORDS, torn=False)


def test_every_record_is_one_line_however_odd_its_strings(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    write_journal(path, RECORDS)
    assert path.read_bytes().count(b"\n") == len(RECORDS)


def test_append_adds_to_an_existing_journal_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    write_journal(path, RECORDS[:2])
    write_journal(path, RECORDS[2:])
    assert Journal(path).load().records == RECORDS


def test_missing_file_is_an_empty_journal_and_is_created_on_append(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    journal = Journal(path)
    assert journal.load() == JournalLoad(records=[], torn=False)
    assert not path.exists()
    journal.append({"n": 1})
    journal.close()
    assert Journal(path).load().records == [{"n": 1}]


def test_a_missing_state_directory_is_created(tmp_path: Path) -> None:
    appended = tmp_path / "state" / "journal"
    with Journal(appended) as journal:
        journal.append({"n": 1})
    replaced = tmp_path / "other" / "journal"
    with Journal(replaced) as journal:
        journal.replace([{"n": 2}])
    assert Journal(appended).load().records == [{"n": 1}]
    assert Journal(replaced).load().records == [{"n": 2}]


def test_the_system_refusing_raises_its_own_os_error(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    with pytest.raises(FileExistsError):
        Journal(tmp_path / "a-file" / "journal").replace([{"n": 1}])


def test_after_a_failed_append_the_next_one_reloads_first(tmp_path: Path) -> None:
    state = tmp_path / "state"
    journal = Journal(state / "journal")
    journal.append(RECORDS[0])
    journal.close()
    os.rename(state, tmp_path / "elsewhere")
    state.write_text("the state directory went away")
    with pytest.raises(FileExistsError):
        journal.append(RECORDS[1])
    # The failed append may have left a torn line; the retry must not glue onto it.
    state.unlink()
    os.rename(tmp_path / "elsewhere", state)
    with (state / "journal").open("ab") as file:
        file.write(encode(RECORDS[1])[:7])
    journal.append(RECORDS[2])
    journal.close()
    assert Journal(state / "journal").load() == JournalLoad(
        records=[RECORDS[0], RECORDS[2]], torn=False
    )


def test_empty_file_is_an_empty_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    path.write_bytes(b"")
    assert Journal(path).load() == JournalLoad(records=[], torn=False)


def test_append_without_load_does_not_glue_onto_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    path.write_bytes(encode(RECORDS[0]) + encode(RECORDS[1], 2)[:9])
    with Journal(path) as journal:
        journal.append(RECORDS[2])
    assert Journal(path).load() == JournalLoad(records=[RECORDS[0], RECORDS[2]], torn=False)


@pytest.mark.parametrize("record", [[1, 2], "text", None])
def test_only_dicts_can_be_appended(tmp_path: Path, record: Any) -> None:
    with Journal(tmp_path / "journal") as journal, pytest.raises(TypeError, match="dict"):
        journal.append(record)


def test_a_torn_last_record_is_dropped_at_every_byte_offset(tmp_path: Path) -> None:
    good = lines(RECORDS[:-1])
    last = encode(RECORDS[-1], len(RECORDS))
    path = tmp_path / "journal"
    for cut in range(1, len(last)):
        path.write_bytes(good + last[:cut])
        journal = Journal(path)
        assert journal.load() == JournalLoad(records=RECORDS[:-1], torn=True), cut
        assert path.read_bytes() == good, cut
        # The next append starts a clean line: nothing of the torn bytes is left.
        journal.append(RECORDS[-1])
        journal.close()
        assert Journal(path).load() == JournalLoad(records=RECORDS, torn=False), cut


@pytest.mark.parametrize(
    "bad_last_line",
    [
        b"00000000 " + encode(RECORDS[-1], 4)[9:],  # complete line, wrong checksum
        encode(RECORDS[-1], 4)[:-3] + b"\n",  # newline landed, part of the JSON did not
        b"\x00\x00\x00\x00\x00\x00\n",
        line(4, b'{"a":'),  # a good checksum over bad JSON
    ],
    ids=["checksum", "cut-json", "zeroes", "bad-json"],
)
def test_a_bad_complete_last_line_is_damage_and_kept(tmp_path: Path, bad_last_line: bytes) -> None:
    """Only a line without its newline is torn: a complete one that does not
    read is damage, and the file is kept for a person to look at."""
    path = tmp_path / "journal"
    content = lines(RECORDS[:-1]) + bad_last_line
    path.write_bytes(content)
    with pytest.raises(JournalDamaged, match="line 4"):
        Journal(path).load()
    assert (tmp_path / "journal.damaged-1").read_bytes() == content


def test_zeroes_without_a_newline_are_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    path.write_bytes(lines(RECORDS[:-1]) + b"\x00" * 40)
    assert Journal(path).load() == JournalLoad(records=RECORDS[:-1], torn=True)
    assert path.read_bytes() == lines(RECORDS[:-1])


def damaged_lines() -> list[tuple[str, bytes]]:
    second = encode(RECORDS[1], 2)
    deep = b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    return [
        ("bad checksum", second[:-2] + b"X\n"),
        ("bad checksum", b"%08x" % (int(second[:8], 16) ^ 1) + second[8:]),
        ("bad JSON", line(2, b'{"kind": mo')),
        ("not a JSON object", line(2, b"[1,2]")),
        ("not a journal line", b"garbage\n"),
        ("not a journal line", b"\n"),
        ("not a journal line", b"zzzzzzzz {}\n"),
        ("not a journal line", line(None, b"x {}")),
        ("the number NaN is not finite", line(2, b'{"at":NaN}')),
        ("the number Infinity is not finite", line(2, b'{"at":[1,Infinity]}')),
        ("the number -Infinity is not finite", line(2, b'{"at":-Infinity}')),
        ("the number 1e999 is not finite", line(2, b'{"at":1e999}')),
        ("JSON nested too deeply", line(2, deep)),
        ("numbered 3: lines duplicated, lost or swapped", encode(RECORDS[1], 3)),
        ("numbered 1: lines duplicated, lost or swapped", encode(RECORDS[0], 1)),
        ("a line without a sequence number after numbered ones", line(None, b'{"a":1}')),
    ]


@pytest.mark.parametrize(("reason", "bad"), damaged_lines())
def test_damage_before_the_last_line_stops_and_moves_the_file_aside(
    tmp_path: Path, reason: str, bad: bytes
) -> None:
    path = tmp_path / "journal"
    content = encode(RECORDS[0]) + bad + encode(RECORDS[2], 3) + encode(RECORDS[3], 4)
    path.write_bytes(content)
    with pytest.raises(JournalDamaged) as caught:
        Journal(path).load()
    error = caught.value
    moved = tmp_path / "journal.damaged-1"
    assert (error.path, error.line, error.reason, error.moved_to) == (path, 2, reason, moved)
    message = str(error)
    assert "\n" not in message
    assert str(path) in message and "line 2" in message and str(moved) in message
    assert not path.exists()
    assert moved.read_bytes() == content
    # Start-up can be retried: the journal is now empty, and usable.
    assert Journal(path).load() == JournalLoad(records=[], torn=False)


def test_damage_followed_by_a_torn_tail_is_still_damage(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    path.write_bytes(encode(RECORDS[0]) + b"garbage\n" + encode(RECORDS[1], 3)[:5])
    with pytest.raises(JournalDamaged, match="line 2"):
        Journal(path).load()


def test_files_moved_aside_never_overwrite_each_other(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    contents = []
    for attempt in range(3):
        content = b"garbage %d\n" % attempt + encode(RECORDS[0])
        contents.append(content)
        path.write_bytes(content)
        with pytest.raises(JournalDamaged) as caught:
            Journal(path).load()
        assert caught.value.moved_to == tmp_path / f"journal.damaged-{attempt + 1}"
    for number, content in enumerate(contents, start=1):
        assert (tmp_path / f"journal.damaged-{number}").read_bytes() == content


def test_replace_swaps_the_whole_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    with Journal(path) as journal:
        journal.load()
        for record in RECORDS:
            journal.append(record)
        journal.replace([{"kind": "game", "rules": "classic"}])
        journal.append({"kind": "move", "move": "1"})
    assert Journal(path).load().records == [
        {"kind": "game", "rules": "classic"},
        {"kind": "move", "move": "1"},
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal"]


def test_replace_with_nothing_empties_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    write_journal(path, RECORDS)
    with Journal(path) as journal:
        journal.replace([])
    assert Journal(path).load() == JournalLoad(records=[], torn=False)


def test_replace_refuses_a_bad_record_before_touching_the_file(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    write_journal(path, RECORDS)
    with Journal(path) as journal, pytest.raises(ValueError):
        journal.replace([{"ok": 1}, {"nan": float("nan")}])
    assert Journal(path).load().records == RECORDS


def test_decode_reads_what_encode_writes() -> None:
    for number, record in enumerate(RECORDS, 1):
        assert decode(encode(record, number)[:-1]) == (number, record)


def test_lines_written_before_sequence_numbers_start_a_file_and_numbered_ones_follow(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal"
    older = b"".join(line(None, encode(r)[11:-1]) for r in RECORDS[:2])
    path.write_bytes(older)
    with Journal(path) as journal:
        assert journal.load().records == RECORDS[:2]
        journal.append(RECORDS[2])
    assert path.read_bytes() == older + encode(RECORDS[2], 3)
    assert Journal(path).load().records == RECORDS[:3]


def test_append_and_replace_number_the_lines(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    with Journal(path) as journal:
        journal.replace(RECORDS[:2])
        journal.append(RECORDS[2])
    assert path.read_bytes() == lines(RECORDS[:3])
    with Journal(path) as journal:
        journal.append(RECORDS[3])  # loads first, and numbers on
    assert path.read_bytes() == lines(RECORDS)


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_something_other_than_a_file_is_refused_without_blocking(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "journal"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")  # reading it would never end
    else:
        path.mkdir()
    with pytest.raises(NotAJournalFile) as caught:
        Journal(path).load()
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    assert {"fifo": "a FIFO", "device": "a device", "directory": "a directory"}[kind] in message
    assert path.exists() or path.is_symlink()  # left for a person to look at


def test_temporary_files_never_follow_a_symbolic_link(tmp_path: Path) -> None:
    victim = tmp_path / "precious"
    victim.write_bytes(b"keep me\n")
    (tmp_path / "journal.new").symlink_to(victim)
    with Journal(tmp_path / "journal") as journal:
        journal.replace([RECORDS[0]])
    assert victim.read_bytes() == b"keep me\n"
    assert Journal(tmp_path / "journal").load().records == [RECORDS[0]]
    stale = tmp_path / "stale.tmp"
    stale.symlink_to(victim)
    write_synced(stale, b"new\n", 0o600)
    assert victim.read_bytes() == b"keep me\n" and not stale.is_symlink()


CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from controller.store.journal import Journal

    journal = Journal(Path(sys.argv[2]))
    journal.load()
    signal_after = int(sys.argv[3])
    n = 0
    while True:
        journal.append({"n": n, "pad": "x" * (n % 50)})
        n += 1
        if n == signal_after:
            sys.stdout.write("ready\\n")
            sys.stdout.flush()
    """
)


def test_kill_9_while_appending_leaves_a_loadable_prefix(tmp_path: Path) -> None:
    path = tmp_path / "journal"
    wanted = 40
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(REPO), str(path), str(wanted)],
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(child.stdout, selectors.EVENT_READ)
            assert selector.select(timeout=60), "the child never reported its appends"
        assert child.stdout.readline() == b"ready\n"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    loaded = Journal(path).load()
    assert len(loaded.records) >= wanted
    assert loaded.records == [{"n": n, "pad": "x" * (n % 50)} for n in range(len(loaded.records))]
    # Whatever the kill left, the journal takes further appends cleanly.
    with Journal(path) as journal:
        journal.load()
        journal.append({"n": "after"})
    assert Journal(path).load().records[-1] == {"n": "after"}
