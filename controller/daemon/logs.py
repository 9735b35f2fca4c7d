"""Logging: plain sentences to standard error, one per fact (journald adds
the time and the unit's name)."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator

from controller.i18n.text import ENGLISH, render


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time, so a replaced
    stream (a test's capture, a redirected console) gets the sentences."""

    # around each sentence, while a prompt shares the screen (see :func:`above`)
    around: Callable[[Callable[[], None]], None] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        if self.around is None:
            super().emit(record)
        else:
            self.around(lambda: super(_Stderr, self).emit(record))


@contextlib.contextmanager
def above(around: Callable[[Callable[[], None]], None]) -> Iterator[None]:
    """Each sentence written by ``around(write)`` while the block runs: an
    interactive prompt moves itself below the sentence, so a sentence from
    another thread (the broker's) does not land on the line being typed."""
    handlers = [h for h in logging.getLogger("popref").handlers if isinstance(h, _Stderr)]
    for handler in handlers:
        handler.around = around
    try:
        yield
    finally:
        for handler in handlers:
            handler.around = None


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
