"""Whether the other side of a linked game is there (docs/remote.md,
"Linked grids"): each side says ``up`` on every connection to the broker,
and leaves the broker a will, ``down``, that it publishes when that
connection dies without a goodbye. Each connection has a random name
(``conn``); a will names the connection it is for.

The broker keeps the order of one topic, yet a will and the next
connection's ``up`` may still meet in either order (a will is published when
the broker notices the loss, which can be after the new connection), so a
``down`` is not ordered by number: it ends the one connection it names, and
an ``up`` names the connection that is current. Presence is retained on
the broker, so a side that starts again hears the other side's last word:
a ``down`` heard before any ``up`` says the other side had gone (it left,
or died, while this one was away), until it says ``up`` again; a stale
will heard so is healed by the other side's answer to this side's ``up``.
A replayed ``up`` is older
than the last one taken and is dropped; a replayed ``down`` names a
connection that is over, or, replayed while its connection lives, makes
the side look away until the next ``up``: no more than dropping messages,
which whoever can replay can do anyway.

>>> presence = Presence()
>>> presence.up is None
True
>>> presence.take(5, {"up": True, "conn": "a"}), presence.up
(True, True)
>>> presence.take(3, {"up": False, "conn": "a"}), presence.up
(True, False)
>>> presence.take(7, {"up": True, "conn": "b"}), presence.up
(True, True)
>>> presence.take(6, {"up": True, "conn": "a"}), presence.up
(False, True)
>>> started = Presence()  # the retained word of a side that left
>>> started.take(9, {"up": False, "conn": "c"}), started.up
(True, False)
"""

from __future__ import annotations

from collections import deque
from typing import Any

GONE = 16  # ended connections remembered; a side reconnects far less often between messages


class Presence:
    """The other side's presence as its messages say; ``up`` is ``None``
    until it said anything."""

    def __init__(self) -> None:
        self._seq = 0  # the number of the last ``up`` taken
        self._conn: str | None = None
        self._gone: deque[str] = deque(maxlen=GONE)

    @property
    def seq(self) -> int:
        """The number of the last ``up`` taken (0: none yet)."""
        return self._seq

    @property
    def up(self) -> bool | None:
        if self._conn is None:
            return None
        return self._conn not in self._gone

    def take(self, seq: int, fields: dict[str, Any]) -> bool:
        """A checked presence message numbered ``seq``; whether it was taken."""
        conn, up = fields.get("conn"), fields.get("up")
        if not isinstance(conn, str) or not isinstance(up, bool):
            return False
        if not up:
            if conn in self._gone:
                return False
            self._gone.append(conn)
            if self._conn is None:
                self._conn = conn  # gone before this side heard it come
            return True
        if seq <= self._seq:
            return False
        self._seq, self._conn = seq, conn
        return True
