"""A browser's pairing request as the referee sees it, and the rule that
grants it.

While a request is pending the board lights its code (a few columns, the
same ones the asking page draws) instead of the game. A press of the mode
button allows it only once the code has shown for :data:`LOOK` seconds, so
that the person had time to compare the lights with the page. A press
sooner than that (someone choosing rules, whose press came as the request
arrived) or a hold refuses the request, says so, and does its usual job;
nobody pressing for :data:`~controller.referee.commands.PAIRING_WINDOW` ends it too. (The tokens
themselves are the web server's: :mod:`controller.web.pairing`.)

>>> window = PairingWindow()
>>> print(window.request(at=10.0, code=(2, 5)))  # doctest: +NORMALIZE_WHITESPACE
A browser asks to be paired: its page shows columns 2, 5 lit. If that is your page,
press the mode button once these lights have shown for 2 seconds; a press sooner, or
a hold, refuses it.
>>> window.deadline()
40.0
>>> window.pressed(at=11.0), window.since
(<Answer.REFUSED: 'refused'>, None)
>>> _ = window.request(at=20.0, code=(3, 4))
>>> window.pressed(at=23.0)
<Answer.GRANTED: 'granted'>
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from controller.i18n.text import Text, _n, _t
from controller.referee import fields
from controller.referee.commands import PAIRING_WINDOW
from controller.referee.verdict import Draft
from hardware import wire

LOOK = 2.0  # seconds a request's code shows before a press may allow it


class Answer(str, Enum):
    """What a press did to a pending pairing request."""

    NONE = "none"  # no request was pending (or it had run out)
    GRANTED = "granted"
    REFUSED = "refused"  # too soon after the request


class PairingWindow:
    """The one pending pairing request: when it began (event time) and its code."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.code: tuple[int, ...] = ()  # the lit columns; () lights them all

    def request(self, at: float, code: tuple[int, ...]) -> Text:
        """A browser asks; the sentence to log."""
        self.since, self.code = at, code
        return self.sentence()

    def sentence(self) -> Text:
        """What the board says while the request is pending."""
        if not self.code:  # a request journalled before codes: every light shows it
            return _t("A browser asks to be paired: press the mode button to allow it.")
        return _n(
            "A browser asks to be paired: its page shows columns {columns} lit. If that is "
            "your page, press the mode button once these lights have shown for {n} second; a "
            "press sooner, or a hold, refuses it.",
            "A browser asks to be paired: its page shows columns {columns} lit. If that is "
            "your page, press the mode button once these lights have shown for {n} seconds; a "
            "press sooner, or a hold, refuses it.",
            round(LOOK),
            columns=", ".join(str(c) for c in self.code),
        )

    def pressed(self, at: float, held: bool = False) -> Answer:
        """A press (``held``: a hold) of the mode button at ``at``: what it
        did to the pending request (which it ends, either way)."""
        since = self.since
        if since is None or at - since > PAIRING_WINDOW:
            return Answer.NONE
        self.end()
        return Answer.GRANTED if at - since >= LOOK and not held else Answer.REFUSED

    def answered(self, at: float, held: bool, out: Draft) -> bool:
        """The mode button at ``at`` (``held``: a hold) ends a pending request,
        as :meth:`pressed` rules; whether the press did nothing else."""
        answer = self.pressed(at, held)
        if answer is Answer.NONE:
            return False
        out.changed = True
        if answer is Answer.GRANTED:
            out.paired = True
            out.log.append(_t("The mode button paired a browser."))
            return True
        out.log.append(
            _t("The mode button refused the pairing request: the browser was not paired.")
        )
        return False

    def ended(self) -> Text | None:
        """Nobody pressed in time: the sentence to log, or ``None`` when no
        request was pending."""
        if self.since is None:
            return None
        self.end()
        return _t("Nobody pressed the mode button; the browser was not paired.")

    def end(self) -> None:
        """No request is pending (also after a restart: event times of the
        old clock cannot be compared with the new)."""
        self.since, self.code = None, ()

    def deadline(self) -> float | None:
        """When the pending request runs out, if one is pending."""
        return None if self.since is None else self.since + PAIRING_WINDOW

    def expired(self, now: float) -> bool:
        """Whether the pending request has run out at ``now``."""
        deadline = self.deadline()
        return deadline is not None and now >= deadline

    # -- the journal's snapshot --------------------------------------------------------

    def data(self) -> dict[str, Any]:
        """The snapshot's pairing fields (``controller.store.persist``)."""
        return {"pairing_since": self.since, "pairing_code": list(self.code)}

    def restore(self, data: dict[str, Any]) -> None:
        """Read :meth:`data` back; each field is optional (older journals)."""
        since = data.get("pairing_since")
        self.since = fields.number(data, "pairing_since") if since is not None else None
        self.code = checked_code(data.get("pairing_code", []))


def checked_code(value: Any) -> tuple[int, ...]:
    """A code as a record holds it: distinct column numbers, ascending;
    :class:`~controller.referee.fields.FieldError` otherwise."""
    if not isinstance(value, list) or len(value) > wire.MAX_COLUMNS:
        raise fields.FieldError('"code" is not a list of columns')
    columns = tuple(fields.integer({"code": c}, "code", 1, wire.MAX_COLUMNS) for c in value)
    if list(columns) != sorted(set(columns)):
        raise fields.FieldError('"code" is not distinct columns in order')
    return columns
