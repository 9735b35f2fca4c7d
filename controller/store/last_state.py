"""The last state a finished game published under its invitation, kept in
the state directory until the next one. When the same link plays on, that
state, ended and naming the next game, is the last word on the old topics
(docs/remote.md, "The next game on the same link"). A daemon killed between
journalling its next game and publishing that word has only the journal
when it starts again, and the journal holds the next game: this file is
where the word comes from then, so the other side still follows.

It holds no secret (the published state is what the broker sees), but it is
its owner's alone, as the journal is.

>>> import tempfile
>>> directory = Path(tempfile.mkdtemp())
>>> keep(directory, "g1", {"result": "red", "ply": 7})
>>> kept(directory, "g1")
{'result': 'red', 'ply': 7}
>>> kept(directory, "another game") is None
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.store.journal import read_regular, replace_file

FILE = "last-state.json"
MOST = 256 * 1024  # bytes: a state is a few kilobytes; more is not one of ours


def keep(directory: Path, game: str, state: dict[str, Any]) -> None:
    """Keep ``state`` as game ``game``'s last, synced (``OSError`` if it
    cannot be written)."""
    data = json.dumps({"game": game, "state": state}, ensure_ascii=False, allow_nan=False)
    replace_file(directory / FILE, data.encode("utf-8"), 0o600)


def kept(directory: Path, game: str) -> dict[str, Any] | None:
    """Game ``game``'s last state, or None: none kept, another game's, or
    not one (unreadable, too long, not JSON), which is as good as none."""
    try:
        data = read_regular(directory / FILE, MOST + 1)
    except (OSError, ValueError):  # unreadable, or a FIFO or a directory in its place
        return None
    if data is None or len(data) > MOST:
        return None
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("game") != game:
        return None
    state = value.get("state")
    return state if isinstance(state, dict) else None
