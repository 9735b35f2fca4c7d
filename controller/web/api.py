"""The HTTP interface: the page, its state and event stream, the archive, and
the controls (docs/web.md lists every call).

Watching needs nothing (unless ``[web] watch = false``); controlling needs a
paired browser's token in the ``Authorization: Bearer`` header. Archive files
are found by game number in the archive's own listing, never by a path from
the request, and the page is served from a fixed table of names.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from controller.i18n.text import LANGUAGES, _t, render
from controller.referee.commands import (
    PAIRING_WINDOW,
    Command,
    HintAsked,
    LevelChosen,
    NewGameAsked,
    OpponentChosen,
    PairingRequested,
    RemoteInvited,
    RemoteRevoked,
    RulesChosen,
    TakebackAsked,
    TakebackDeclined,
)
from controller.referee.computer_seat import MAX_LEVEL, MIN_LEVEL
from controller.referee.invitation import DAY
from controller.referee.pairing_window import LOOK
from controller.referee.verdict import Verdict
from controller.remote.link import LinkError, parse_link
from controller.remote.qr import qr_svg
from controller.store.archive import ArchiveError, NoSuchGame
from controller.web.connections import STALLED
from controller.web.exchange import Exchange
from controller.web.page_text import page_catalog
from controller.web.pairing import PENDING, Busy, well_formed
from controller.web.replay import replay
from controller.web.share import MOST_MOVES, share_fragment
from engine import RULES_NAMES, rules_named
from engine.colour import Colour
from engine.rules import BOTH_LINES, REPETITION
from hardware import looks

log = logging.getLogger("popref")

GAME = re.compile(r"^/api/games/(\d{1,9})(/replay)?$")
KEEPALIVE = 15.0  # seconds between comment lines on a quiet event stream
CATCH_UP = 0.25  # seconds between looks at an event stream whose client is behind
REPLY_WAIT = 5.0  # seconds a control waits for the loop to take it in
PLAYS = ("red", "yellow", "none")
# GET /api/rules: the rules there are, and how each lamp looks (hardware/looks.py,
# the table the board's lights follow), so the page draws what the board shows;
# the board sizes each rules allow (the engine's bounds) and the most moves of
# a share link, so the remote page replays only what the board could have sent.
RULES = {
    "rules": list(RULES_NAMES),
    "sizes": {
        name: {"width": list(widths), "height": list(heights)}
        for name in RULES_NAMES
        for widths, heights in [rules_named(name).size_bounds]
    },
    # the house rules a link may carry (engine.rules): what the remote page
    # checks a next game's against before it follows
    "repetition": list(REPETITION),
    "both_lines": list(BOTH_LINES),
    "share_moves": MOST_MOVES,
    "step_ms": looks.STEP_MS,
    "lamps": {
        name: {"colour": colour, "pattern": list(looks.PATTERNS[blink])}
        for name, colour, blink, _, _ in looks.LOOKS
    },
}


class Handler(Exchange):
    """One connection's calls: the page, its state and event stream, the
    archive and the controls; :class:`Exchange` checks and answers them."""

    # -- GET --------------------------------------------------------------------------

    def do_HEAD(self) -> None:
        if self.path.split("?", 1)[0] == "/api/events":
            self._error(HTTPStatus.METHOD_NOT_ALLOWED, "the event stream needs GET")
            return
        self.do_GET()

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        static = self.web.static.get(path)
        if static is not None:
            self._send(HTTPStatus.OK, static[1], static[0])
        elif path == "/api/strings":
            messages = "messages=1" in self.path.partition("?")[2].split("&")
            self._json(HTTPStatus.OK, page_catalog(self._language(), messages))
        elif path == "/api/session":
            self._json(HTTPStatus.OK, {"paired": self._paired(), "watch": self.web.config.watch})
        elif not path.startswith("/api/"):
            self._error(HTTPStatus.NOT_FOUND, "no such page")
        elif path == "/api/remote":
            if self._may_control():
                self._invitation()
        elif not self._may_watch():
            return
        elif path == "/api/state":
            state = self.web.hub.current(self._language())[1]
            self._send(HTTPStatus.OK, state, "application/json")
        elif path == "/api/events":
            self._events()
        elif path == "/api/rules":
            self._json(HTTPStatus.OK, RULES)
        elif path == "/api/games":
            self._games()
        elif match := GAME.match(path):
            self._game(int(match[1]), bool(match[2]))
        else:
            self._error(HTTPStatus.NOT_FOUND, "no such call; docs/web.md lists them")

    def _events(self) -> None:
        hub, stream = self.web.hub, self.io
        language = self._language()
        if not hub.join(stream):  # past a cap another stream gives way; only closing says no
            too_many = _t("too many pages are open; try again later")
            self._error(HTTPStatus.SERVICE_UNAVAILABLE, too_many)
            return
        try:
            self.close_connection = True
            stream.stream()
            self._headers(HTTPStatus.OK, "text/event-stream", None)
            self.wfile.write(b"retry: 1000\n\n")
            seen = -1  # a (re)connecting client gets the current state at once
            while hub.follows(stream):
                if stream.behind():  # wait for the client to take some, then send the newest
                    if not stream.taking():
                        break
                    hub.pause(stream, CATCH_UP)
                    continue
                version, data = hub.wait(seen, KEEPALIVE, language, stream)
                if not hub.follows(stream) or not stream.taking():
                    break  # its place went to a newer stream, or its client does not read
                self.io.begin_answer(STALLED)
                if data is None:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    seen = version
                    self.wfile.write(b"data: " + data + b"\n\n")
                self.wfile.flush()
            if hub.follows(stream):
                log.debug("web: %s: an event stream not read, dropped", self.client_address[0])
        except OSError:
            pass  # the client went away, or stopped reading for too long
        finally:
            hub.leave(stream)

    def _games(self) -> None:
        try:
            games = self.web.archive.games()
        except ArchiveError as error:
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, str(error))
            return
        listing = [
            {
                "number": g.number,
                "finished": g.finished.isoformat(),
                "rules": g.rules,
                "result": g.result,
                "moves": g.moves,
            }
            for g in reversed(games)
        ]
        self._json(HTTPStatus.OK, listing)

    def _game(self, number: int, as_replay: bool) -> None:
        try:
            record = self.web.archive.read(number)
        except NoSuchGame:
            self._error(HTTPStatus.NOT_FOUND, f"there is no game {number} in the archive")
            return
        except ArchiveError as error:
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, str(error))
            return
        if not as_replay:
            disposition = f'attachment; filename="popref-game-{number}.txt"'
            body = record.encode()
            self._send(
                HTTPStatus.OK,
                body,
                "text/plain; charset=utf-8",
                {"Content-Disposition": disposition},
            )
            return
        try:
            data = replay(record)
            share = f"{self.web.remote_page}#{share_fragment(data, number)}"
            self._json(HTTPStatus.OK, {"number": number, **data, "share": share})
        except ValueError as error:
            self._error(HTTPStatus.UNPROCESSABLE_ENTITY, f"game {number}: {error}")

    # -- POST ---------------------------------------------------------------------------

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        call = POSTS.get(path)
        if call is None:
            self._error(HTTPStatus.NOT_FOUND, "no such call; docs/web.md lists them")
            return
        body = self._body(path, call.fields)
        if body is None or (call.paired and not self._may_control()):
            return
        call.handle(self, body)

    def _submit(self, command: Command) -> dict[str, Any]:
        """Hand ``command`` to the daemon's loop; the referee's sentences about
        it once it is journalled (none if the loop is slower than
        :data:`REPLY_WAIT`: the event stream shows the outcome anyway), as the
        answer's ``said`` (in the reader's language) and ``said_in`` (in
        every language, so the page can show them again in another)."""
        verdict = self._taken(lambda reply: self.web.controls.submit(command, reply))
        return self._said(verdict.log if verdict is not None else ())

    def _taken(self, hand: Callable[[Callable[[Verdict], None]], None]) -> Verdict | None:
        """What ``hand`` gave the loop came to, or None after :data:`REPLY_WAIT`."""
        done = threading.Event()
        verdicts: list[Verdict] = []

        def reply(verdict: Verdict) -> None:
            verdicts.append(verdict)
            done.set()

        hand(reply)
        done.wait(REPLY_WAIT)
        return verdicts[0] if verdicts else None

    def _said(self, said: tuple[str, ...]) -> dict[str, Any]:
        language = self._language()
        return {
            "said": [render(sentence, language) or "" for sentence in said],
            "said_in": {code: [render(s, code) or "" for s in said] for code in LANGUAGES},
        }

    def _pair(self, body: dict[str, Any]) -> None:
        pairing = self.web.pairing
        try:
            request, code = pairing.request(self.web.columns)
        except Busy as error:
            self._error(HTTPStatus.CONFLICT, error.sentence)
            return
        self.web.controls.submit(PairingRequested(code), lambda _: pairing.shown(code))
        answer = {"request": request, "window": PAIRING_WINDOW, "code": list(code), "look": LOOK}
        self._json(HTTPStatus.ACCEPTED, answer)

    def _claim(self, body: dict[str, Any]) -> None:
        request = body.get("request")
        if not isinstance(request, str) or not well_formed(request):
            self._error(HTTPStatus.BAD_REQUEST, 'send {"request": ID} from POST /api/pair')
            return
        answer = self.web.pairing.claim(request)
        if answer is PENDING:
            self._json(HTTPStatus.ACCEPTED, {"pending": True})
        elif isinstance(answer, str):
            self._json(
                HTTPStatus.OK, {"token": answer, "expires": self.web.pairing.expires(answer)}
            )
        else:
            ended = _t(
                "This browser was not paired: the board refused the request, or nobody "
                "answered it in time. Press Pair to try again."
            )
            self._error(HTTPStatus.GONE, ended)

    def _rules(self, body: dict[str, Any]) -> None:
        name = body.get("rules")
        if name not in RULES_NAMES:
            self._error(HTTPStatus.BAD_REQUEST, f"rules must be one of {', '.join(RULES_NAMES)}")
            return
        said = self._submit(RulesChosen(str(name)))
        self._json(HTTPStatus.ACCEPTED, {"rules": name, **said})

    def _opponent(self, body: dict[str, Any]) -> None:
        plays = body.get("plays")
        if plays not in PLAYS:
            self._error(HTTPStatus.BAD_REQUEST, 'plays must be "red", "yellow" or "none"')
            return
        colour = None if plays == "none" else Colour(plays)
        said = self._submit(OpponentChosen(colour))
        self._json(HTTPStatus.ACCEPTED, {"plays": plays, **said})

    def _level(self, body: dict[str, Any]) -> None:
        level = body.get("level")
        if (
            not isinstance(level, int)
            or isinstance(level, bool)
            or not (MIN_LEVEL <= level <= MAX_LEVEL)
        ):
            self._error(
                HTTPStatus.BAD_REQUEST,
                f"level must be a whole number from {MIN_LEVEL} (a child can beat it) "
                f"to {MAX_LEVEL} (full strength)",
            )
            return
        said = self._submit(LevelChosen(level))
        self._json(HTTPStatus.ACCEPTED, {"level": level, **said})

    def _hint(self, body: dict[str, Any]) -> None:
        self._json(HTTPStatus.ACCEPTED, self._submit(HintAsked()))

    def _takeback(self, body: dict[str, Any]) -> None:
        self._json(HTTPStatus.ACCEPTED, self._submit(TakebackAsked()))

    def _decline(self, body: dict[str, Any]) -> None:
        self._json(HTTPStatus.ACCEPTED, self._submit(TakebackDeclined()))

    def _invite(self, body: dict[str, Any]) -> None:
        """A new invitation for a colour, in this game (made between games:
        in the next); its link, for the paired browser only."""
        colour = body.get("colour")
        if colour not in ("red", "yellow"):
            self._error(HTTPStatus.BAD_REQUEST, 'colour must be "red" or "yellow"')
            return
        host = self.web.remote
        if host is None:
            no_broker = _t(
                "No broker is configured: set [remote] broker in the configuration "
                "to invite a friend."
            )
            self._error(HTTPStatus.CONFLICT, no_broker)
            return
        if self.web.hub.state().get("linked") == "joined":
            joined = _t(
                "This grid plays another grid's game: it invites nobody until that game is over."
            )
            self._error(HTTPStatus.CONFLICT, joined)
            return
        invitation = host.invitation(Colour(colour))
        said = self._submit(RemoteInvited(invitation))
        rules = str(self.web.hub.state().get("rules", "classic"))
        link = host.link(invitation, rules)
        answer = {
            "colour": colour,
            "link": link,
            "qr": qr_svg(link),
            "expires": invitation.made_at + DAY,
            **said,
        }
        self._json(HTTPStatus.ACCEPTED, answer)

    def _revoke(self, body: dict[str, Any]) -> None:
        self._json(HTTPStatus.ACCEPTED, self._submit(RemoteRevoked()))

    def _join(self, body: dict[str, Any]) -> None:
        """This grid joins the other grid's game the link invites to
        (docs/remote.md, "Linked grids"): its rules, its colour, no restart."""
        text = body.get("link")
        if not isinstance(text, str) or not text.strip():
            empty = _t(
                "Paste the other grid's invitation link first: its page's Copy the link "
                "button gives it."
            )
            self._error(HTTPStatus.BAD_REQUEST, empty)
            return
        try:
            link = parse_link(text.strip())
        except LinkError as error:
            # what is wrong stays in the link's own words (popref play says them too)
            damaged = _t(
                "That is not the other grid's whole invitation link ({reason}). Copy it "
                "again with the Copy the link button on that grid's page, and paste all of it.",
                reason=str(error),
            )
            self._error(HTTPStatus.BAD_REQUEST, damaged)
            return
        verdict = self._taken(lambda reply: self.web.controls.join(link, reply))
        if verdict is not None and verdict.declined is not None:
            self._error(HTTPStatus.CONFLICT, verdict.declined.reason)
            return
        answer = {"colour": link.colour.value, "rules": link.rules}
        self._json(HTTPStatus.ACCEPTED, {**answer, **self._said(verdict.log if verdict else ())})

    def _leave(self, body: dict[str, Any]) -> None:
        """This grid leaves the other grid's game its page joined, whatever
        that grid does (it may be gone for good)."""
        verdict = self._taken(self.web.controls.leave)
        if verdict is not None and verdict.declined is not None:
            self._error(HTTPStatus.CONFLICT, verdict.declined.reason)
            return
        self._json(HTTPStatus.ACCEPTED, self._said(verdict.log if verdict else ()))

    def _invitation(self) -> None:
        """The link of this game's invitation and its QR code, for a paired
        browser that opens the page again while a friend holds a seat, and
        whether a broker is configured at all (``broker``: without one the
        page offers no invitation)."""
        host = self.web.remote
        link = host.current_link() if host is not None else None
        colour = self.web.hub.state().get("remote_colour")
        found = {
            "colour": colour,
            "link": link,
            "qr": qr_svg(link) if link else None,
            "broker": host is not None,
            # the last game's link leads to this one: nobody need send it again
            "same_link": host is not None and host.continued(),
        }
        self._json(HTTPStatus.OK, found)

    def _new(self, body: dict[str, Any]) -> None:
        if not isinstance(body.get("confirm", False), bool):
            self._error(HTTPStatus.BAD_REQUEST, "confirm must be true or false")
            return
        state = self.web.hub.state()
        in_progress = bool(state.get("moves")) and state.get("result") is None
        if in_progress and body.get("confirm") is not True:
            asking = _t("A game is in progress; send confirm: true to abandon it.")
            self._json(
                HTTPStatus.CONFLICT,
                {"error": asking.render(self._language()), "confirm": True},
            )
            return
        said = self._submit(NewGameAsked())
        self._json(HTTPStatus.ACCEPTED, {"new_game": True, **said})


@dataclass(frozen=True, slots=True)
class Call:
    """A POST call: what answers it, the fields its JSON object may hold,
    and whether only a paired browser may make it."""

    handle: Callable[[Handler, dict[str, Any]], None]
    fields: tuple[str, ...] = ()
    paired: bool = True


# Every POST call (docs/web.md's table): any other path is a 404, never a control.
POSTS: dict[str, Call] = {
    "/api/pair": Call(Handler._pair, paired=False),
    "/api/pair/claim": Call(Handler._claim, ("request",), paired=False),
    "/api/rules": Call(Handler._rules, ("rules",)),
    "/api/new": Call(Handler._new, ("confirm",)),
    "/api/opponent": Call(Handler._opponent, ("plays",)),
    "/api/level": Call(Handler._level, ("level",)),
    "/api/hint": Call(Handler._hint),
    "/api/takeback": Call(Handler._takeback),
    "/api/takeback/decline": Call(Handler._decline),
    "/api/remote/invite": Call(Handler._invite, ("colour",)),
    "/api/remote/revoke": Call(Handler._revoke),
    "/api/remote/join": Call(Handler._join, ("link",)),
    "/api/remote/leave": Call(Handler._leave),
}
