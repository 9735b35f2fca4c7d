"""One grid of ``bench/linked.py --processes``: a real ``popref simulate
--script - --json`` process, fed one action a line on its standard input,
its JSON objects read on a thread of its own, each stamped on arrival with
the monotonic clock the harness dates its own writes with.

An object comes after each action (its ``action`` the line) and after each
change no action made (``action`` null: the other grid's move lit, the link
going down or up); ``wait 0`` asks for the state as it is (:meth:`current`).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

ASK = 1.0  # seconds without an object before the harness asks for one (wait 0)
ENDING = 20.0  # seconds a process may take to end once its input is closed


@dataclass(frozen=True)
class Seen:
    """One JSON object and when it arrived (``time.monotonic()``)."""

    at: float
    state: dict[str, Any]


class GridProcess:
    """``popref simulate ARGS --script - --json --state-dir DIR``, started at once."""

    def __init__(self, args: list[str], state_dir: Path, log: Path) -> None:
        command = [sys.executable, "-m", "controller.cli", "simulate", *args]
        command += ["--script", "-", "--json", "--state-dir", str(state_dir)]
        self._log = log.open("ab")  # its standard error: QR codes, and why it failed
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )
        self.seen: list[Seen] = []
        self.written = 0.0  # when the last line was written
        self.answered = 0.0  # when the object of the last action acted on arrived
        self.links: list[str] = []  # the lines that are no JSON: an inviting grid's link
        self.ended = False
        self._arrived = threading.Condition()
        assert self.process.stdout is not None
        reader = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
        reader.name = f"grid-{state_dir.name}"
        reader.start()

    def _read(self, stream: IO[bytes]) -> None:
        with stream:  # closed here, at its end: never under this thread's feet
            for line in stream:
                at = time.monotonic()
                with self._arrived:
                    if line.startswith(b"{"):
                        self.seen.append(Seen(at, json.loads(line)))
                    else:
                        self.links.append(line.decode().strip())
                    self._arrived.notify_all()
        with self._arrived:
            self.ended = True
            self._arrived.notify_all()

    # -- talking to it -----------------------------------------------------------------

    def write(self, line: str) -> float:
        """``line`` on its standard input; when it was written (a process
        that is gone raises ``BrokenPipeError``)."""
        assert self.process.stdin is not None
        self.written = time.monotonic()
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        return self.written

    def act(self, line: str, timeout: float) -> dict[str, Any] | None:
        """``line`` acted on: the object it printed, or ``None`` (the
        process did not answer within ``timeout`` seconds)."""
        since = len(self.seen)
        try:
            self.write(line)
        except BrokenPipeError:
            return None
        # an earlier ``wait 0`` may still be answered first
        echoed = " ".join(line.split())
        seen = self.first(lambda state: state["action"] == echoed, since, timeout, ask=False)
        if seen is None:
            return None
        self.answered = seen.at
        return seen.state

    def link(self, timeout: float) -> str | None:
        """The first line that is no JSON (an inviting grid's link)."""
        with self._arrived:
            self._arrived.wait_for(lambda: self.links or self.ended, timeout)
            return self.links[0] if self.links else None

    def until(self, wanted: Callable[[dict[str, Any]], bool], timeout: float) -> Seen | None:
        """The first object from its latest state on that is ``wanted``."""
        return self.first(wanted, max(0, len(self.seen) - 1), timeout)

    def current(self, timeout: float) -> dict[str, Any] | None:
        """Its state now (the object of a ``wait 0``)."""
        return self.act("wait 0", timeout)

    def first(
        self,
        wanted: Callable[[dict[str, Any]], bool],
        since: int,
        timeout: float,
        ask: bool = True,
    ) -> Seen | None:
        """The first object from the ``since``-th on that is ``wanted``;
        ``None`` after ``timeout`` seconds. With ``ask``, a ``wait 0`` is
        written after each :data:`ASK` seconds without an object, should a
        change have come before this process was watched."""
        end = time.monotonic() + timeout
        looked = since
        while True:
            with self._arrived:
                while looked < len(self.seen):
                    if wanted(self.seen[looked].state):
                        return self.seen[looked]
                    looked += 1
                left = end - time.monotonic()
                if left <= 0 or self.ended:
                    return None
                if self._arrived.wait(min(left, ASK)) or not ask:
                    continue
            try:
                self.write("wait 0")
            except BrokenPipeError:
                return None

    # -- its end -----------------------------------------------------------------------

    def kill(self) -> None:
        """``kill -9``: gone without a word, as a power cut would leave it."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(ENDING)
        self._close_pipes()

    def finish(self) -> int | None:
        """Its input closed, as a script ends: its exit status (``None`` if
        it did not end in time, then it is killed)."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
            status: int | None = self.process.wait(ENDING)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            status = None
        self.close()
        return status

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(ENDING)
        self._close_pipes()

    def _close_pipes(self) -> None:
        stdin = self.process.stdin
        if stdin is not None and not stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                stdin.close()
        self._log.close()
