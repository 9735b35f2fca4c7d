"""A full disk for one directory, inside this process.

While :func:`full_disk` is active, every ``os.write`` and ``os.fsync`` on a
file under the directory fails with ``ENOSPC``, as on a real full file system:
the journal's and the archive's writes go through ``os.write``, so they fail
exactly where a full disk would fail them (creating an empty file still
works, as it usually does on a full disk). Other files are not touched.

>>> import os, tempfile, pathlib
>>> directory = pathlib.Path(tempfile.mkdtemp())
>>> fd = os.open(directory / "f", os.O_WRONLY | os.O_CREAT)
>>> with full_disk(directory):
...     os.write(fd, b"x")
Traceback (most recent call last):
...
OSError: [Errno 28] No space left on device
>>> os.write(fd, b"x")
1
>>> os.close(fd)
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

__all__ = ["full_disk"]


@contextmanager
def full_disk(directory: Path, code: int = errno.ENOSPC) -> Iterator[None]:
    """Make writes under *directory* fail with ``ENOSPC`` (or another error
    ``code``, such as a quota's ``EDQUOT``) until the block ends."""
    root = str(Path(directory).resolve())
    real_write, real_fsync = os.write, os.fsync

    def under(fd: int) -> bool:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return False
        return target == root or target.startswith(root + os.sep)

    def write(fd: int, data: Any) -> int:
        if under(fd):
            raise OSError(code, os.strerror(code))
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        if under(fd):
            raise OSError(code, os.strerror(code))
        real_fsync(fd)

    with mock.patch.object(os, "write", write), mock.patch.object(os, "fsync", fsync):
        yield
