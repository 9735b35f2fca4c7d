"""A browser's pairing request as the referee sees it: while it is pending
the board blinks, and the next press of the mode button within
:data:`~controller.referee.commands.PAIRING_WINDOW` grants it instead of choosing
rules. (The tokens themselves are the web server's:
:mod:`controller.web.pairing`.)

>>> window = PairingWindow()
>>> window.request(at=10.0)
'A browser asks to be paired; press the mode button to allow it.'
>>> window.deadline()
40.0
>>> window.answered_by(at=20.0), window.since
(True, None)
"""

from __future__ import annotations

from controller.i18n.text import Text, _t
from controller.referee.commands import PAIRING_WINDOW


class PairingWindow:
    """The one pending pairing request, by when it began (event time)."""

    def __init__(self) -> None:
        self.since: float | None = None

    def request(self, at: float) -> Text:
        """A browser asks; the sentence to log."""
        self.since = at
        return _t("A browser asks to be paired; press the mode button to allow it.")

    def answered_by(self, at: float) -> bool:
        """Whether a press at ``at`` answers the pending request (which it ends)."""
        since = self.since
        if since is None or at - since > PAIRING_WINDOW:
            return False
        self.since = None
        return True

    def ended(self) -> Text | None:
        """Nobody pressed in time: the sentence to log, or ``None`` when no
        request was pending."""
        if self.since is None:
            return None
        self.since = None
        return _t("Nobody pressed the mode button; the browser was not paired.")

    def deadline(self) -> float | None:
        """When the pending request runs out, if one is pending."""
        return None if self.since is None else self.since + PAIRING_WINDOW

    def expired(self, now: float) -> bool:
        """Whether the pending request has run out at ``now``."""
        deadline = self.deadline()
        return deadline is not None and now >= deadline
