"""Logging: plain sentences to standard error, one per fact (journald adds
the time and the unit's name)."""

from __future__ import annotations

import logging
import sys


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time, so a replaced
    stream (a test's capture, a redirected console) gets the sentences."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def setup_logging(level: int = logging.INFO) -> None:
    logger = logging.getLogger("popref")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
