"""A link given to this grid's page: it joins the other grid's game with
no restart (docs/remote.md, "Linked grids"). :class:`PageLink` takes the
page's requests on the daemon's loop: it swaps the daemon's linked side
(``controller.remote.guest``) for the new link's, keeps the link in the
state directory (``controller.store.joined``), and gives the grid back as
its owner set it up once the link is spent or left. It changes the daemon
only through the daemon's own methods (:class:`Joinable`).

>>> from controller.referee.core import Referee
>>> referee = Referee(Table(), "classic")
>>> refusal(referee, inviting=False) is None
True
>>> from engine import Move
>>> referee.game.play(Move.drop(4))
>>> str(refusal(referee, inviting=False)).startswith("A game is in progress")
True
"""

from __future__ import annotations

import dataclasses
import logging
import queue
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from controller.i18n.text import Text, _n, _t
from controller.i18n.words import player, title_of
from controller.referee.commands import RemoteRevoked
from controller.referee.core import Referee, Table
from controller.referee.verdict import Declined, Draft, Reply, Verdict
from controller.store.joined import forget, store
from engine.colour import Colour

if TYPE_CHECKING:
    from controller.remote.guest import LinkedGuest
    from controller.remote.link import Link

log = logging.getLogger("popref")


@dataclass(frozen=True, slots=True)
class Home:
    """This grid as its owner set it up, kept while a link given on the page
    holds: its table (its house rules), the rules and the computer's colour
    chosen for its next game; all of it back once the link is spent."""

    table: Table
    rules: str
    computer: Colour | None


class Joinable(Protocol):
    """What of the daemon a link given on the page reads and changes."""

    referee: Referee
    table: Table
    state_dir: Path
    guest: LinkedGuest | None

    def clock(self) -> float: ...

    def swap_guest(self, guest: LinkedGuest | None) -> None: ...

    def set_table(self, table: Table) -> None: ...

    def write_state(self) -> None: ...


