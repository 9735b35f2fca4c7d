"""``popref play LINK``: the remote seat in a terminal. It reads moves from
standard input, one a line in the notation of records (``4``, ``p4``; ``#``
starts a comment), asks the board for each on the remote player's turn, and
prints the board's state once a person has made it on the grid, as one JSON
object a line (the fields of ``popref simulate --json``, docs/remote.md).

A move the board does not take is one line on standard error with its
reason, and the next line is read (the exit status is then 2); so is a line
that is not a move. The board's answers are awaited for ``--timeout``
seconds; the people at the grid as long as they take. The end of the game
ends it, unless ``--follow``: then the next line waits for the grid's next
game on the same link (docs/remote.md), and is played there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from controller.remote.client import RemoteClient
    from controller.remote.link import Link
    from engine import Move

# the link from the environment: a command line is anyone's to read (ps), and
# the link holds the invitation's secret
LINK_VARIABLE = "POPREF_LINK"


class Stop(Exception):
    """The game or the invitation is over: no further line can be played."""


class Refused(Exception):
    """The board did not take a move; the message is its reason."""


class Next(Exception):
    """The grid began its next game on the same link: ``link`` is its."""

    def __init__(self, link: Link) -> None:
        super().__init__(link.game)
        self.link = link


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "link",
        metavar="LINK",
        nargs="?",
        help=f"the invitation link (in quotes: it has # and &); without it, ${LINK_VARIABLE}, "
        "which other users of this machine cannot read as they can a command line",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="how long to wait for the board's answers (default 30)",
    )
    parser.add_argument(
        "--follow",
        action="store_true",
        help="after a game, play on in the grid's next game on the same link (waiting for "
        "the people at the grid to begin it) instead of stopping",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.1 <= value <= 3600:
        raise argparse.ArgumentTypeError(
            f"{text[:20]!r} is not a number of seconds from 0.1 to 3600"
        )
    return value


def run(args: argparse.Namespace) -> int:
    import logging

    from controller.cli.argtypes import lenient_stdin
    from controller.remote.link import LinkError, parse_link

    text = args.link if args.link is not None else os.environ.get(LINK_VARIABLE)
    if not text:
        print(f"popref play: give the invitation link, or set {LINK_VARIABLE} to it",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        link = parse_link(text)
    except LinkError as error:
        print(f"popref play: {error}", file=sys.stderr)
        return 2
    # what goes wrong with the broker is said once, as the one line of error
    logging.getLogger("popref").setLevel(logging.ERROR)
    client = _opened(link)
    follow = _opened if args.follow else None
    try:
        return play(client, lenient_stdin(), sys.stdout, args.timeout, follow)
    finally:
        client.close()


def _opened(link: Link) -> RemoteClient:
    from controller.remote.client import RemoteClient

    client = RemoteClient(link, here=True)  # the owner's page sees it open
    client.start()
    return client


def play(
    client: RemoteClient,
    lines: Iterable[str],
    out: TextIO,
    timeout: float,
    follow: Callable[[Link], RemoteClient] | None = None,
) -> int:
    """Play ``lines`` as the remote player; the exit status. With
    ``follow`` (it opens a client on a link), a line after a game is played
    in the grid's next game on the same link; the clients it opened are
    closed here."""
    opened: list[RemoteClient] = []
    try:
        return _play(client, lines, out, timeout, follow, opened)
    finally:
        for one in opened:
            one.close()


def _play(
    client: RemoteClient,
    lines: Iterable[str],
    out: TextIO,
    timeout: float,
    follow: Callable[[Link], RemoteClient] | None,
    opened: list[RemoteClient],
) -> int:
    from controller.simulator.script import excerpt
    from engine import parse_move

    if not _heard(client, timeout):
        _say(f"no state from the board within {timeout:g} s; {_why_silent(client)}")
        return 2
    status = 0
    for number, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        where = f"line {number} ({excerpt(text)})"
        try:
            move = parse_move(text)
            client, state = _on_turn(client, move, timeout, follow, opened)
        except ValueError as error:
            _say(f"{where}: {error}; write a move as records do, e.g. 4 or p4")
        except Refused as error:
            _say(f"{where}: the board did not take it: {error}")
        except Stop as error:
            _say(f"{where}: {error}")
            return 2
        else:
            out.write(json.dumps(state) + "\n")
            out.flush()
            continue
        status = 2
    return status


def _on_turn(
    client: RemoteClient,
    move: Move,
    timeout: float,
    follow: Callable[[Link], RemoteClient] | None,
    opened: list[RemoteClient],
) -> tuple[RemoteClient, dict[str, Any]]:
    """``move`` played (:func:`_one`), in the grid's next game on the same
    link when ``follow`` opens it: the client it was played through, and
    the state after it."""
    while True:
        try:
            return client, _one(client, move, timeout, follow is not None)
        except Next as after:
            assert follow is not None
            client = follow(after.link)
            opened.append(client)
            if not _heard(client, timeout):
                raise Stop(f"no state from the grid's next game within {timeout:g} s") from None


def _heard(client: RemoteClient, timeout: float) -> bool:
    """Whether the board's state came within ``timeout`` seconds."""
    return client.wait(lambda: client.state is not None, timeout)


