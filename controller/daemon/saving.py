"""A write that failed (the journal's or the archive's), turned into a fault
the board shows while play goes on, logged once and retried.

>>> from pathlib import Path
>>> from hardware.clock import FakeClock
>>> clock = FakeClock()
>>> saving = Saving(Path("/var/lib/popref"), clock)
>>> with saving.guard():
...     raise OSError(28, "No space left on device")
>>> print(saving.fault)  # doctest: +ELLIPSIS
Cannot save the game (No space left on device); play on, but free space in /var/lib/popref so...
>>> saving.due(clock()), saving.due(clock() + STORAGE_RETRY)
(False, True)
>>> saving.cleared(); saving.fault is None
True
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.i18n.text import Text, _t
from controller.store.archive import ArchiveError
from hardware.clock import Clock

log = logging.getLogger("popref")

STORAGE_RETRY = 10.0  # seconds between attempts to write again after a storage fault


class Saving:
    """Whether the game in ``state_dir`` is being saved, and if not, why and
    when to try again."""

    def __init__(self, state_dir: Path, clock: Clock) -> None:
        self.state_dir = state_dir
        self._clock = clock
        self.fault: Text | None = None  # what the board shows while nothing can be saved
        self._retry_at: float | None = None

    @contextmanager
    def guard(self, fatal: tuple[type[OSError], ...] = ()) -> Iterator[None]:
        """Turn a failed write in the block into the fault, logged the first
        time. Errors of the ``fatal`` kinds are raised instead (at start-up, a
        state directory popref may not write to is a mistake to fix first)."""
        try:
            yield
        except fatal:
            raise
        except (OSError, ArchiveError) as error:
            if isinstance(error, OSError):
                reason = error.strerror or errno.errorcode.get(error.errno or 0, str(error))
            else:
                reason = error.reason
            if self.fault is None:
                log.error("Cannot save the game in %s: %s.", self.state_dir, reason)
            self.fault = _fault(reason, str(self.state_dir), error.errno)
            self._retry_at = self._clock() + STORAGE_RETRY

    def due(self, now: float) -> bool:
        """Whether it is time to write the whole state again."""
        return self.fault is not None and self._retry_at is not None and now >= self._retry_at

    def deadline(self) -> float | None:
        """When the next attempt is due, while nothing can be saved."""
        return self._retry_at if self.fault is not None else None

    def cleared(self) -> None:
        """The whole state was written: the game is saved again."""
        if self.fault is not None:
            self.fault = None
            self._retry_at = None
            log.info("%s", _t("The game is being saved again."))


def _fault(reason: str, place: str, code: int | None) -> Text:
    if code in (errno.ENOSPC, errno.EDQUOT):
        return _t(
            "Cannot save the game ({reason}); play on, but free space in {place} "
            "so a restart does not lose it.",
            reason=reason,
            place=place,
        )
    return _t(
        "Cannot save the game ({reason}); play on, but let popref write to {place} "
        "so a restart does not lose it.",
        reason=reason,
        place=place,
    )
