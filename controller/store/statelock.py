"""One daemon per state directory.

Two daemons on one directory would both append to one journal, and the next
start would find it damaged. So a daemon takes an exclusive ``flock`` on
``<state_dir>/lock`` before it touches anything else there (the journal, the
archive, the markers, the board), and keeps it until it closes; the kernel
drops it when the process ends, however it ends. The holder writes its pid
and command into the file, so a second daemon can name it in its one line
(the secret of an invitation link on that command line hidden: the file is
anyone's to read, and so is the line).
Readers (``popref games``) need no lock: every file they read is written
whole and renamed into place.

>>> import tempfile, pathlib
>>> directory = pathlib.Path(tempfile.mkdtemp())
>>> held = lock_state_dir(directory, "popref run")
>>> lock_state_dir(directory, "popref simulate")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
controller.store.statelock.StateDirBusy: ... is in use by process ... (popref run); stop it ...
>>> held.release()
>>> lock_state_dir(directory, "popref simulate").release()
"""

from __future__ import annotations

import fcntl
import os
import shlex
import stat
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from controller.store.journal import kind_of, read_regular

LOCK_NAME = "lock"
HOLDER_LIMIT = 200  # characters of the holder's command worth quoting


class StateDirBusy(Exception):
    """Another process holds the state directory; the message is one line."""


class StateLock:
    """The lock on one state directory, held until :meth:`release`."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with suppress(OSError):
            os.ftruncate(fd, 0)  # nobody holds it now
        os.close(fd)  # closing the last descriptor drops the flock


def this_command() -> str:
    """This process's popref command line, as the holder names itself."""
    return shlex.join(["popref", *sys.argv[1:]])


def lock_state_dir(
    directory: Path, command: str | None = None, shown: Callable[[str], str] = str
) -> StateLock:
    """Take ``directory``'s lock (creating both if need be), or raise
    :class:`StateDirBusy` naming the process that holds it. ``OSError``
    (permission, not a directory) is raised as it is. ``shown`` is how a
    command line may be shown: the lock file is anyone's to read, and the
    holder's command is quoted to whoever starts a second daemon, so the
    caller hides what must not be (an invitation link's secret)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_NAME
    # O_NONBLOCK: a FIFO planted there must not hang the start
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    fd = os.open(path, flags, 0o644)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise StateDirBusy(
                f"{path} is {kind_of(mode)}, not a file; remove it (popref creates it itself)"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StateDirBusy(busy(directory, holder(path, shown))) from None
        with suppress(OSError):  # the name is a courtesy: a full disk must not stop the daemon
            os.ftruncate(fd, 0)
            named = shown(command or this_command())
            os.pwrite(fd, f"{os.getpid()} {named}\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    return StateLock(path, fd)


def holder(path: Path, shown: Callable[[str], str] = str) -> tuple[int, str] | None:
    """The pid and command the lock file names, if it names them (as
    ``shown`` shows a command line)."""
    try:
        data = read_regular(path, 4096)
    except OSError:
        return None
    line = (data or b"").decode("utf-8", "replace").partition("\n")[0]
    pid, _, command = line.partition(" ")
    if not pid.isascii() or not pid.isdigit() or len(pid) > 10:
        return None
    # a lock written by a popref that kept the secret in it
    said = "".join(c if c.isprintable() else "?" for c in shown(command))
    if len(said) > HOLDER_LIMIT:
        said = said[: HOLDER_LIMIT - 3] + "..."
    return int(pid), said


def busy(directory: Path, held_by: tuple[int, str] | None) -> str:
    """The one line for a directory someone else holds.

    >>> print(busy(Path("/var/lib/popref"), (812, "popref run")))
    /var/lib/popref is in use by process 812 (popref run); stop it (for the service: \
systemctl stop popref) or pass another --state-dir
    """
    who = "another popref process" if held_by is None else f"process {held_by[0]} ({held_by[1]})"
    return (
        f"{directory} is in use by {who}; stop it (for the service: systemctl stop popref) "
        "or pass another --state-dir"
    )
