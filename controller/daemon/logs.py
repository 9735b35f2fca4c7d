"""Logging: plain sentences to standard error, one per fact (journald adds
the time and the unit's name)."""

from __future__ import annotations

import logging
import sys

from controller.i18n.text import ENGLISH, render


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time, so a replaced
    stream (a test's capture, a redirected console) gets the sentences."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


class _Sentences(logging.Formatter):
    """The message with its sentences (:class:`controller.i18n.text.Text`
    arguments) in ``language``."""

    def __init__(self, language: str) -> None:
        super().__init__("%(message)s")
        self.language = language

    def format(self, record: logging.LogRecord) -> str:
        args = record.args
        if isinstance(args, tuple) and self.language != ENGLISH:
            record = logging.makeLogRecord(record.__dict__)
            record.args = tuple(render(a, self.language) if isinstance(a, str) else a for a in args)
        return super().format(record)


def setup_logging(level: int = logging.INFO, language: str = ENGLISH) -> None:
    """Sentences to standard error, in ``language`` (the terminal's)."""
    logger = logging.getLogger("popref")
    handler = next((h for h in logger.handlers if isinstance(h, _Stderr)), None)
    if handler is None:
        handler = _Stderr()
        logger.addHandler(handler)
    handler.setFormatter(_Sentences(language))
    logger.setLevel(level)
    logger.propagate = False
