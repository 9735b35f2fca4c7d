"""The other grid's link this grid was given on its page (docs/remote.md,
"Linked grids"), kept in the state directory so that a restart joins the
same game again. It holds the invitation's secret, so the file is its
owner's alone (mode 600), as the journal that holds the same secret is.

>>> import tempfile
>>> directory = Path(tempfile.mkdtemp())
>>> store(directory, "https://pi.local/remote#v=1&g=...")
>>> stored(directory)
'https://pi.local/remote#v=1&g=...'
>>> oct((directory / FILE).stat().st_mode & 0o777)
'0o600'
>>> forget(directory); stored(directory) is None
True
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from controller.store.journal import replace_file

FILE = "joined-link"
MOST = 4096  # bytes: a link is a few hundred; more is not one


def stored(directory: Path) -> str | None:
    """The link kept, or None: none kept, or not one (unreadable, too long,
    not text), which is forgotten rather than followed."""
    try:
        data = (directory / FILE).read_bytes()
    except OSError:  # none, or not readable: as good as none
        return None
    text = data.decode("utf-8", errors="replace").strip()
    if len(data) > MOST or not text or "\ufffd" in text or "\n" in text:
        return None
    return text


def store(directory: Path, link: str) -> None:
    """Keep ``link``, synced (``OSError`` if it cannot be written)."""
    replace_file(directory / FILE, (link + "\n").encode("utf-8"), 0o600)


def forget(directory: Path) -> None:
    """No link kept any more."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(directory / FILE)
