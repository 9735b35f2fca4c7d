"""The board's replies to a remote player's last requests. The friend's
side sends a request again until it is answered, so the same request (the
same number and body) gets the same reply again, never the move a second
time; a different body under a number already taken is a replay.

>>> answers = Answers()
>>> answers.asking(7, '{"move":"4"}')
>>> answers.keep(7, {"request_seq": 7, "ok": True}, now=10.0)
>>> answers.again(7, '{"move":"4"}'), answers.again(7, '{"move":"5"}')
(True, False)
>>> answers.due(7, now=10.2) is None  # just sent: a copy is no flood
True
>>> answers.due(7, now=10.6)
{'request_seq': 7, 'ok': True}
"""

from __future__ import annotations

from typing import Any

KEPT = 16  # replies kept; older numbers are plain replays
REPEAT_GAP = 0.5  # seconds (the loop's clock) before the same reply is sent again


class Answers:
    """The replies of one invitation. The broker's network thread reads
    :meth:`again`; the loop does the rest."""

    def __init__(self) -> None:
        self._asking: dict[int, str] = {}  # each request's body, fed until answered
        self._replies: dict[int, dict[str, Any]] = {}
        self._sent_at: dict[int, float] = {}
        self._asked: dict[int, str] = {}  # the body of each request answered
        # what the network thread reads: a copy, swapped whole (no lock)
        self._repeatable: dict[int, str] = {}

    def asking(self, seq: int, body: str) -> None:
        """Request ``seq``, whose body is ``body``, is fed to the referee."""
        self._asking[seq] = body

    def keep(self, seq: int, reply: dict[str, Any], now: float) -> None:
        """``reply`` answered request ``seq`` (sent at ``now``)."""
        self._asked[seq] = self._asking.pop(seq, "")
        self._replies[seq], self._sent_at[seq] = reply, now
        for old in sorted(self._replies)[:-KEPT]:
            del self._replies[old], self._sent_at[old], self._asked[old]
        self._repeatable = dict(self._asked)

    def again(self, seq: int, body: str) -> bool:
        """Whether request ``seq`` with ``body`` was answered already (any thread)."""
        return self._repeatable.get(seq) == body

    def due(self, seq: int, now: float) -> dict[str, Any] | None:
        """The reply to send again to request ``seq``, which came again (its
        reply was lost, or is on its way): at most once every
        :data:`REPEAT_GAP` seconds, so a replayed copy cannot make a flood."""
        if now - self._sent_at[seq] < REPEAT_GAP:
            return None
        self._sent_at[seq] = now
        return self._replies[seq]
