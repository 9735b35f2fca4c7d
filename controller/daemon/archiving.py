"""Finished games on their way to the archive: queued when they end, saved
oldest first when storage allows, each under a key that names it, so saving
it again after a crash (the journal replayed) does not save it twice.

>>> import tempfile
>>> from pathlib import Path
>>> from engine import new_game
>>> from controller.store.archive import GameArchive
>>> archive = GameArchive(Path(tempfile.mkdtemp()) / "games")
>>> waiting = ArchiveQueue(archive)
>>> game = new_game("classic")
>>> for move in "4 4 3 3 2 2 1".split():
...     game.play(move)
>>> waiting.finished(game, journal_id="5f1d", number=1)
>>> waiting.finished(game, journal_id="5f1d", number=1)  # the same game, replayed
>>> [g.number for g in waiting.save_all()]  # the entries saved: one game, twice
[1, 1]
>>> [g.result for g in archive.games()]
['red']
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from controller.i18n.text import _t
from controller.store.archive import ArchivedGame, GameArchive
from engine import Game, write_record

log = logging.getLogger("popref")


@dataclass(frozen=True)
class Unarchived:
    """A finished game not yet in the archive. ``key`` names it for the
    archive, so saving it again after a crash does not save it twice."""

    game: Game
    finished: datetime
    key: str


class ArchiveQueue:
    """The finished games ``archive`` has not taken yet."""

    def __init__(self, archive: GameArchive) -> None:
        self.archive = archive
        self._waiting: list[Unarchived] = []

    def finished(self, game: Game, journal_id: str, number: int) -> None:
        """Queue ``game``, the ``number``-th of the journal ``journal_id``: the
        same key when the journal is replayed after a crash."""
        name = f"{journal_id}\n{number}\n{write_record(game)}"
        key = hashlib.sha256(name.encode()).hexdigest()[:32]
        self._waiting.append(Unarchived(game.copy(), datetime.now(UTC), key))

    def forget(self) -> None:
        """The journal says every game before this point is archived."""
        self._waiting.clear()

    def save_all(self) -> list[ArchivedGame]:
        """Save every game still waiting, oldest first, each said in the log,
        and return their entries; a failed save raises (an ``OSError`` or
        ``ArchiveError``) and leaves it and the rest waiting."""
        entries: list[ArchivedGame] = []
        while self._waiting:
            waiting = self._waiting[0]
            game = waiting.game
            saved = self.archive.save(
                write_record(game),
                rules=game.rules.name,
                result="*" if game.result is None else str(game.result),
                finished=waiting.finished,
                moves=len(game.moves),
                key=waiting.key,
            )
            self._waiting.pop(0)
            entries.append(saved)
            log.info("%s", _t("Saved the game as {name}.", name=saved.path.name))
        return entries