class PageLink:
    """The page's requests to join or leave, taken on the loop, and this
    grid as its owner set it up while a link given on the page holds
    (``home``: None when none does; the assembly gives it when a kept link
    is joined again at start-up). ``make_guest`` makes the side for a link."""

    def __init__(
        self,
        home: Home | None = None,
        make_guest: Callable[[Link], LinkedGuest] | None = None,
    ) -> None:
        self.home = home
        self._make_guest = make_guest
        # what became of the link given on the page (spent: this grid plays on
        # its own again; followed into the other grid's next game), said with
        # the status until the next game's first move
        self.news: Text | None = None
        self._unkept: Link | None = None  # a sequel that could not be kept, not tried again
        # links given on the page, and None to leave the game one joined
        self._asked: queue.SimpleQueue[tuple[Link | None, Reply | None]] = queue.SimpleQueue()

    def ask(self, link: Link | None, reply: Reply | None) -> None:
        """Join ``link``'s game (None: leave the one joined); any thread."""
        self._asked.put((link, reply))

    def take(self, daemon: Joinable) -> list[Verdict]:
        """Every request asked, done on the loop, each verdict told."""
        verdicts = []
        while True:
            try:
                link, reply = self._asked.get_nowait()
            except queue.Empty:
                break
            verdict = self._join(daemon, link) if link is not None else self._leave(daemon)
            for sentence in verdict.log:
                log.info("%s", sentence)
            verdicts.append(verdict)
            if reply is not None:
                reply(verdict)
        return verdicts

    def part(self, daemon: Joinable) -> list[Verdict]:
        """While the link holds, a game not begun here takes the rules the
        other grid chose for its game. Once the link is spent: when the
        other grid's next game is on the same link, this grid joins it;
        else, once a game of this grid's own begins, the grid is its own
        again: as it was set up, no link kept (one in the configuration
        stays: nothing here changes it)."""
        referee = daemon.referee
        if self.news is not None and referee.in_progress():
            self.news = None  # the next game has begun (a move shows without it)
        guest = daemon.guest
        if guest is None:
            return []
        if not guest.spent:
            return self._retune(daemon, guest.rules_there())
        if guest.sequel is not None:
            return self._follow(daemon, guest.sequel)
        if self.home is None or not referee.not_begun():
            return []
        out = self._home_again(daemon)
        # the page and the terminal show it with the status (nobody at the grid reads a log)
        self.news = parted() if guest.late is None else too_late(guest.late)
        out.log.append(self.news)
        log.info("%s", out.log[-1])
        return [out.verdict()]

    def _retune(self, daemon: Joinable, rules: str | None) -> list[Verdict]:
        """A game not begun here, or the next one while the finished game is
        still on the grid, takes the rules the other grid's state names for
        its game (its owner chose others before its first move): else the
        two grids would play two games from the first move on."""
        referee = daemon.referee
        if rules is None or not (referee.not_begun() or referee.game.is_over()):
            return []
        playing = referee.game.rules.name if referee.not_begun() else referee.next_rules
        if rules == playing:
            return []
        out = Draft()
        referee.choose_rules(rules)  # a game not begun takes them at once
        referee.renew(rules, out)
        daemon.write_state()
        self.news = retuned(title_of(rules))  # said with the status: the rules changed here
        out.log.append(self.news)
        log.info("%s", self.news)
        return [out.verdict()]

    def _follow(self, daemon: Joinable, link: Link) -> list[Verdict]:
        """The other grid began its next game on the same link: this grid
        joins it as if its page had been given the new link, once no game
        of its own is in progress (its person may still be copying the
        last move)."""
        if link == self._unkept or refusal(daemon.referee, inviting=False) is not None:
            return []
        out = Draft()
        # a grid joined by its configuration has no home to go back to: its table is its own
        table = self.home.table if self.home is not None else daemon.table
        why, _ = self._enter(daemon, link, table, out)
        if why is not None:  # said once; the grid waits for a link given on its page
            self._unkept = link
            self.news = why
            return [_declined("join", why)]
        # a finished game still on the grid says to open the slider itself
        self.news = follows(player(link.colour), title_of(link.rules))
        out.log.append(self.news)
        log.info("%s", self.news)
        return [out.verdict()]

    def _join(self, daemon: Joinable, link: Link) -> Verdict:
        out = Draft()
        guest, referee = daemon.guest, daemon.referee
        if guest is not None and guest.link == link and not guest.spent:
            out.log.append(already(player(link.colour)))  # the page asked twice
            return out.verdict()
        seat = referee.remote
        # a friend's seat here, not the other grid's (a guest's invitation is its own)
        friend = guest is None and seat.colour() is not None
        why = refusal(referee, inviting=seat.next_colour is not None or friend)
        if why is not None:
            return _declined("join", why)
        home = self.home or Home(daemon.table, referee.next_rules, referee.next_computer)
        why, now = self._enter(daemon, link, home.table, out)
        if why is not None:
            return _declined("join", why)
        self.home = home
        self.news = None
        out.log.append(joined(player(link.colour), title_of(link.rules), now))
        return out.verdict()

    def _enter(
        self, daemon: Joinable, link: Link, table: Table, out: Draft
    ) -> tuple[Text | None, bool]:
        """This grid plays ``link``'s game from now on, on ``table`` with the
        link's house rules, or why not (the link cannot be kept); and whether
        a game not begun here took it at once."""
        try:
            store(daemon.state_dir, link.url())  # a restart joins it again
        except OSError as error:
            why = _t(
                "The link cannot be kept in {place} ({reason}); this grid did not join.",
                place=str(daemon.state_dir),
                reason=error.strerror or str(error),
            )
            return why, False
        daemon.set_table(joined_table(table, link.repetition, link.both_lines))
        daemon.swap_guest(self._guest(link))
        referee = daemon.referee
        referee.choose_rules(link.rules)
        referee.choose_computer(None)
        now = referee.renew(link.rules, out)  # a game not begun takes the link's house rules too
        daemon.write_state()
        out.changed = True
        return None, now

    def _leave(self, daemon: Joinable) -> Verdict:
        """The owner leaves the linked game: the game on the grid is this
        grid's own from now on (the other colour its people's), and the
        next game is as this grid was set up."""
        if daemon.guest is None or self.home is None:
            return _declined("leave", not_joined(daemon.guest is not None))
        # the other grid's seat ends (its own sentence is the spent link's:
        # this one says why instead); the whole state is journalled below
        daemon.referee.handle(RemoteRevoked(at=daemon.clock()))
        out = self._home_again(daemon)
        out.log.append(left())
        return out.verdict()

    def _home_again(self, daemon: Joinable) -> Draft:
        """This grid as its owner set it up: no link kept, its table, and its
        rules and computer for the next game (this one, if not begun)."""
        home, referee = self.home, daemon.referee
        assert home is not None
        forget(daemon.state_dir)
        daemon.swap_guest(None)
        daemon.set_table(home.table)
        self.home = None
        referee.choose_rules(home.rules)
        referee.choose_computer(home.computer)
        out = Draft(changed=True)
        if referee.not_begun():
            referee.renew(home.rules, out)  # and the house rules
        daemon.write_state()
        return out

    def _guest(self, link: Link) -> LinkedGuest:
        if self._make_guest is not None:
            return self._make_guest(link)
        from controller.remote.guest import LinkedGuest

        return LinkedGuest(link)


