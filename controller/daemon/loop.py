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
import secrets
import signal
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.computer.dispatch import Dispatcher
from controller.computer.process import ProcessThinker
from controller.computer.thinker import Thinker
from controller.daemon.archiving import ArchiveQueue
from controller.daemon.config import OpponentConfig
from controller.daemon.joining import PageLink, own_game, too_late, waiting_next
from controller.daemon.saving import Saving
from controller.daemon.sdnotify import Notifier
from controller.daemon.wakeup import Wakeup, quick_handoffs
from controller.i18n.text import Text, _n, _t, sentences
from controller.i18n.words import rules_title
from controller.referee.commands import (
    Command,
    Input,
    PairingEnded,
    RemoteChosen,
    RemoteCommand,
)
from controller.referee.core import Referee, Table
from controller.referee.remote_seat import link_spent
from controller.referee.state import state_of
from controller.referee.verdict import Reply, Verdict
from controller.referee.view import display as view
from controller.referee.view import with_hint
from controller.store.archive import GameArchive
from controller.store.entries import (
    Archived,
    ComputerMove,
    EventEntry,
    Resumed,
    Snapshot,
    read_entry,
)
from controller.store.eventcodec import encode
from controller.store.journal import Journal, JournalDamaged, move_aside
from controller.store.persist import BoardChanged, restore, snapshot
from controller.store.statelock import StateLock
from engine import Game, Move
from engine.colour import Colour
from hardware.backend import Backend, Counting, Seeing
from hardware.clock import Clock
from hardware.display import Alert, Display

if TYPE_CHECKING:
    from controller.remote.guest import LinkedGuest
    from controller.remote.host import RemoteHost
    from controller.remote.link import Link
    from controller.remote.side import Side

log = logging.getLogger("popref")