def _one(client: RemoteClient, move: Move, timeout: float, following: bool) -> dict[str, Any]:
    """Play ``move`` on the remote player's next turn; the state once a
    person made it on the grid. ``following``: once the game is over, wait
    for the grid's next game, and :class:`Next` when it is on this link."""
    client.wait(lambda: _over(client) is not None or _turn(client), None)
    if following and _over(client) is not None:
        # as long as the people at the grid take to begin it
        client.wait(lambda: _state(client).get("invitation") == "ended", None)
        after = client.link.sequel(_state(client).get("sequel"))
        if after is not None:
            raise Next(after)
    _stop_if_over(client)
    ply = _state(client)["ply"]
    seq = client.request(str(move), ply)  # sent again until answered (RemoteClient.resend)
    if not client.wait(lambda: client.answered(seq) or _waiting(client, ply), timeout):
        raise Refused(f"no answer within {timeout:g} s; {_why_silent(client)}")
    reply = client.replies.get(seq, {"ok": True})
    if not reply.get("ok") and not _waiting(client, ply):
        raise Refused(str(reply.get("reason", "no reason given")))
    client.wait(lambda: _over(client) is not None or _state(client)["ply"] > ply, None)
    if _state(client).get("invitation") == "ended":
        _stop_if_over(client)
    return _state(client)


def _why_silent(client: RemoteClient) -> str:
    """What to look at when the board says nothing: the broker's trouble,
    while there is one, else the board."""
    broker = client.connection.address.url
    trouble = client.connection.trouble
    if trouble is not None:
        return f"the broker at {broker}: {trouble}"
    return f"is popref running with this invitation, on {broker}?"


def _state(client: RemoteClient) -> dict[str, Any]:
    assert client.state is not None
    return client.state


def _turn(client: RemoteClient) -> bool:
    state = _state(client)
    return bool(state.get("to_move") == state.get("you") and state.get("remote") is None)


def _waiting(client: RemoteClient, ply: int) -> bool:
    """The board took a request of ours at ``ply`` (its move waits), or moved on."""
    state = _state(client)
    return bool(state.get("remote") is not None or state.get("ply") != ply)


def _over(client: RemoteClient) -> str | None:
    state = _state(client)
    after = client.link.sequel(state.get("sequel"))
    if state.get("invitation") == "ended" and after is not None:
        return (
            f"the game is over ({state.get('result')}) and the grid began its next game on this "
            f"link; to play it: POPREF_LINK='{after.url()}' popref play"
        )
    if state.get("invitation") == "ended":
        return (
            "the invitation has ended (revoked, expired, or a new game began); ask for a new link"
        )
    if state.get("result") is not None:
        return f"the game is over ({state['result']}); no further move is played"
    return None


def _stop_if_over(client: RemoteClient) -> None:
    over = _over(client)
    if over is not None:
        raise Stop(over)


def _say(line: str) -> None:
    print(f"popref play: {line}", file=sys.stderr, flush=True)
