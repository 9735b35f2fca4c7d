"""Putting a daemon together from the configuration: the one place that knows
every backend. Everything that can go wrong here becomes a
:class:`StartupError` with one line that says what to fix."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.computer.process import ProcessThinker
from controller.computer.thinker import Thinker
from controller.daemon.config import Config, load_config, page_joined
from controller.daemon.joining import Home, PageLink
from controller.daemon.loop import Daemon
from controller.daemon.sdnotify import Notifier
from controller.referee.core import Table
from controller.store.joined import forget, stored
from controller.store.journal import (
    JournalError,
    SpecialFile,
    move_aside,
    read_regular,
    replace_file,
)
from controller.store.statelock import StateDirBusy, lock_state_dir
from hardware.backend import Backend
from hardware.clock import Clock
from hardware.errors import ConfigError, HardwareError

if TYPE_CHECKING:
    from controller.remote.guest import LinkedGuest
    from controller.remote.host import RemoteHost
    from controller.remote.link import Link
    from hardware.sim.backend import SimulatedTable
    from hardware.sim.grid import SimGrid

log = logging.getLogger("popref")
CONFIGURED_RULES = "configured-rules"  # the [game] rules applied at the last start
CONFIGURED_OPPONENT = "configured-opponent"  # the [opponent] plays applied at the last start
CONFIGURED_LEVEL = "configured-level"  # the [opponent] level applied at the last start
CONFIGURED_REMOTE = "configured-remote"  # the [remote] plays applied at the last start


class StartupError(RuntimeError):
    """The daemon cannot start; the message is one line for the user."""


@dataclass
class Assembled:
    config: Config
    daemon: Daemon
    sim: SimulatedTable | None = None  # the simulated table, for the sim backend


def table_of(config: Config) -> Table:
    return Table(
        columns=config.board.columns,
        rows=config.board.rows,
        colour_sensing=config.board.colour_sensing,
        simultaneous=config.game.simultaneous,
        repetition=config.game.repetition,
        both_lines=config.game.both_lines,
        computer_level=config.opponent.level,
        computer_seed=config.opponent.seed,
        joined=config.remote.join is not None,
    )


def assemble(
    config_path: Path | None,
    rules: str | None,
    state_dir: Path | None,
    clock: Clock,
    *,
    config: Config | None = None,
    physics: Any | None = None,
    thinker: Thinker | None = None,
    ponder: bool | None = None,
    grid_file: Path | None = None,
    wall: Callable[[], float] = time.time,
) -> Assembled:
    """A daemon resumed from its journal and ready to ``open()``, holding its
    state directory's lock; ``ponder`` overrides ``[opponent] ponder``; the
    simulated grid's discs are restored from ``grid_file`` if it exists;
    ``wall`` is the wall clock (a remote invitation's expiry)."""
    try:
        if config is None:
            config = load_config(config_path)
    except (ConfigError, HardwareError) as error:
        raise StartupError(str(error)) from None
    directory = state_dir or config.state_dir
    # before anything else touches the directory or the board: a second
    # daemon must change nothing of the first one's game
    from controller.remote.link import hide_secrets  # pure: no broker library

    with _state_dir_errors(directory):
        lock = lock_state_dir(directory, shown=hide_secrets)
    try:
        home, config = _page_link(config, directory)
        try:
            backend, sim = build_backend(config, clock, physics)
        except (ConfigError, HardwareError) as error:
            raise StartupError(str(error)) from None
        if sim is not None and grid_file is not None:
            restore_grid(sim.grid, grid_file)
        with _state_dir_errors(directory):
            daemon = Daemon(
                table=table_of(config),
                rules=rules or config.game.rules,
                backend=backend,
                clock=clock,
                state_dir=directory,
                notifier=Notifier.from_environment(os.environ),
                computer=config.opponent.plays,
                thinker=thinker or ProcessThinker(clock, config.opponent.think),
                ponder=config.opponent.ponder if ponder is None else ponder,
                lock=lock,
                remote=remote_host(config, wall, directory),
                guest=linked_guest(config, wall),
                page_link=PageLink(home, lambda link: _guest(link, wall)),
            )
            daemon.resume()
            if config.remote.join is not None:
                join_game(daemon, config, rules)
            elif rules is None:
                configure_rules(daemon, directory, config)
            else:
                daemon.choose_rules(rules)
            if config.remote.join is None:
                # a joining grid's computer plays neither colour, and it invites
                # no friend: what the file says of both waits for its own games
                configure_opponent(daemon, directory, config)
                configure_remote(daemon, directory, config)
    except BaseException:
        lock.release()
        raise
    return Assembled(config, daemon, sim)


@contextmanager
def _state_dir_errors(directory: Path) -> Iterator[None]:
    """What can go wrong with the state directory, as one line."""
    try:
        yield
    except StateDirBusy as error:
        raise StartupError(str(error)) from None
    except PermissionError:
        raise StartupError(
            f"{directory}: permission denied; give the popref user write access or pass --state-dir"
        ) from None
    except JournalError as error:
        raise StartupError(str(error)) from None
    except (FileExistsError, NotADirectoryError):
        raise StartupError(
            f"{directory}: not a directory; pass --state-dir with a directory for the game"
        ) from None
    except OSError as error:
        raise StartupError(f"{directory}: {error.strerror}") from None


def restore_grid(grid: SimGrid, path: Path) -> None:
    """Put the discs saved in ``path`` back into the simulated grid (a
    physical grid keeps its discs while popref is stopped). A damaged file is
    moved aside and start-up stops, as for the journal."""
    from hardware.sim.grid import SAVED_GRID_LIMIT, SimGridError, grid_from_saved

    try:
        data = read_regular(path, SAVED_GRID_LIMIT + 1)
        if data is None:
            return
        columns = grid_from_saved(data)
    except SpecialFile as error:
        raise StartupError(f"{error}; remove it (popref simulate writes it itself)") from None
    except OSError as error:
        raise StartupError(f"{path}: {error.strerror}") from None
    except ValueError as error:
        moved = move_aside(path)
        raise StartupError(
            f"the saved simulated grid {path} is damaged ({error}); it was moved aside to "
            f"{moved}: start again to begin with an empty grid"
        ) from None
    try:
        grid.load(columns)
    except SimGridError:
        log.warning("The saved simulated grid is for another board size; starting it empty.")


def configure_rules(daemon: Daemon, directory: Path, config: Config) -> None:
    """``[game] rules`` applies from the next game on (or to this one, before
    its first move) whenever it names other rules than at the last start.
    Rules chosen with the mode button since then stand until it changes."""
    name = config.game.rules
    if _configured(directory / CONFIGURED_RULES, name) and daemon.choose_rules(name):
        log.info("(%s says [game] rules = %s.)", config.source, name)


def join_game(daemon: Daemon, config: Config, rules: str | None) -> None:
    """A grid that joins another grid's game plays the link's rules
    (``[game] rules`` is the link's, :func:`controller.daemon.config.joining`),
    whatever this state directory played before, and the computer plays
    neither colour: this grid's is its person's, the other the other grid's
    (``[opponent] plays`` is refused beside ``join``; a computer seated
    before, on the page or with ``--opponent``, gives its colour up).
    ``rules`` asked for besides must be the link's (the command lines refuse
    them before)."""
    name = config.game.rules
    if rules is not None and rules != name:
        raise StartupError(
            f"the rules {rules} are not the link's ({name}): a joining grid plays the link's "
            "rules; leave them out"
        )
    daemon.choose_rules(name)
    if daemon.choose_computer(None):
        log.info("(This grid joins another grid's game: the computer plays neither colour.)")


def configure_opponent(daemon: Daemon, directory: Path, config: Config) -> None:
    """``[opponent] plays`` likewise: from the next game on (or this one,
    before its first move) whenever it changed since the last start; an
    opponent chosen with the mode button stands until then."""
    plays = config.opponent.plays
    name = plays.value if plays is not None else "none"
    if _configured(directory / CONFIGURED_OPPONENT, name) and daemon.choose_computer(plays):
        log.info("(%s says [opponent] plays = %s.)", config.source, name)
    # the level likewise: one chosen on the page stands until the configuration changes
    level = config.opponent.level
    if _configured(directory / CONFIGURED_LEVEL, str(level)) and daemon.choose_level(level):
        log.info("(%s says [opponent] level = %d.)", config.source, level)


def configure_remote(daemon: Daemon, directory: Path, config: Config) -> None:
    """``[remote] plays`` likewise: whenever it changed since the last start
    (an invitation revoked since then stays revoked until it changes)."""
    if config.remote.settings is None:
        return
    plays = config.remote.plays
    name = plays.value if plays is not None else "none"
    if _configured(directory / CONFIGURED_REMOTE, name) and daemon.choose_remote(plays):
        source = config.remote.plays_from or config.source
        log.info("(%s says [remote] plays = %s.)", source, name)


def linked_guest(config: Config, wall: Callable[[], float] = time.time) -> LinkedGuest | None:
    """This grid's side of another grid's game, when ``[remote] join`` holds its link."""
    if config.remote.join is None:
        return None
    from controller.remote.link import parse_link

    return _guest(parse_link(config.remote.join), wall)


def _guest(link: Link, wall: Callable[[], float]) -> LinkedGuest:
    from controller.remote.guest import LinkedGuest

    return LinkedGuest(link, wall=wall)


def _page_link(config: Config, directory: Path) -> tuple[Home | None, Config]:
    """The link given on the page before this start (kept in ``directory``),
    unless the configuration or the command line names one, which is then
    the only one, unless the kept link is a later game of the same link
    (this grid followed the other grid's games on it): this grid as
    configured, and the configuration while the kept link holds
    (:func:`controller.daemon.config.page_joined`)."""
    kept = stored(directory)
    if kept is None:
        return None, config
    from controller.remote.link import LinkError, parse_link

    try:
        joined = page_joined(config, kept)
        named = config.remote.join
        if named is not None and not parse_link(kept).follows(parse_link(named)):
            forget(directory)
            return None, config
    except LinkError as error:
        log.warning("The link kept in %s is not one (%s); it is forgotten.", directory, error)
        forget(directory)
        return None, config
    if config.remote.join is not None:
        log.info("(This grid joins the other grid's game that its link led to since.)")
        return None, joined
    log.info("(This grid joins the other grid's game its page was given.)")
    return Home(table_of(config), config.game.rules, config.opponent.plays), joined


def remote_host(
    config: Config, wall: Callable[[], float] = time.time, directory: Path | None = None
) -> RemoteHost | None:
    """The daemon's side of a remote seat, when ``[remote]`` names a broker;
    links point at the page ``[remote] page`` names, else at popref's own
    (``[web]``), else at the browsers' broker's host. A finished game's last
    state is kept in ``directory``, the state directory."""
    settings = config.remote.settings
    if settings is None:
        return None
    from controller.remote.host import RemoteHost

    web = (config.web.host, config.web.port) if config.web.enabled else None
    return RemoteHost(settings, wall=wall, web=web, keep=directory)


def _configured(marker: Path, name: str) -> bool:
    """Whether the configuration names ``name`` afresh since the last start
    (``marker`` remembers it from now on)."""
    try:
        last = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        last = None
    if last == name:
        return False
    try:
        replace_file(marker, (name + "\n").encode(), 0o644)
    except OSError as error:
        # not worth refusing to start: it is applied again at the next start
        log.warning("%s: cannot be written (%s)", marker, error.strerror)
    return True


def build_backend(
    config: Config, clock: Clock, physics: Any | None = None
) -> tuple[Backend, SimulatedTable | None]:
    """The configured backend; for the ``sim`` backend, the whole simulated
    table too (its backend is the one returned)."""
    board = config.board
    if board.backend == "sim":
        from hardware.sim.backend import build_simulated

        sim = build_simulated(
            board.columns,
            board.rows,
            clock,
            link=config.sim_link,
            physics=physics,
            seed=config.seed,
            colour_sensing=board.colour_sensing,
            serial=config.serial,
        )
        return sim.backend, sim
    if board.backend == "gpio":
        from hardware.gpio_backend import gpio_backend

        return gpio_backend(config.pin_map(), board.rows, clock), None
    from hardware.serial_backend import SerialBackend

    assert config.serial is not None  # the config module requires [serial] for this backend
    return SerialBackend(config.serial, board.columns, board.rows), None
