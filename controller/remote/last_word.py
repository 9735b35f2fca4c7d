"""A finished game's last word on its own topics (docs/remote.md, "The next
game on the same link"): its last state, ended, and when its link follows
into the next game, that game's id and rules (``sequel``), which only the
link's holder can check. The board says it once as the next game begins,
and again with its state on every reconnection while that game is the
current one (a broker restarted without persistence forgot it). The
finished game's last state is kept on disk as its result is published
(:mod:`controller.store.last_state`), so a board killed before the word
was out says it on starting again.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from controller.referee.core import Referee
from controller.referee.invitation import Invitation, sequel
from controller.remote.message import plain
from controller.store import last_state

log = logging.getLogger("popref")


class LastWord:
    """The last word while the next game is the current one (``said``), and
    the finished game's last state kept in ``keep`` (the state directory;
    None: nowhere)."""

    def __init__(self, keep: Path | None) -> None:
        self._keep = keep
        self._kept: dict[str, Any] | None = None  # the last state written there
        self.said: tuple[Invitation, dict[str, Any]] | None = None

    def ended(
        self, invitation: Invitation, state: dict[str, Any] | None, referee: Referee
    ) -> dict[str, Any] | None:
        """``invitation`` ended, its game's last state ``state``: the word to
        publish on its topics (None without a state), kept to be said again
        when it names the next game."""
        self.said = None
        if state is None:
            return None
        word = _word(invitation, state, referee)
        if "sequel" in word:
            self.said = (invitation, word)
        return word

    def finished(self, invitation: Invitation, state: dict[str, Any], referee: Referee) -> None:
        """``state`` was published under ``invitation``: when its game is
        over, played through the link, it is kept on disk (as plain JSON)."""
        if self._keep is None or not (referee.game.is_over() and referee.remote.used):
            return
        state = plain(state)
        if state == self._kept:
            return
        try:
            last_state.keep(self._keep, invitation.game, state)
        except OSError as error:
            # the game goes on: only a kill before the next game's word is out loses it
            log.warning("%s: cannot be written (%s)", self._keep / last_state.FILE, error)
            return
        self._kept = state

    def recall(self, referee: Referee) -> None:
        """At start-up: the word of the finished game this game's link follows
        from, from the state kept (the board may have been killed before it
        was out; it is said on connecting)."""
        seat, old = referee.remote, referee.remote.sequel
        if self._keep is None or old is None:
            return
        if seat.invitation is not None and not seat.continued():
            return
        final = last_state.kept(self._keep, old.game)
        if final is not None:
            self.said = (old, _word(old, final, referee))


def _word(invitation: Invitation, state: dict[str, Any], referee: Referee) -> dict[str, Any]:
    word = {**state, "invitation": "ended"}
    after = referee.remote.sequel
    if after is not None and after.game == invitation.game:
        rules = referee.game.rules  # the next game's, which has begun
        word["sequel"] = {
            "game": sequel(invitation.key)[0],
            "rules": rules.name,
            "repetition": rules.repetition,
            "both_lines": rules.both_lines,
        }
    return word
