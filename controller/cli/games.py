"""``popref games``: list the finished games, or print one game's record.

::

    $ popref games
       1  2026-11-29 17:05  pop10        red          58 moves
       2  2026-11-29 17:31  classic      draw         42 moves
       3  2026-11-29 17:40  classic      unfinished   12 moves
    $ popref games 2
    ...the game record...

The games live in ``<state directory>/games``; the state directory is
``--state-dir``, else ``$STATE_DIRECTORY`` (systemd sets it for the service),
else ``/var/lib/popref``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path

from controller.cli.argtypes import config_file
from controller.daemon.config import load_config
from controller.store.archive import ArchivedGame, ArchiveError, GameArchive, NoSuchGame
from hardware.errors import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state-dir",
        type=Path,
        metavar="DIR",
        help="the daemon's state directory (default: the configuration's)",
    )
    parser.add_argument(
        "--config", type=config_file, metavar="FILE", help="TOML configuration (for its state_dir)"
    )
    parser.add_argument(
        "number",
        nargs="?",
        type=int,
        metavar="NUMBER",
        help="print the record of this game instead of the list",
    )


def state_directory(
    given: Path | None, env: Mapping[str, str] = os.environ, config: Path | None = None
) -> Path:
    """The state directory: *given*, else the configuration's (whose default
    is systemd's ``$STATE_DIRECTORY``, or ``/var/lib/popref`` for root, or the
    user's own state directory)."""
    if given is not None:
        return given
    return load_config(config, env).state_dir


# the result of a game abandoned before its end, as its record's Result says it,
# and the page's word for it
UNFINISHED = {"*": "unfinished"}


def format_game(game: ArchivedGame) -> str:
    """One listing line.

    >>> from datetime import datetime
    >>> format_game(ArchivedGame(3, datetime(2026, 11, 29, 17, 5), "five+pop10", "yellow",
    ...                          Path("x"), 61))
    '   3  2026-11-29 17:05  five+pop10   yellow       61 moves'
    >>> format_game(ArchivedGame(4, datetime(2026, 11, 29, 17, 9), "classic", "*", Path("y"), 3))
    '   4  2026-11-29 17:09  classic      unfinished    3 moves'
    """
    # The daemon stores UTC; a person reads the Pi's local time.
    finished = game.finished.astimezone() if game.finished.tzinfo else game.finished
    result = UNFINISHED.get(game.result, game.result)
    line = f"{game.number:4d}  {finished:%Y-%m-%d %H:%M}  {game.rules:<11}  {result:<10}"
    if game.moves is not None:
        line += f"  {game.moves:3d} {'move' if game.moves == 1 else 'moves'}"
    return line.rstrip()


def warn(sentence: str) -> None:
    print(f"popref games: {sentence}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        directory = state_directory(args.state_dir, config=args.config) / "games"
    except ConfigError as error:
        print(f"popref games: {error}", file=sys.stderr)
        return 2
    archive = GameArchive(directory)
    try:
        if args.number is not None:
            text = archive.read(args.number)
            sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
            return 0
        games = archive.games(warn=warn)
    except NoSuchGame as error:
        print(f"popref games: {error}; `{listing(args)}` lists the games", file=sys.stderr)
        return 2
    except ArchiveError as error:
        print(f"popref games: {error}", file=sys.stderr)
        return 2
    if not games:
        print(f"No finished games in {directory} yet.")
    for game in games:
        print(format_game(game))
    if args.state_dir is None:
        _point_to_simulate(directory)
    return 0


def listing(args: argparse.Namespace) -> str:
    """The command that lists the games *args* read: ``popref games`` with
    the ``--state-dir`` and ``--config`` given, since without them it lists
    the default directory's.

    >>> listing(argparse.Namespace(state_dir=Path("my games"), config=None))
    "popref games --state-dir 'my games'"
    """
    words = ["popref", "games"]
    if args.state_dir is not None:
        words += ["--state-dir", str(args.state_dir)]
    if args.config is not None:
        words += ["--config", str(args.config)]
    return shlex.join(words)


def _point_to_simulate(listed: Path) -> None:
    """Games played with ``popref simulate`` are kept elsewhere: say where,
    on standard error so that the listing stays clean."""
    from controller.store.places import simulate_state_dir

    kept = simulate_state_dir()
    if kept / "games" == listed:
        return
    try:
        count = len(GameArchive(kept / "games").games()) if (kept / "games").is_dir() else 0
    except (ArchiveError, OSError):
        count = 0  # a hint, not a listing: the count is left out
    played = f"{count} finished game{'' if count == 1 else 's'}" if count else "its games"
    print(
        f"popref simulate keeps {played} in {kept}: popref games --state-dir {kept}",
        file=sys.stderr,
    )
