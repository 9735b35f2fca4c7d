"""Finished games, kept as game-record texts numbered in the order they ended.

Each game is two files in the archive directory: the record exactly as the
engine wrote it (``0001-2026-11-29T1705-pop10.txt``) and a small JSON file of
the facts a listing needs (``0001-2026-11-29T1705-pop10.json``), so listing
never parses a record. Both are written atomically; the record is written
last, so a game is in the archive once its ``.txt`` file is.

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
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from controller.journal import fsync_directory, write_synced

__all__ = ["ArchiveError", "ArchivedGame", "GameArchive", "NoSuchGame"]

# The rules part allows the names of RULES_NAMES ("five+pop10") and little else,
# so a file name never needs quoting in a shell.
NAME = re.compile(r"^(?P<number>\d{4,})-(?P<stamp>\d{4}-\d\d-\d\dT\d{4})-(?P<rules>[a-z0-9+_]+)$")
STAMP_FORMAT = "%Y-%m-%dT%H%M"


class ArchiveError(Exception):
    """The archive cannot be read or written; the message is one line."""


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
    ) -> ArchivedGame:
        """Store one finished game's record under the next free number and return its entry."""
        slug = re.sub(r"[^a-z0-9+_]+", "_", rules.lower()).strip("_") or "game"
        stamp = finished.strftime(STAMP_FORMAT)
        facts = {
            "rules": rules,
            "result": result,
            "finished": finished.isoformat(),
            "moves": moves,
        }
        facts_data = (json.dumps(facts, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
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
            raise ArchiveError(
                f"cannot save the game in {self.directory}: {error.strerror or error}"
            ) from None
        return ArchivedGame(number, finished, rules, result, path, moves)

    def games(self) -> list[ArchivedGame]:
        """Every archived game, oldest first; none if the directory does not exist yet."""
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
                found.append(self._entry(match, self.directory / name))
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
        raise NoSuchGame(
            f"there is no game {number} in {self.directory}; `popref games` lists the games"
        )

    def _entry(self, match: re.Match[str], path: Path) -> ArchivedGame:
        number = int(match["number"])
        finished = datetime.strptime(match["stamp"], STAMP_FORMAT)
        rules, result, moves = match["rules"], "?", None
        try:
            facts = json.loads(path.with_suffix(".json").read_bytes())
            finished = datetime.fromisoformat(facts["finished"])
            rules, result = str(facts["rules"]), str(facts["result"])
            moves = facts["moves"] if isinstance(facts["moves"], int) else None
        except (OSError, ValueError, KeyError, TypeError):
            pass  # A record without usable facts is still listed, from its name.
        return ArchivedGame(number, finished, rules, result, path, moves)

    def _next_number(self) -> int:
        highest = 0
        for name in os.listdir(self.directory):
            match = NAME.match(name.rpartition(".")[0])
            if match:
                highest = max(highest, int(match["number"]))
        return highest + 1


def write_new(path: Path, data: bytes) -> bool:
    """Atomically create *path* holding *data*; False if it already exists."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
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
