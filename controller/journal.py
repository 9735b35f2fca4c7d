"""The journal: every accepted fact of the game in progress, on disk before it is shown.

One record a line: the CRC-32 of the JSON text in eight hex digits, a space, the
record as compact JSON, a newline. Each :meth:`Journal.append` is written and
``fsync``'d before it returns, so a crash, a ``kill -9`` or a power cut can only
ever leave the *last* line incomplete. :meth:`Journal.load` drops such a torn
tail (and says so); anything else wrong is damage, and the file is moved aside
rather than trusted or deleted.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "journal"
>>> journal = Journal(path)
>>> journal.load()
JournalLoad(records=[], torn=False)
>>> journal.append({"move": "4"})
>>> journal.close()
>>> Journal(path).load().records
[{'move': '4'}]
"""

from __future__ import annotations

import json
import os
import zlib
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["Journal", "JournalDamaged", "JournalError", "JournalLoad"]


class JournalError(Exception):
    """Something is wrong with the journal's content.

    When the operating system refuses (no space, no permission, an I/O error)
    the ``OSError`` itself is raised, as for any file.
    """


class JournalDamaged(JournalError):
    """A record other than the last one is unreadable; the file was moved aside.

    The message is one line naming the file, the line and where the damaged
    file now is, so start-up can simply be retried with a fresh journal.
    """

    def __init__(self, path: Path, line: int, reason: str, moved_to: Path) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        self.moved_to = moved_to
        super().__init__(
            f"journal {path} is damaged at line {line} ({reason}); it was moved aside to "
            f"{moved_to}: start again to begin a new game, or repair that file and move it back"
        )


@dataclass(frozen=True)
class JournalLoad:
    """What :meth:`Journal.load` found: the good records, and whether a torn one was dropped."""

    records: list[dict[str, Any]]
    torn: bool


def encode(record: dict[str, Any]) -> bytes:
    """One journal line for *record*.

    >>> encode({"a": 1})
    b'561bacaf {"a":1}\\n'
    """
    if not isinstance(record, dict):
        raise TypeError(f"a journal record must be a dict, not {type(record).__name__}")
    # json escapes control characters, so the text can never contain a newline.
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    data = text.encode("ascii")
    return b"%08x %s\n" % (zlib.crc32(data), data)


def decode(line: bytes) -> dict[str, Any]:
    """The record on one journal line (without its newline); ValueError saying why not."""
    crc, space, data = line.partition(b" ")
    if not space or len(crc) != 8:
        raise ValueError("not a journal line")
    try:
        expected = int(crc, 16)
    except ValueError:
        raise ValueError("not a journal line") from None
    if zlib.crc32(data) != expected:
        raise ValueError("bad checksum")
    try:
        record = json.loads(data)
    except ValueError:
        raise ValueError("bad JSON") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    return record


def fsync_directory(directory: Path) -> None:
    """Make a file's creation, rename or removal in *directory* durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, mode: int) -> None:
    """Create or truncate *path*, write all of *data* and sync it to disk."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def move_aside(path: Path) -> Path:
    """Rename *path* to the first free ``<name>.damaged-<N>`` beside it and return that."""
    number = 1
    while True:
        target = path.with_name(f"{path.name}.damaged-{number}")
        try:
            # A hard link never replaces an existing file, unlike a rename.
            os.link(path, target)
        except FileExistsError:
            number += 1
            continue
        os.unlink(path)
        fsync_directory(path.parent)
        return target


class Journal:
    """An append-only file of small JSON-able dicts, each durable once appended.

    Call :meth:`load` once at start-up, then :meth:`append` each accepted fact;
    :meth:`replace` swaps in a whole new list atomically (a new game).

    >>> import tempfile, pathlib
    >>> with Journal(pathlib.Path(tempfile.mkdtemp()) / "j") as journal:
    ...     journal.replace([{"game": "classic"}])
    ...     journal.append({"move": "4"})
    ...     journal.load().records
    [{'game': 'classic'}, {'move': '4'}]
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._checked = False

    def load(self) -> JournalLoad:
        """Read every record; drop a torn last one; raise :class:`JournalDamaged` on other damage.

        A missing file is an empty journal. A dropped tail is cut off the file
        so that the next append starts on a clean line.
        """
        self._close_fd()
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            self._checked = True
            return JournalLoad(records=[], torn=False)
        lines = data.split(b"\n")
        # After the last newline: b"" for a clean file, else an incomplete record.
        tail = lines.pop()
        records: list[dict[str, Any]] = []
        good_length = 0
        torn = bool(tail)
        for number, line in enumerate(lines, start=1):
            try:
                record = decode(line)
            except ValueError as error:
                if number == len(lines) and not tail:
                    torn = True
                    break
                moved_to = move_aside(self.path)
                raise JournalDamaged(self.path, number, str(error), moved_to) from None
            records.append(record)
            good_length += len(line) + 1
        if torn:
            self._truncate(good_length)
        self._checked = True
        return JournalLoad(records=records, torn=torn)

    def append(self, record: dict[str, Any]) -> None:
        """Add *record* and return only once it is on disk.

        If :meth:`load` has not been called yet it is called first, so that a
        record never lands on the end of a torn one.
        """
        line = encode(record)
        if not self._checked:
            self.load()
        try:
            fd = self._open_for_append()
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        except OSError:
            # Part of the line may have reached the file: the next append loads
            # again first, which cuts that torn tail off.
            with suppress(OSError):
                self._close_fd()
            self._checked = False
            raise

    def replace(self, records: list[dict[str, Any]]) -> None:
        """Atomically make *records* the whole journal (a crash leaves the old or the new one)."""
        data = b"".join(encode(record) for record in records)
        self._close_fd()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f"{self.path.name}.new")
        write_synced(temporary, data, 0o640)
        os.replace(temporary, self.path)
        fsync_directory(self.path.parent)
        self._checked = True

    def close(self) -> None:
        """Close the file; a later append opens it again."""
        self._close_fd()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _open_for_append(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            existed = self.path.exists()
            self._fd = os.open(
                self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o640
            )
            if not existed:
                fsync_directory(self.path.parent)
        return self._fd

    def _truncate(self, length: int) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.ftruncate(fd, length)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _close_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
