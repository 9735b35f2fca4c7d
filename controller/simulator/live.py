"""``popref simulate --script -``: each line of standard input acted on as
it arrives, for a harness (or a person piping into it) that drives a grid
one action at a time. While it waits for the next line, simulated time
follows the real clock, as at the terminal's prompt, and whatever changes
by itself (the other grid's move lit, the link going down or up, a hint
going dark) is told to ``changed``, once the daemon has published it."""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

from controller.simulator.realtime import RealTime
from controller.simulator.script import Action, ScriptError, decode_utf8, parse_line
from controller.simulator.simulation import Simulation

SOURCE = "-"  # how errors name standard input, as a script file's name
# bytes in one line: a script's longest action is a few words, and a comment
# this long is no plan; past it a hostile stream would fill the memory
LONGEST_LINE = 64 * 1024
_END = b""


class InputLines:
    """The lines of standard input, read on a thread of their own so that
    the wait for one can also end at a deadline or a :meth:`wake`; each
    decoded (UTF-8, a byte-order mark skipped) and bounded as it is taken,
    a bad one a :class:`ScriptError` naming its line."""

    _WAKE = object()

    def __init__(self, stream: IO[bytes] | IO[str]) -> None:
        self.number = 0  # lines taken so far (for the error of a bad one)
        self._queue: queue.SimpleQueue[bytes | str | object] = queue.SimpleQueue()
        # a daemon thread: at the run's end it may still wait in readline()
        reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        reader.name = "popref-script"
        reader.start()

    def _read(self, stream: IO[bytes] | IO[str]) -> None:
        try:
            while line := stream.readline(LONGEST_LINE + 1):
                self._queue.put(line)
                if len(line) > LONGEST_LINE:
                    break  # refused when taken; the rest is never read
        except (OSError, ValueError):
            pass  # the writer hung up, or the stream was closed: the end of input
        self._queue.put(_END)

    def get(self, timeout: float | None) -> str | None:
        try:
            line = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is self._WAKE:
            return None
        assert isinstance(line, bytes | str)
        return self._decoded(line)

    def wake(self) -> None:
        self._queue.put(self._WAKE)

    def _decoded(self, line: bytes | str) -> str:
        if not line:
            return ""
        self.number += 1
        where = f"{SOURCE}: line {self.number}"
        if len(line) > LONGEST_LINE:
            unit = "bytes" if isinstance(line, bytes) else "characters"
            raise ScriptError(f"{where} is longer than {LONGEST_LINE} {unit}; one action a line")
        if isinstance(line, str):
            return line
        return decode_utf8(line, SOURCE, first=self.number)


def standard_input() -> IO[bytes] | IO[str]:
    """Standard input's bytes (a stream set in its place that has none
    underneath is read as text)."""
    buffer: IO[bytes] | None = getattr(sys.stdin, "buffer", None)
    return buffer if buffer is not None else sys.stdin


class LiveScript(RealTime):
    """The actions of ``lines`` as they arrive (:meth:`actions`); between
    them each change of the daemon's state told to ``changed``."""

    def __init__(
        self,
        simulation: Simulation,
        lines: InputLines,
        changed: Callable[[], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(simulation, lines, clock)
        self.input, self.changed = lines, changed
        self._news = False  # the daemon published a new state since it was told
        # the daemon's own on_state (the page's), still told
        self._told: Callable[[dict[str, Any]], None] | None = None

    def actions(self) -> Iterator[Action]:
        """Each action as its line arrives, until the end of input; a bad
        line raises :class:`ScriptError`. Within the loop the daemon's
        changes are followed: the caller acts on each action before asking
        for the next."""
        daemon = self.simulation.daemon
        columns = daemon.table.columns
        self._told, daemon.on_state = daemon.on_state, self._published
        # the other side's word, or the link coming or going: taken at once
        daemon.listen(self.input.wake)
        try:
            while line := self.next_line():
                action = parse_line(line, self.input.number, SOURCE, columns)
                if action is not None:
                    yield action
                    with self.simulation.lock:
                        self._news = False  # the action's own changes are its object's
                        self.synced = self.clock()  # its time has passed already
        finally:
            daemon.on_state = self._told
            daemon.listen(None)

    def _published(self, state: dict[str, Any]) -> None:
        """The daemon's ``on_state``, on whichever thread stepped it (the
        page's commands step it on the web server's)."""
        self._news = True
        if self._told is not None:
            self._told(state)
        self.input.wake()

    def passed(self, reached: float | None, typed: bool) -> None:
        self.catch_up(reached)
        news, self._news = self._news, False
        if news:
            self.changed()
