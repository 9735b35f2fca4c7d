"""The journal: every accepted fact of the game in progress, on disk before it is shown.

One record a line: the CRC-32 of the rest of the line in eight hex digits, a
space, the line's sequence number (its line number, from 1), a space, the record
as compact JSON, a newline. Each :meth:`Journal.append` is written and
``fsync``'d before it returns, so a crash, a ``kill -9`` or a power cut can only
ever leave the *last* line incomplete (no newline yet). :meth:`Journal.load`
drops such a torn tail (and says so); anything else wrong is damage: a complete
line with a bad checksum, JSON that is not a plain object of finite numbers, a
line out of sequence (duplicated, dropped or swapped lines). A damaged file is
moved aside rather than trusted or deleted. Lines written before sequence
numbers existed (``CRC JSON``) are still read, at the start of a file only.

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
import math
import os
import stat
import zlib
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["Journal", "JournalDamaged", "JournalError", "JournalLoad", "NotAJournalFile"]


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


class NotAJournalFile(JournalError):
    """Something other than a regular file (a FIFO, a device, a directory) is
    where the journal should be; reading it could hang, so it is left alone."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path = path
        super().__init__(
            f"journal {path} is {kind}, not a file; remove it (popref creates the journal "
            "itself) or pass another --state-dir"
        )


@dataclass(frozen=True)
class JournalLoad:
    """What :meth:`Journal.load` found: the good records, and whether a torn one was dropped."""

    records: list[dict[str, Any]]
    torn: bool


def encode(record: dict[str, Any], sequence: int = 1) -> bytes:
    """Journal line number *sequence* for *record*.

    >>> encode({"a": 1})
    b'ed42d1b8 1 {"a":1}\\n'
    """
    if not isinstance(record, dict):
        raise TypeError(f"a journal record must be a dict, not {type(record).__name__}")
    # json escapes control characters, so the text can never contain a newline.
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    data = b"%d %s" % (sequence, text.encode("ascii"))
    return b"%08x %s\n" % (zlib.crc32(data), data)


def decode(line: bytes) -> tuple[int | None, dict[str, Any]]:
    """The sequence number (None on a line written before there were any) and
    the record on one journal line (without its newline); ValueError saying why not."""
    crc, space, data = line.partition(b" ")
    # eight lower-case hex digits, as written: int() alone would also take a
    # sign, spaces or underscores, so a flipped bit could still parse
    if not space or len(crc) != 8 or crc.strip(b"0123456789abcdef"):
        raise ValueError("not a journal line")
    expected = int(crc, 16)
    if zlib.crc32(data) != expected:
        raise ValueError("bad checksum")
    sequence: int | None = None
    if not data.startswith(b"{"):
        number, space, data = data.partition(b" ")
        if not space or not number.isdigit() or len(number) > 18:
            raise ValueError("not a journal line")
        sequence = int(number)
    return sequence, parse_json(data)