def _declined(code: str, why: Text) -> Verdict:
    out = Draft(declined=Declined(code, why))
    out.log.append(why)
    return out.verdict()


def refusal(referee: Referee, inviting: bool) -> Text | None:
    """Why this grid may not join another's game now, or None. A game of
    its own in progress would be lost (the linked game begins on an empty
    grid), and a friend invited here would find the seat gone."""
    if inviting:
        return _t(
            "This grid invites a friend to play: revoke the invitation (and remove "
            "[remote] plays) before it joins another grid's game."
        )
    if referee.linked_here():
        return _t(
            "This grid is in a linked game: it ends when it is over, or when the grid that "
            "invited begins a new one; join the next link then."
        )
    if referee.in_progress():
        return _t(
            "A game is in progress on this grid: finish it or begin a new one, then join "
            "the other grid's game (it begins on an empty grid)."
        )
    return None


def joined_table(
    home: Table, repetition: int | None, both_lines: Literal["popper", "opponent"]
) -> Table:
    """The table while this grid plays the other grid's game: its house
    rules are the link's, and a new game here may not end a linked one."""
    return dataclasses.replace(home, joined=True, repetition=repetition, both_lines=both_lines)


def joined(colour: Text, rules: Text, now: bool) -> Text:
    """What the board says once it joined: whom it plays, and when."""
    if now:
        return _t(
            "This grid joins the other grid's game: it plays {colour}, in {rules}; the other "
            "grid's moves light up here to be copied.",
            colour=colour,
            rules=rules,
        )
    return _t(
        "This grid joins the other grid's game with its next game: it plays {colour}, in "
        "{rules}; open the slider to begin.",
        colour=colour,
        rules=rules,
    )


def already(colour: Text) -> Text:
    """What the board says when the page gives the link it follows again."""
    return _t("This grid already plays that game, as {colour}.", colour=colour)


def too_late(ply: int) -> Text:
    """What a joining grid says when the link's game was under way past its
    own first move before it could begin it (``ply`` moves made there)."""
    return _n(
        "That game is under way on the other grid ({n} move made): this grid cannot join it "
        "midway, with its own moves missing. Join the link of its next game.",
        "That game is under way on the other grid ({n} moves made): this grid cannot join it "
        "midway, with its own moves missing. Join the link of its next game.",
        ply,
    )


def follows(colour: Text, rules: Text) -> Text:
    """What the board says when the other grid's next game is on the same
    link, and this grid joined it (a finished game still on the grid has
    its own sentence to open the slider)."""
    return _t(
        "The other grid began its next game on the same link: this grid plays {colour} "
        "again, in {rules}.",
        colour=colour,
        rules=rules,
    )


def retuned(rules: Text) -> Text:
    """What a joining grid says when it takes the other grid's rules for a
    game not begun."""
    return _t("The other grid chose {rules} for this game: this grid plays it too.", rules=rules)


def waiting_next() -> Text:
    """What a joining grid says while the linked game is over and the other
    grid has not begun its next one (the same link may lead to it)."""
    return _t(
        "The other grid's game is over: this grid joins its next game when that grid begins "
        "it on the same link. A move made here first begins a game of this grid's own."
    )


def own_game() -> Text:
    """What a joining grid says while it plays a game of its own between
    two of the other grid's."""
    return _t(
        "This game is this grid's own: it joins the other grid's next game once this one is over."
    )


def parted() -> Text:
    """What the board says when the link it joined is spent and a game of
    its own begins."""
    return _t(
        "This grid plays on its own again: the other grid's game is over. To play its next "
        "game together, join its new link on this grid's page."
    )


def left() -> Text:
    """What the board says when its owner left the linked game."""
    return _t(
        "This grid left the other grid's game: the game on it is this grid's own now, and "
        "the next is as this grid was set up."
    )


def not_joined(by_configuration: bool) -> Text:
    """Why there is no linked game to leave from the page."""
    if by_configuration:
        return _t(
            "This grid joined by its configuration: remove [remote] join (or --join) and "
            "start it again to leave."
        )
    return _t("This grid has joined no other grid's game.")