THINK_SECONDS = OpponentConfig().think  # the computer's budget: [opponent] think_ms's default


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
    computer: Colour | None = None  # whom the computer plays in a fresh journal's game
    thinker: Thinker | None = None  # default: a search process with THINK_SECONDS
    ponder: bool = False  # full strength thinks on the other player's time ([opponent] ponder)
    # the state object (controller.referee.state) each time it changes, for the web page
    on_state: Callable[[dict[str, Any]], None] | None = None
    # a pairing request granted by the mode button
    on_paired: Callable[[], None] | None = None
    # the state directory's lock (controller.store.statelock), released by close()
    lock: StateLock | None = None
    # the daemon's side of a remote seat ([remote]; controller.remote.host)
    remote: RemoteHost | None = None
    # a linked grid's side when this one joined another's game (controller.remote.guest)
    guest: LinkedGuest | None = None
    # a link given on the page, and this grid as configured while one holds
    # (controller.daemon.joining; the assembly's makes sides with its wall clock)
    page_link: PageLink = field(default_factory=lambda: PageLink())

    def __post_init__(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.journal = Journal(self.state_dir / "journal")
        self.archive = GameArchive(self.state_dir / "games")
        self.unarchived = ArchiveQueue(self.archive)  # finished games the archive has not taken
        self.referee = Referee(self.table, self.rules, self.computer)
        # what the backend can do, asked once (a runtime Protocol check costs
        # more than an idle step): None where it cannot
        self._counting = self.backend if isinstance(self.backend, Counting) else None
        self._seeing = self.backend if isinstance(self.backend, Seeing) else None
        self.shown: Display | None = None
        self._wakeup = Wakeup()
        self._status = ""
        self.saving = Saving(self.state_dir, self.clock)  # a write that failed, shown and retried
        # names this journal's games for the archive; a new one with each fresh journal
        self.journal_id = ""
        # the sensor board's counters consumed so far (see hardware.backend.Counting)
        self.board_mark: dict[str, Any] | None = None
        # requests from other threads (the web page), taken in by the loop
        self._commands: queue.SimpleQueue[tuple[Command, Reply | None]] = queue.SimpleQueue()
        # told, on the network thread, when a side's word arrives (see listen)
        self._arrival: Callable[[], None] | None = None
        self._published: dict[str, Any] | None = None
        # the link's state, the other grid's part and the friend's (opened, here), when last shown
        self._link: tuple[str | None, str | None, bool | None, bool | None] | None = None
        # the computer's moves and hints (controller.computer.dispatch)
        self.dispatcher = Dispatcher(
            self.thinker or ProcessThinker(self.clock, THINK_SECONDS),
            self._wakeup.set,
            self._computer_chose,
            ponder=self.ponder,
        )

    # -- start-up ---------------------------------------------------------------

    def resume(self) -> None:
        """Rebuild the referee from the journal, or start a fresh journal.

        A journal that cannot be read raises :class:`JournalDamaged` (moved
        aside); one saved for another board size is kept aside and a new game
        begins; a journal or archive that cannot be written is a storage
        fault, shown on the board while the daemon referees on."""
        loaded = self.journal.load()
        if loaded.torn:
            log.warning(
                "%s", _t("The last journal record was incomplete (a power cut?) and was dropped.")
            )
        if loaded.records:
            try:
                self._replay_all(loaded.records)
            except BoardChanged as change:
                kept = move_aside(self.journal.path, f"saved-{change.saved}")
                log.warning(
                    "%s",
                    _t(
                        "The saved game was for a {saved} board; the board is now {now}. "
                        "It was kept in {place} and a new game begins.",
                        saved=change.saved,
                        now=change.now,
                        place=str(kept),
                    ),
                )
                self.referee = Referee(self.table, self.rules)
                self.board_mark = None
            else:
                # the clock starts again after a restart: replay must forget
                # the old time base at this same point
                self.referee.restarted()
                with self.saving.guard(fatal=(PermissionError,)):
                    self.unarchived.save_all()
                    if self.saving.fault is None:
                        self.journal.append({"resumed": True})
                moves = len(self.referee.game.moves)
                log.info(
                    "%s",
                    _n(
                        "Resumed the game from the journal ({n} move).",
                        "Resumed the game from the journal ({n} moves).",
                        moves,
                    ),
                )
                return
        self.journal_id = secrets.token_hex(8)
        self._number_new_game()
        with self.saving.guard(fatal=(PermissionError,)):
            self.journal.replace([self._snapshot()])
        log.info("%s", _t("New game: {title}.", title=rules_title(self.referee.game.rules)))

    def choose_rules(self, name: str) -> bool:
        """The rules asked for on the command line or in the configuration:
        for the next game, or for this one if it has not begun. True when
        that changed anything."""
        return self._chosen(self.referee.choose_rules(name))

    def choose_computer(self, colour: Colour | None) -> bool:
        """Whom the computer plays, asked for on the command line: for the next
        game, or for this one if it has not begun. True when that changed
        anything."""
        return self._chosen(self.referee.choose_computer(colour))

    def choose_level(self, level: int) -> bool:
        """The computer's level asked for in the configuration, likewise."""
        return self._chosen(self.referee.choose_level(level))

    def choose_remote(self, colour: Colour | None) -> bool:
        """The colour a friend is invited to play in each new game (and in
        this one if it has no invitation), asked for on the command line or
        in the configuration."""
        return self._chosen(self.referee.handle(RemoteChosen(colour)))

    def _chosen(self, verdict: Verdict) -> bool:
        for sentence in verdict.log:
            log.info("%s", sentence)
        if verdict.changed:
            with self.saving.guard():
                self._write_whole_state()
        return verdict.changed

    def _replay_all(self, records: list[dict[str, Any]]) -> None:
        """Replay the journal; :class:`JournalDamaged` (the file moved aside)
        at the first record that is not what the daemon writes or does not
        fit this board, :class:`BoardChanged` if it was for another size."""
        for line, record in enumerate(records, start=1):
            try:
                self._replay(line, record)
            except BoardChanged:
                raise
            except Exception as error:
                # replay is pure code over the daemon's own records: whatever
                # fails, this record does not describe a state of this board
                moved = move_aside(self.journal.path)
                reason = str(error) or type(error).__name__
                raise JournalDamaged(self.journal.path, line, reason, moved) from None

    def _replay(self, line: int, record: dict[str, Any]) -> None:
        """Apply one journal record."""
        entry = read_entry(line, record)
        if isinstance(entry, Snapshot):
            self.referee = restore(self.table, entry.state)
            self.journal_id = entry.journal_id
            self.board_mark = entry.board
        elif isinstance(entry, EventEntry):
            if entry.board is not None:
                self.board_mark = entry.board
            verdict = self.referee.handle(entry.event)
            if verdict.finished is not None:
                self._finished(verdict.finished)
        elif isinstance(entry, Archived):
            self.unarchived.forget()
            if self.referee.game.is_over():
                self.referee.game_number = entry.number  # as its record names it
        elif isinstance(entry, Resumed):
            self.referee.restarted()
        elif isinstance(entry, ComputerMove):
            self.referee.computer_chose(entry.move)

    def open(self) -> None:
        quick_handoffs()  # process-wide: paho's, the web server's and the search's threads too
        if self.board_mark is not None and self._counting is not None:
            self._counting.resume(self.board_mark)
        self.backend.open(self._wakeup.set)
        for side in self.sides():
            side.open(self._wakeup.set, self.referee)
        self._show()
        if self.remote is not None:
            # a resumed game changes nothing at first, yet the remote side may
            # hold an older state (a kill -9 between journalling a request and
            # publishing it; a broker that forgot its retained messages). The
            # page needs no such word: its stream begins with the state.
            self.remote.publish_state(self.state(), self.referee)
        self.notifier.ready()
        self._notify_status()

    # -- the loop -----------------------------------------------------------------

    def submit(self, command: Command, reply: Reply | None = None) -> None:
        """Hand ``command`` to the loop; safe from any thread. The loop dates
        it with its own clock, feeds it like a sensor event, then calls
        ``reply`` (if given) with the verdict."""
        self._commands.put((command, reply))
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
        if verdict.hint:
            self.dispatcher.hint_asked(self.referee)
        if verdict.finished is not None:
            self._finished(verdict.finished)
        with self.saving.guard():
            self._record(event, verdict, mark)
        for side in self.sides():
            side.fed(verdict, self.referee)  # journalled: it may be published
        return verdict

    def _record(self, event: Input, verdict: Verdict, mark: dict[str, Any] | None) -> None:
        """Make the verdict durable. After a failed write, the next one writes
        the whole state again, so a full disk that is emptied loses nothing."""
        if not (verdict.changed or verdict.new_game or mark is not None):
            return
        if verdict.new_game or self.saving.fault is not None:
            self._write_whole_state(new_game=verdict.new_game)
            return
        record = encode(event)
        if mark is not None:
            record["board"] = mark
        self.journal.append(record)
        saved = self.unarchived.save_all()
        if verdict.finished is not None:
            if saved:
                # the game on the board is the game its record names: a game
                # taken back and finished again has a record of its own
                self.referee.game_number = saved[-1].number
            self.journal.append({"archived": self.referee.game_number})

    def _write_whole_state(self, new_game: bool = False) -> None:
        """Archive what is waiting, then make the referee's whole state the
        journal: a new game, or catching up after a failed write."""
        self.unarchived.save_all()
        if new_game:
            self._number_new_game()
        self.journal.replace([self._snapshot()])
        self.saving.cleared()

    def _number_new_game(self) -> None:
        """A new game's number is the one its record will have: past every
        game in the archive (a game taken back and archived again, a journal
        begun anew after damage or a change of board), so that the page's
        "game 5" is the finished games' "Game 5"."""
        self.referee.game_number = max(self.referee.game_number, self.archive.next_number())

    def _retry_storage(self, now: float) -> bool:
        """After a storage fault, try the whole state again when it is due;
        True if the fault has cleared."""
        if not self.saving.due(now):
            return False
        with self.saving.guard():
            self._write_whole_state()
        return self.saving.fault is None

    def step(self, now: float) -> list[Verdict]:
        """Run everything due at ``now``: the backend, then the display."""
        if self._counting is not None:
            polled = self._counting.poll_marked(now)
        else:
            polled = [(event, None) for event in self.backend.poll(now)]
        verdicts = [self.feed(event, mark) for event, mark in polled]
        verdicts += self._take_commands(now)
        verdicts += self.page_link.take(self)
        answers = self._take_remote(now)
        verdicts += [verdict for _, _, verdict in answers]
        verdicts += self.page_link.part(self)
        thought = self.dispatcher.step(self.referee, now)
        retried = self._retry_storage(now)
        link, self._link = self._link, (self.link_state(), self.linked(), *self.friend())
        changed = verdicts or thought or retried or link != self._link or self.shown is None
        if changed:
            # only an event or the link going down or up can change what the
            # board shows (blinking is the backend's own business), so idle
            # steps cost no display work
            self._show()
        # The lights first: the person at the grid waits for them, while the
        # remote's reply only confirms what its own state message shows too
        # (bench/remote.py, request -> light). Both are journalled already.
        for side, command, verdict in answers:
            side.answered(command, verdict)
        if changed:
            self.publish()
        return verdicts

    def _take_commands(self, now: float) -> list[Verdict]:
        verdicts = []
        while True:
            try:
                command, reply = self._commands.get_nowait()
            except queue.Empty:
                break
            verdict = self.feed(dataclasses.replace(command, at=now))
            verdicts.append(verdict)
            if reply is not None:
                reply(verdict)
        if self.referee.pairing.expired(now):
            verdicts.append(self.feed(PairingEnded(now)))
        for sentence in self.referee.controls.due(now):
            log.info("%s", sentence)  # a single press, now that it cannot be a double
        return verdicts

    def _take_remote(self, now: float) -> list[tuple[Side, RemoteCommand, Verdict]]:
        """The remote player's requests (checked by the host), an invitation
        due, one expired: fed like the page's commands, each with its side
        and verdict for the answer the step gives once the lights show them."""
        answers = []
        for side in self.sides():
            for command in side.inputs(self.referee, now):
                verdict = self.feed(dataclasses.replace(command, at=now))
                answers.append((side, command, verdict))
        return answers

    # -- a link given on the page (controller.daemon.joining) ----------------------------

    def join(self, link: Link, reply: Reply | None = None) -> None:
        """Join the other grid's game ``link`` invites to, as the page asks;
        safe from any thread. ``reply`` is told the verdict: ``declined``,
        with why, when this grid may not now."""
        self.page_link.ask(link, reply)
        self._wakeup.set()

    def leave(self, reply: Reply | None = None) -> None:
        """Leave the other grid's game the page joined, at once, whatever
        that grid does (it may be gone for good); safe from any thread."""
        self.page_link.ask(None, reply)
        self._wakeup.set()

    def swap_guest(self, guest: LinkedGuest | None) -> None:
        """``guest`` is this grid's side of another grid's game from now on
        (``None``: no other grid's); the one before is closed."""
        old, self.guest = self.guest, guest
        if old is not None:
            old.close()
        if guest is not None:
            guest.on_arrival = self._arrival
            guest.open(self._wakeup.set, self.referee)

    def set_table(self, table: Table) -> None:
        """The physical set-up from now on (its house rules reach new games)."""
        self.table = table
        self.referee.table = table

    def write_state(self) -> None:
        """Journal the referee's whole state now (after a change made outside
        :meth:`feed`), or show the storage fault and retry it."""
        with self.saving.guard():
            self._write_whole_state()

    def listen(self, wake: Callable[[], None] | None) -> None:
        """``wake`` is told, on the network thread, when a side's word
        arrives or its link comes or goes (a terminal waiting for a typed
        line wakes for it), from the sides there are and any joined later."""
        self._arrival = wake
        for side in self.sides():
            side.on_arrival = wake

    def sides(self) -> list[Side]:
        """The broker's sides: the board's that invites, a grid's that joined."""
        return [side for side in (self.remote, self.guest) if side is not None]

    def link_state(self) -> str | None:
        """``up`` or ``down``: the broker and the other side (``None``: no link)."""
        states = [side.link_state() for side in self.sides()]
        return min(states) if states else None  # "down" < "up"

    def linked(self) -> str | None:
        """The other grid's part in a linked game (docs/remote.md, "Linked
        grids"): ``joined`` on a grid that joined another's game (that grid
        chooses the rules), ``inviting`` on one a grid joined (it said it is
        there); ``None`` without another grid (a friend's page is no grid)."""
        if self.guest is not None:
            return "joined"
        if self.remote is not None and self.referee.remote.colour() is not None:
            return "inviting" if self.remote.presence.up is not None else None
        return None

    def friend(self) -> tuple[bool | None, bool | None]:
        """Whether the link of this game's invitation was opened, and whether
        a friend's page holding it is open now (``None``: no page said), as
        the owner's page says; ``(None, None)`` without an invitation."""
        if self.remote is None or self.referee.remote.colour() is None:
            return None, None
        return self.remote.opened(self.referee), self.remote.friend_page.up

    def next_deadline(self) -> float | None:
        times = [
            self.backend.next_deadline(),
            *self.dispatcher.next_deadline(),
            self.referee.pairing.deadline(),
            self.referee.controls.deadline(),
        ]
        times.append(self.saving.deadline())
        times += [side.deadline(self.clock()) for side in self.sides()]
        known = [t for t in times if t is not None]
        return min(known) if known else None

    def state(self) -> dict[str, Any]:
        """The table's state, as ``popref simulate --json`` prints it."""
        # what the grid holds where the board sees it, else the referee's belief
        grid = self._seeing.contents() if self._seeing is not None else None
        shown = self.display()
        state = state_of(self.referee, shown, grid)
        # the hint the board is lighting, if any
        hint = self.dispatcher.hint if shown.hint_lit else None
        state["hint"] = str(hint.move) if hint is not None else None
        state["hint_proven"] = hint.proven if hint is not None else None
        state["link"] = self.link_state()
        state["linked"] = self.linked()
        state["friend_opened"], state["friend_here"] = self.friend()
        return state

    def publish(self) -> None:
        """Hand the state to ``on_state`` (and a remote seat) if it changed
        since last time."""
        if self.on_state is None and not self.sides():
            return
        state = self.state()
        if state != self._published:
            self._published = state
            if self.on_state is not None:
                self.on_state(state)
            for side in self.sides():
                side.publish_state(state, self.referee)

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

    def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for input from another thread (for
        a caller that steps the daemon itself); whether any came."""
        return self._wakeup.wait(timeout)

    def stop(self) -> None:
        """End :meth:`run` soon; safe from any thread."""
        self._wakeup.stop()

    def stop_on(self, *signals: signal.Signals) -> AbstractContextManager[None]:
        """Within the block, ``signals`` end :meth:`run`, whenever they come
        (before it starts, or while it is busy between waits)."""
        return self._wakeup.stop_on(*signals)

    def close(self) -> None:
        for side in self.sides():
            side.close()
        self.dispatcher.close()
        self.backend.close()
        self.journal.close()
        self._wakeup.close()
        if self.lock is not None:
            self.lock.release()

    # -- the computer opponent -------------------------------------------------------

    def _computer_chose(self, move: Move) -> None:
        """The computer's move, journalled before it is shown."""
        verdict = self.referee.computer_chose(move)
        for sentence in verdict.log:
            log.info("%s", sentence)
        with self.saving.guard():
            if self.saving.fault is not None:
                self._write_whole_state()  # catching up includes the choice
            else:
                self.journal.append({"computer": str(move)})

    # -- helpers -------------------------------------------------------------------

    def display(self) -> Display:
        shown = view(self.referee)
        hint = self.dispatcher.lit(self.referee)
        if hint is not None:
            shown = with_hint(self.referee, shown, hint.move, hint.proven)
        searching = self.dispatcher.notice()
        cut = self._link_cut()
        news = self.page_link.news
        if self.guest is not None and self.guest.waits(self.referee):
            news = sentences(news, waiting_next())
        if self.guest is not None and self.guest.aside(self.referee):
            shown = dataclasses.replace(shown, status=sentences(own_game(), shown.status))
        if news is not None and not self.referee.in_progress():
            shown = dataclasses.replace(shown, status=sentences(news, shown.status))
        if self.saving.fault is None and searching is None and cut is None:
            return shown
        # a storage fault needs the owner at once, and so does a link that is
        # down (the other side's moves cannot come); a search that fell back plays on
        needs_owner = self.saving.fault is not None or cut is not None
        alert = Alert.ERROR if needs_owner else shown.alert
        fault = sentences(self.saving.fault, cut, searching, shown.fault)
        return dataclasses.replace(shown, alert=alert, fault=fault)

    def _link_cut(self) -> Text | None:
        """The fault while the link of a game with a remote seat is down, or
        once the link this grid joined is spent."""
        guest = self.guest
        if guest is not None and guest.late is not None:
            return too_late(guest.late)
        if guest is not None and guest.spent and guest.sequel is None:
            return link_spent()
        if guest is not None and guest.behind:
            return _t(
                "This game followed an earlier link of the other grid's: hold the mode "
                "button to end it, and the new link's game begins."
            )
        if self.referee.remote.colour() is None or self.link_state() != "down":
            return None
        if self.referee.game.is_over():
            return None  # no move to wait for: "play goes on" would be untrue
        return _t("The link to the other side is down; play goes on when it is back.")

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
        record: dict[str, Any] = {"snapshot": snapshot(self.referee), "id": self.journal_id}
        if self.board_mark is not None:
            record["board"] = self.board_mark
        return record

    def _finished(self, game: Game) -> None:
        """Queue a game that just ended for the archive (named by this
        journal and its number, so a replay after a crash saves it once)."""
        self.unarchived.finished(game, self.journal_id, self.referee.game_number)