def parse_json(data: bytes) -> dict[str, Any]:
    """A JSON object with finite numbers only (Python's reader takes ``NaN``,
    ``Infinity`` and ``1e999`` as numbers); ValueError saying why not."""
    try:
        record = json.loads(data, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as error:
        reason = str(error) if isinstance(error, NotFinite) else "bad JSON"
        raise ValueError(reason) from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    return record


class NotFinite(ValueError):
    pass


def _no_constant(name: str) -> float:
    raise NotFinite(f"the number {name} is not finite")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise NotFinite(f"the number {text} is not finite")
    return number


def fsync_directory(directory: Path) -> None:
    """Make a file's creation, rename or removal in *directory* durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, mode: int, *, sync: bool = True) -> None:
    """Create *path* afresh, write all of *data* and sync it to disk (unless
    not *sync*: a file a power cut may lose).

    A file left there (a crash mid-write) is removed first; the new one is
    created exclusively and never through a symbolic link, so a link planted
    in its place cannot redirect the write to another file. A write that
    fails (a full disk) removes what it created: a full disk takes the
    bytes, but creating the file usually still works, and an empty or
    partial file left behind would be litter nobody cleans.
    """
    with suppress(FileNotFoundError):
        os.unlink(path)  # removes a symbolic link itself, never its target
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if sync:
            os.fsync(fd)
    except BaseException:
        with suppress(OSError):
            os.unlink(path)
        raise
    finally:
        os.close(fd)


def replace_file(path: Path, data: bytes, mode: int, *, sync: bool = True) -> None:
    """Atomically make *data* the content of *path*: a crash or a full disk
    leaves the old file or the new one, and nothing else beside it (and
    unless not *sync*, the new one is on disk when this returns)."""
    temporary = path.with_name(f"{path.name}.new")
    write_synced(temporary, data, mode, sync=sync)
    try:
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
    if sync:
        fsync_directory(path.parent)


def move_aside(path: Path, label: str = "damaged") -> Path:
    """Rename *path* to the first free ``<name>.<label>-<N>`` beside it and return that."""
    number = 1
    while True:
        target = path.with_name(f"{path.name}.{label}-{number}")
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
        self._next = 1  # the sequence number of the next line

    def load(self) -> JournalLoad:
        """Read every record; drop a torn last one; raise :class:`JournalDamaged` on other damage.

        A missing file is an empty journal. A dropped tail is cut off the file
        so that the next append starts on a clean line. Only a last line with
        no newline is torn: a complete line that does not read is damage.
        """
        self._close_fd()
        data = self._read()
        if data is None:
            self._checked = True
            self._next = 1
            return JournalLoad(records=[], torn=False)
        lines = data.split(b"\n")
        # After the last newline: b"" for a clean file, else an incomplete record.
        tail = lines.pop()
        records: list[dict[str, Any]] = []
        legacy = True  # lines without sequence numbers may only start a file
        for number, line in enumerate(lines, start=1):
            try:
                sequence, record = decode(line)
                legacy = check_sequence(number, sequence, legacy)
            except ValueError as error:
                moved_to = move_aside(self.path)
                raise JournalDamaged(self.path, number, str(error), moved_to) from None
            records.append(record)
        torn = bool(tail)
        if torn:
            self._truncate(len(data) - len(tail))
        self._checked = True
        self._next = len(records) + 1
        return JournalLoad(records=records, torn=torn)

    def append(self, record: dict[str, Any]) -> None:
        """Add *record* and return only once it is on disk.

        If :meth:`load` has not been called yet it is called first, so that a
        record never lands on the end of a torn one.
        """
        if not self._checked:
            self.load()
        line = encode(record, self._next)
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
        self._next += 1

    def replace(self, records: list[dict[str, Any]]) -> None:
        """Atomically make *records* the whole journal (a crash leaves the old or the new one)."""
        data = b"".join(encode(record, number) for number, record in enumerate(records, 1))
        self._close_fd()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(self.path, data, 0o640)
        self._checked = True
        self._next = len(records) + 1

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

    def _read(self) -> bytes | None:
        """The whole file, or None if there is none; never blocks on a FIFO."""
        try:
            return read_regular(self.path)
        except SpecialFile as error:
            raise NotAJournalFile(self.path, error.kind) from None

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


def check_sequence(line: int, sequence: int | None, legacy: bool) -> bool:
    """Check line *line*'s sequence number; returns whether the file may still
    be in its unnumbered (older) part."""
    if sequence is None:
        if not legacy:
            raise ValueError("a line without a sequence number after numbered ones")
        return True
    if sequence != line:
        raise ValueError(f"numbered {sequence}: lines duplicated, lost or swapped")
    return False


class SpecialFile(ValueError):
    """Something other than a regular file is where a file should be."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path = path
        self.kind = kind
        super().__init__(f"{path} is {kind}, not a file")


def read_regular(path: Path, limit: int | None = None) -> bytes | None:
    """The content of the regular file *path* (its first *limit* bytes), or
    None if there is none; :class:`SpecialFile` for a FIFO, a device or a
    directory, which is never read (a FIFO would block)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SpecialFile(Path(path), kind_of(mode))
        chunks: list[bytes] = []
        size = 0
        while limit is None or size < limit:
            chunk = os.read(fd, 1 << 16 if limit is None else min(1 << 16, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, for a sentence ("a FIFO")."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"
