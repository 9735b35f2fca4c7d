"""The game archive stores finished records under sequential numbers and reads them back."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from controller.store.archive import ArchivedGame, ArchiveError, GameArchive, NoSuchGame

FINISHED = datetime(2026, 11, 29, 17, 5, 42)
RECORD = '[Rules "pop10"]\n[Result "red"]\n\n4 3 5 2 6 1 7 p4 3\n'


def test_save_names_the_file_by_number_time_and_rules(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path / "games")
    game = archive.save(RECORD, rules="pop10", result="red", finished=FINISHED, moves=9)
    assert game == ArchivedGame(
        number=1,
        finished=FINISHED,
        rules="pop10",
        result="red",
        path=tmp_path / "games" / "0001-2026-11-29T1705-pop10.txt",
        moves=9,
    )
    assert game.path.read_text() == RECORD


def test_numbers_follow_on_and_games_are_listed_oldest_first(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    rules = ["classic", "five+popout", "pop10", "popout"]
    for index, name in enumerate(rules):
        archive.save(
            f"record {index}\n",
            rules=name,
            result=["red", "yellow", "draw", "abandoned"][index],
            finished=FINISHED + timedelta(minutes=index),
        )
    listed = archive.games()
    assert [game.number for game in listed] == [1, 2, 3, 4]
    assert [game.rules for game in listed] == rules
    assert [game.result for game in listed] == ["red", "yellow", "draw", "abandoned"]
    assert [game.moves for game in listed] == [None] * 4
    assert [archive.read(number) for number in (1, 2, 3, 4)] == [
        f"record {index}\n" for index in range(4)
    ]
    # A new archive object on the same directory carries on the numbering.
    assert (
        GameArchive(tmp_path).save("x", rules="classic", result="red", finished=FINISHED).number
        == 5
    )


def test_ordering_is_numeric_past_9999(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    (tmp_path / "9999-2026-01-01T0000-classic.txt").write_text("old\n")
    game = archive.save("new\n", rules="classic", result="draw", finished=FINISHED)
    assert game.path.name == "10000-2026-11-29T1705-classic.txt"
    assert [g.number for g in archive.games()] == [9999, 10000]
    assert archive.read(10000) == "new\n"


def test_the_record_text_comes_back_exactly(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    text = "line one\r\nline two \u00e9\n\n  trailing  "
    archive.save(text, rules="classic", result="red", finished=FINISHED)
    assert archive.read(1) == text


def test_aware_timestamps_survive(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    finished = datetime(2026, 3, 1, 9, 0, 1, tzinfo=timezone(timedelta(hours=1)))
    archive.save("r\n", rules="five", result="yellow", finished=finished)
    assert archive.games()[0].finished == finished


def test_odd_rules_names_become_safe_file_names(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    game = archive.save("r\n", rules="My Rules/../x", result="red", finished=FINISHED)
    assert game.path.parent == tmp_path
    assert game.path.name == "0001-2026-11-29T1705-my_rules_x.txt"
    assert archive.games()[0].rules == "My Rules/../x"


def test_a_number_taken_by_a_crashed_save_is_skipped(tmp_path: Path) -> None:
    # A crash between the facts file and the record leaves the facts file alone.
    (tmp_path / "0001-2026-11-29T1705-classic.json").write_text("{}")
    archive = GameArchive(tmp_path)
    assert archive.games() == []
    game = archive.save("r\n", rules="classic", result="red", finished=FINISHED)
    assert game.number == 2
    assert [g.number for g in archive.games()] == [2]


def test_a_record_without_its_facts_is_listed_from_its_name(tmp_path: Path) -> None:
    (tmp_path / "0003-2025-12-24T1830-popout.txt").write_text("r\n")
    (tmp_path / "0004-2025-12-24T1900-classic.txt").write_text("r\n")
    (tmp_path / "0004-2025-12-24T1900-classic.json").write_text("not json")
    (tmp_path / "notes.txt").write_text("not a game")
    (tmp_path / "0005-garbage.txt").write_text("not a game")
    listed = GameArchive(tmp_path).games()
    assert [(g.number, g.finished, g.rules, g.result, g.moves) for g in listed] == [
        (3, datetime(2025, 12, 24, 18, 30), "popout", "?", None),
        (4, datetime(2025, 12, 24, 19, 0), "classic", "?", None),
    ]


def test_save_leaves_no_temporary_files(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    archive.save("r\n", rules="classic", result="red", finished=FINISHED, moves=7)
    assert sorted(os.listdir(tmp_path)) == [
        "0001-2026-11-29T1705-classic.json",
        "0001-2026-11-29T1705-classic.txt",
    ]


def test_a_missing_directory_has_no_games(tmp_path: Path) -> None:
    assert GameArchive(tmp_path / "nowhere").games() == []


def test_reading_a_game_that_does_not_exist_says_so_in_one_line(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    archive.save("r\n", rules="classic", result="red", finished=FINISHED)
    with pytest.raises(NoSuchGame) as caught:
        archive.read(2)
    message = str(caught.value)
    assert "\n" not in message
    assert "no game 2" in message and str(tmp_path) in message
    assert isinstance(caught.value, LookupError)


def test_a_directory_that_is_a_file_is_an_archive_error(tmp_path: Path) -> None:
    blocker = tmp_path / "games"
    blocker.write_text("")
    archive = GameArchive(blocker)
    with pytest.raises(ArchiveError, match="cannot read the games in"):
        archive.games()
    with pytest.raises(ArchiveError, match="cannot save the game in"):
        archive.save("r\n", rules="classic", result="red", finished=FINISHED)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any directory")
def test_an_unreadable_directory_is_an_archive_error(tmp_path: Path) -> None:
    locked = tmp_path / "games"
    locked.mkdir()
    locked.chmod(0)
    try:
        with pytest.raises(ArchiveError, match="Permission denied"):
            GameArchive(locked).games()
    finally:
        locked.chmod(0o755)


def test_a_record_that_is_not_utf8_is_an_archive_error(tmp_path: Path) -> None:
    (tmp_path / "0001-2026-11-29T1705-classic.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(ArchiveError, match="not UTF-8"):
        GameArchive(tmp_path).read(1)


def test_a_game_saved_again_under_its_key_is_kept_once(tmp_path: Path) -> None:
    archive = GameArchive(tmp_path)
    first = archive.save(RECORD, rules="pop10", result="red", finished=FINISHED, key="k1")
    later = FINISHED + timedelta(minutes=3)
    again = archive.save(RECORD, rules="pop10", result="red", finished=later, key="k1")
    other = archive.save(RECORD, rules="pop10", result="red", finished=later, key="k2")
    assert again == first
    assert [game.number for game in archive.games()] == [1, 2]
    assert other.number == 2


def test_a_save_cut_short_before_its_record_is_finished_under_the_same_number(
    tmp_path: Path,
) -> None:
    archive = GameArchive(tmp_path)
    first = archive.save(RECORD, rules="pop10", result="red", finished=FINISHED, key="k1")
    first.path.unlink()  # the crash came between the facts file and the record
    assert archive.games() == []
    again = archive.save(RECORD, rules="pop10", result="red", finished=FINISHED, key="k1")
    assert again == first and first.path.read_text() == RECORD


def test_a_full_disk_is_an_archive_error_with_the_systems_reason(tmp_path: Path) -> None:
    from bench.soaklib.diskfull import full_disk

    archive = GameArchive(tmp_path / "games")
    with full_disk(tmp_path), pytest.raises(ArchiveError) as caught:
        archive.save(RECORD, rules="pop10", result="red", finished=FINISHED)
    assert caught.value.reason == "No space left on device"
    assert "\n" not in str(caught.value)
    assert archive.games() == []


def test_a_symbolic_link_in_place_of_a_temporary_file_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "precious"
    victim.write_text("keep me\n")
    games = tmp_path / "games"
    games.mkdir()
    stem = "0001-2026-11-29T1705-pop10"
    for suffix in ("json", "txt"):
        (games / f".{stem}.{suffix}.{os.getpid()}.tmp").symlink_to(victim)
    game = GameArchive(games).save(RECORD, rules="pop10", result="red", finished=FINISHED)
    assert victim.read_text() == "keep me\n"
    assert game.path.read_text() == RECORD
    assert sorted(p.name for p in games.iterdir()) == [f"{stem}.json", f"{stem}.txt"]
