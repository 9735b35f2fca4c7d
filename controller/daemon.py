"""The daemon: the referee in a loop over a backend, with the journal, the
game archive, the log and systemd around it.

Nothing the players did is lost: every event that changes the referee's state
is journalled (and synced) before the new display is shown, and start-up
replays the journal through the same pure referee.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import signal
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.archive import GameArchive
from controller.commands import PAIRING_WINDOW, Command, Input, PairingEnded
from controller.eventcodec import decode, encode
from controller.journal import Journal, JournalDamaged, move_aside
from controller.persist import restore, snapshot
from controller.referee import Referee, Table, Verdict
from controller.sdnotify import Notifier
from controller.state import state_of
from controller.view import display as view
from controller.wakeup import Wakeup
from engine import Game, write_record
from hardware.backend import Backend, Counting
from hardware.clock import Clock
from hardware.display import Alert, Display

log = logging.getLogger("popref")


@dataclass
class Daemon:
    """One referee, its backend and its durable state."""

    table: Table
    rules: str
    backend: Backend
    clock: Clock
    state_dir: Path
    notifier: Notifier = field(default_factory=lambda: Notifier.from_environment({}))
    on_display: Callable[[Display], None] | None = None
    # the state object (controller.state) each time it changes, for the web page
    on_state: Callable[[dict[str, Any]], None] | None = None
    # a pairing request granted by the mode button
    on_paired: Callable[[], None] | None = None
    # the physical grid's rows when something knows them better than the referee
    grid_view: Callable[[], list[str]] | None = None

    def __post_init__(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.journal = Journal(self.state_dir / "journal")
        self.archive = GameArchive(self.state_dir / "games")
        self.referee = Referee(self.table, self.rules)
        self.shown: Display | None = None
        self._wakeup = Wakeup()
        self._status = ""
        self.storage_fault: str | None = None
        # the sensor board's counters consumed so far (see hardware.backend.Counting)
        self.board_mark: dict[str, Any] | None = None
        # requests from other threads (the web page), taken in by the loop
        self._commands: queue.SimpleQueue[Command] = queue.SimpleQueue()
        self._published: dict[str, Any] | None = None

    # -- start-up ---------------------------------------------------------------

    def resume(self) -> None:
        """Rebuild the referee from the journal, or start a fresh journal."""
        loaded = self.journal.load()
        if loaded.torn:
            log.warning("The last journal record was incomplete (a power cut?) and was dropped.")
        if not loaded.records:
            self.journal.replace([self._snapshot()])
            log.info("New game: %s.", self.referee.game.rules.name)
            return
        pending: Game | None = None
        for line, record in enumerate(loaded.records, start=1):
            try:
                pending = self._replay(line, record, pending)
            except (ValueError, KeyError, TypeError, IndexError) as error:
                moved = move_aside(self.journal.path)
                raise JournalDamaged(
                    self.journal.path, line, f"it does not fit this board: {error}", moved
                ) from None
        if pending is not None:
            self._archive(pending)
        # the clock starts again after a restart: replay must forget the old
        # time base at this same point
        self.referee.restarted()
        self.journal.append({"resumed": True})
        log.info("Resumed the game from the journal (%d moves).", len(self.referee.game.moves))

    def choose_rules(self, name: str) -> None:
        """The rules asked for on the command line: for the next game, or for
        this one if it has not begun."""
        verdict = self.referee.choose_rules(name)
        for sentence in verdict.log:
            log.info("%s", sentence)
        if verdict.changed:
            self.journal.replace([self._snapshot()])

    def _replay(self, line: int, record: dict[str, Any], pending: Game | None) -> Game | None:
        """Apply one journal record; returns the finished game not yet archived."""
        if "board" in record:
            self.board_mark = record["board"]
        if line == 1:
            self.referee = restore(self.table, record["snapshot"])
        elif "archived" in record:
            return None
        elif "resumed" in record:
            self.referee.restarted()
        else:
            verdict = self.referee.handle(decode(record))
            if verdict.finished is not None:
                return verdict.finished.copy()
        return pending

    def open(self) -> None:
        if self.board_mark is not None and isinstance(self.backend, Counting):
            self.backend.resume(self.board_mark)
        self.backend.open(self._wakeup.set)
        self._show()
        self.notifier.ready()
        self._notify_status()

    # -- the loop -----------------------------------------------------------------

    def submit(self, command: Command) -> None:
        """Hand ``command`` to the loop; safe from any thread. The loop dates
        it with its own clock and feeds it like a sensor event."""
        self._commands.put(command)
        self._wakeup.set()

    def feed(self, event: Input, mark: dict[str, Any] | None = None) -> Verdict:
        """Hand one event to the referee and make its outcome durable.

        ``mark`` is the sensor board's counters consumed up to this event; an
        event with a mark is journalled even when it changed nothing, so a
        restart neither counts it again nor misses what followed."""
        verdict = self.referee.handle(event)
        if mark is not None:
            self.board_mark = mark
        for sentence in verdict.log:
            log.info("%s", sentence)
        if verdict.paired and self.on_paired is not None:
            self.on_paired()
        try:
            self._record(event, verdict, mark)
        except OSError as error:
            if self.storage_fault is None:
                log.error("Cannot save the game in %s: %s.", self.state_dir, error.strerror)
            self.storage_fault = (
                f"Cannot save the game ({error.strerror}); play on, but free space in "
                f"{self.state_dir} so a restart does not lose it."
            )
        return verdict

    def _record(self, event: Input, verdict: Verdict, mark: dict[str, Any] | None) -> None:
        """Make the verdict durable. After a failed write, the next one writes
        the whole state again, so a full disk that is emptied loses nothing."""
        if not (verdict.changed or verdict.new_game or mark is not None):
            return
        if verdict.new_game or self.storage_fault is not None:
            # a new game, or the first write since one failed: the whole state
            if verdict.finished is not None:
                self._archive(verdict.finished)
            self.journal.replace([self._snapshot()])
            if self.storage_fault is not None:
                self.storage_fault = None
                log.info("The game is being saved again.")
            return
        record = encode(event)
        if mark is not None:
            record["board"] = mark
        self.journal.append(record)
        if verdict.finished is not None:
            self._archive(verdict.finished)
            self.journal.append({"archived": self.referee.game_number})

    def step(self, now: float) -> list[Verdict]:
        """Run everything due at ``now``: the backend, then the display."""
        backend = self.backend
        if isinstance(backend, Counting):
            polled = backend.poll_marked(now)
        else:
            polled = [(event, None) for event in backend.poll(now)]
        verdicts = [self.feed(event, mark) for event, mark in polled]
        verdicts += self._take_commands(now)
        if verdicts or self.shown is None:
            # only an event can change what the board shows (blinking is the
            # backend's own business), so idle steps cost no display work
            self._show()
            self.publish()
        return verdicts

    def _take_commands(self, now: float) -> list[Verdict]:
        verdicts = []
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                break
            verdicts.append(self.feed(dataclasses.replace(command, at=now)))
        since = self.referee.pairing_since
        if since is not None and now >= since + PAIRING_WINDOW:
            verdicts.append(self.feed(PairingEnded(now)))
        return verdicts

    def next_deadline(self) -> float | None:
        due = self.backend.next_deadline()
        since = self.referee.pairing_since
        if since is None:
            return due
        ends = since + PAIRING_WINDOW
        return ends if due is None else min(due, ends)

    def state(self) -> dict[str, Any]:
        """The table's state, as ``popref simulate --json`` prints it."""
        grid = self.grid_view() if self.grid_view is not None else None
        return state_of(self.referee, self.display(), grid)

    def publish(self) -> None:
        """Hand the state to ``on_state`` if it changed since last time."""
        if self.on_state is None:
            return
        state = self.state()
        if state != self._published:
            self._published = state
            self.on_state(state)

    def run(self) -> None:
        """Serve until :meth:`stop` (or a signal given to :meth:`stop_on`),
        pinging the watchdog."""
        interval = self.notifier.watchdog_interval()
        next_ping = self.clock()
        while not self._wakeup.stopping:
            now = self.clock()
            self.step(now)
            if interval is not None and now >= next_ping:
                self.notifier.watchdog()
                next_ping = now + interval
            due = (self.next_deadline(), next_ping if interval is not None else None)
            wake_at = [t for t in due if t is not None]
            timeout = max(0.0, min(wake_at) - self.clock()) if wake_at else 60.0
            self._wakeup.wait(min(timeout, 60.0))
        self.notifier.stopping()

    def stop(self) -> None:
        """End :meth:`run` soon; safe from any thread."""
        self._wakeup.stop()

    def stop_on(self, *signals: signal.Signals) -> AbstractContextManager[None]:
        """Within the block, ``signals`` end :meth:`run`, whenever they come
        (before it starts, or while it is busy between waits)."""
        return self._wakeup.stop_on(*signals)

    def close(self) -> None:
        self.backend.close()
        self.journal.close()
        self._wakeup.close()

    # -- helpers -------------------------------------------------------------------

    def display(self) -> Display:
        shown = view(self.referee)
        if self.storage_fault is None:
            return shown
        return dataclasses.replace(
            shown, alert=Alert.ERROR, fault=f"{self.storage_fault} {shown.fault or ''}".strip()
        )

    def _show(self) -> None:
        shown = self.display()
        if shown != self.shown:
            self.backend.show(shown)
            self.shown = shown
            if self.on_display is not None:
                self.on_display(shown)
            self._notify_status()

    def _notify_status(self) -> None:
        status = self.shown.status if self.shown is not None else ""
        if status != self._status:
            self._status = status
            self.notifier.status(status)

    def _snapshot(self) -> dict[str, Any]:
        record: dict[str, Any] = {"snapshot": snapshot(self.referee)}
        if self.board_mark is not None:
            record["board"] = self.board_mark
        return record

    def _archive(self, game: Game) -> None:
        result = game.result
        outcome = "*" if result is None else str(result)
        saved = self.archive.save(
            write_record(game),
            rules=game.rules.name,
            result=outcome,
            finished=datetime.now(UTC),
            moves=len(game.moves),
        )
        log.info("Saved the game as %s.", saved.path.name)
