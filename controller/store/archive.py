"""Finished games, kept as game-record texts numbered in the order they ended.

Each game is two files in the archive directory: the record exactly as the
engine wrote it (``0001-2026-11-29T1705-pop10.txt``) and a small JSON file of
the facts a listing needs (``0001-2026-11-29T1705-pop10.json``), so listing
never parses a record. Both are written atomically; the record is written
last, so a game is in the archive once its ``.txt`` file is. A game saved with
a ``key`` is saved once however often it is saved again (a daemon that
crashed after saving it, before it could note that it had): the key is kept
in the facts file.

>>> import tempfile, pathlib, datetime
>>> archive = GameArchive(pathlib.Path(tempfile.mkdtemp()))
>>> game = archive.save("4 4 3 3 2 2 1\\n", rules="classic", result="red",
...                     finished=datetime.datetime(2026, 11, 29, 17, 5), moves=7)
>>> game.path.name
'0001-2026-11-29T1705-classic.txt'
>>> [(g.number, g.rules, g.result, g.moves) for g in archive.games()]
[(1, 'classic', 'red', 7)]
>>> archive.read(1)
'4 4 3 3 2 2 1\\n'
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from controller.store.journal import fsync_directory, write_synced

__all__ = ["ArchiveError", "ArchivedGame", "GameArchive", "NoSuchGame"]

# The rules part allows the names of RULES_NAMES ("five+pop10") and little else,
# so a file name never needs quoting in a shell.
NAME = re.compile(r"^(?P<number>\d{4,})-(?P<stamp>\d{4}-\d\d-\d\dT\d{4})-(?P<rules>[a-z0-9+_]+)$")
STAMP_FORMAT = "%Y-%m-%dT%H%M"


class ArchiveError(Exception):
    """The archive cannot be read or written; the message is one line.

    ``reason`` is the system's own words for it (``"No space left on device"``),
    ``errno`` the system's error number where there is one.
    """

    def __init__(self, message: str, reason: str = "", errno: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message
        self.errno = errno


class NoSuchGame(ArchiveError, LookupError):
    """There is no archived game with that number."""


@dataclass(frozen=True)
class ArchivedGame:
    """One finished game in the archive.

    ``result`` and ``moves`` come from the game's facts file; a record copied in
    by hand without one lists its result as ``"?"`` and no move count.
    """

    number: int
    finished: datetime
    rules: str
    result: str
    path: Path
    moves: int | None = None


class GameArchive:
    """The finished games in one directory (created on the first save).

    >>> import tempfile, pathlib
    >>> GameArchive(pathlib.Path(tempfile.mkdtemp()) / "games").games()
    []
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def save(
        self,
        text: str,
        *,
        rules: str,
        result: str,
        finished: datetime,
        moves: int | None = None,
        key: str | None = None,
    ) -> ArchivedGame:
        """Store one finished game's record under the next free number and
        return its entry; with *key*, the entry of the game already saved
        under that key if there is one."""
        slug = re.sub(r"[^a-z0-9+_]+", "_", rules.lower()).strip("_") or "game"
        stamp = finished.strftime(STAMP_FORMAT)
        facts = {
            "rules": rules,
            "result": result,
            "finished": finished.isoformat(),
            "moves": moves,
        }
        if key is not None:
            facts["key"] = key
        facts_data = (json.dumps(facts, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            known = self._keyed(key) if key is not None else None
            if known is not None:
                return self._finish(known, text)
            number = self._next_number()
            while True:
                stem = f"{number:04d}-{stamp}-{slug}"
                # The facts file claims the number: a concurrent or crashed save
                # that got it first makes this one move on, never overwrite.
                if write_new(self.directory / f"{stem}.json", facts_data):
                    break
                number += 1
            path = self.directory / f"{stem}.txt"
            write_new(path, text.encode("utf-8"))
        except OSError as error:
            reason = error.strerror or str(error)
            message = f"cannot save the game in {self.directory}: {reason}"
            raise ArchiveError(message, reason, error.errno) from None
        return ArchivedGame(number, finished, rules, result, path, moves)

    def _keyed(self, key: str) -> Path | None:
        """The facts file of the game saved under *key*, if any."""
        for name in sorted(os.listdir(self.directory), reverse=True):
            stem, _, extension = name.rpartition(".")
            if extension != "json" or not NAME.match(stem):
                continue
            try:
                facts = json.loads((self.directory / name).read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(facts, dict) and facts.get("key") == key:
                return self.directory / name
        return None

    def _finish(self, facts: Path, text: str) -> ArchivedGame:
        """The entry of a game already saved, writing its record if a crash
        came between its facts file and its record."""
        path = facts.with_suffix(".txt")
        if not path.exists():
            write_new(path, text.encode("utf-8"))
        match = NAME.match(path.stem)
        assert match is not None
        entry = self._entry(match, path)
        assert entry is not None, "save() names files after real dates"
        return entry

    def games(self, warn: Callable[[str], None] | None = None) -> list[ArchivedGame]:
        """Every archived game, oldest first; none if the directory does not exist yet.

        A file whose name has an impossible date is left out, and *warn* is
        told so in one sentence."""
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return []
        except OSError as error:
            raise ArchiveError(
                f"cannot read the games in {self.directory}: {error.strerror or error}"
            ) from None
        found = []
        for name in names:
            stem, dot, extension = name.rpartition(".")
            match = NAME.match(stem)
            if dot and extension == "txt" and match:
                entry = self._entry(match, self.directory / name)
                if entry is not None:
                    found.append(entry)
                elif warn is not None:
                    warn(f"skipped {self.directory / name}: its name has an impossible date")
        return sorted(found, key=lambda game: game.number)

    def read(self, number: int) -> str:
        """The record of game *number*, exactly as saved."""
        for game in self.games():
            if game.number == number:
                try:
                    return game.path.read_bytes().decode("utf-8")
                except OSError as error:
                    reason = error.strerror or str(error)
                except UnicodeDecodeError:
                    reason = "it is not UTF-8 text"
                raise ArchiveError(f"cannot read game {number} from {game.path}: {reason}")
        # what lists the games is the caller's to say (``popref games``
        # adds the options that name this directory)
        raise NoSuchGame(f"there is no game {number} in {self.directory}")

    def _entry(self, match: re.Match[str], path: Path) -> ArchivedGame | None:
        number = int(match["number"])
        try:
            finished = datetime.strptime(match["stamp"], STAMP_FORMAT)
        except ValueError:
            return None
        rules, result, moves = match["rules"], "?", None
        try:
            facts = json.loads(path.with_suffix(".json").read_bytes())
            finished = datetime.fromisoformat(facts["finished"])
            rules, result = str(facts["rules"]), str(facts["result"])
            moves = facts["moves"] if isinstance(facts["moves"], int) else None
        except (OSError, ValueError, KeyError, TypeError):
            pass  # A record without usable facts is still listed, from its name.
        return ArchivedGame(number, finished, rules, result, path, moves)

    def next_number(self) -> int:
        """The number the next game saved here gets (1 while there is none)."""
        try:
            return self._next_number()
        except OSError:  # none yet, or not to be read: numbered from 1
            return 1

    def _next_number(self) -> int:
        highest = 0
        for name in os.listdir(self.directory):
            match = NAME.match(name.rpartition(".")[0])
            if match:
                highest = max(highest, int(match["number"]))
        return highest + 1


def write_new(path: Path, data: bytes) -> bool:
    """Atomically create *path* holding *data*; False if it already exists."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # see write_synced
    write_synced(temporary, data, 0o644)
    try:
        # Unlike a rename, a hard link fails rather than replace an existing file.
        os.link(temporary, path)
    except FileExistsError:
        return False
    finally:
        os.unlink(temporary)
    fsync_directory(path.parent)
    return True
