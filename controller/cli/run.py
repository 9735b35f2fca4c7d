"""``popref run``: the daemon, as systemd starts it on the Pi."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from controller.daemon.config import Config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from controller.cli.argtypes import add_new_game_rules, config_file

    parser.add_argument(
        "--config", type=config_file, help="TOML configuration (default /etc/popref/config.toml)"
    )
    add_new_game_rules(parser)
    parser.add_argument("--state-dir", type=Path, help="where the journal and finished games live")


def run(args: argparse.Namespace) -> int:
    from controller.daemon.assembly import StartupError, assemble
    from controller.daemon.config import load_config
    from controller.daemon.logs import setup_logging
    from hardware.clock import monotonic
    from hardware.errors import ConfigError, HardwareError

    setup_logging()
    try:
        try:
            config = load_config(args.config)
        except (ConfigError, HardwareError) as error:
            raise StartupError(str(error)) from None
        if args.rules is not None and config.remote.join is not None:
            raise StartupError(
                f"--rules: this grid joins another grid's game ([remote] join in "
                f"{config.source}), whose link carries the rules: the inviting grid chooses "
                "them; leave out --rules"
            )
        assembled = assemble(args.config, args.rules, args.state_dir, monotonic, config=config)
    except StartupError as error:
        print(f"popref run: {error}", file=sys.stderr)
        return 2
    daemon = assembled.daemon
    logging.getLogger("popref").info(
        "%s", started(assembled.config, args.state_dir or assembled.config.state_dir)
    )
    web = None
    try:
        if assembled.config.web.enabled:
            from controller.web.server import WebError, serve_daemon

            try:
                web = serve_daemon(daemon, assembled.config.web, monotonic)
            except WebError as error:
                print(f"popref run: {assembled.config.source}: {error}", file=sys.stderr)
                return 2
        with daemon.stop_on(signal.SIGTERM, signal.SIGINT):
            daemon.open()
            daemon.run()
    except HardwareError as error:
        print(f"popref run: {error}", file=sys.stderr)
        return 2
    finally:
        if web is not None:
            web.close()
        daemon.close()
    return 0


def started(config: Config, state_dir: Path) -> str:
    """The first line ``popref run`` logs: which board, from which
    configuration, and where the game is kept.

    >>> from controller.daemon.config import parse_config
    >>> print(started(parse_config({}, "defaults"), Path("/tmp/state")))
    Refereeing the simulated grid: there is no /etc/popref/config.toml (see the README's \
Configuration for a real board). The game is kept in /tmp/state. To play by hand: popref simulate.
    """
    from controller.daemon.config import DEFAULT_PATH

    kept = f"The game is kept in {state_dir}."
    backend = config.board.backend
    if config.source == "defaults":
        return (
            f"Refereeing the simulated grid: there is no {DEFAULT_PATH} (see the README's "
            f"Configuration for a real board). {kept} To play by hand: popref simulate."
        )
    if backend == "sim" and "board.backend" not in config.given:
        return f"Refereeing the simulated grid: {config.source} {_no_backend(config)}. {kept}"
    if backend == "sim":
        board = f'the simulated grid ([board] backend = "sim" in {config.source})'
    elif backend == "serial":
        port = config.serial.port if config.serial is not None else "?"
        board = f"the sensor board on {port} ({config.source})"
        host = urlsplit(port).hostname if "://" in port else None
        if host not in (None, "localhost", "127.0.0.1", "::1"):
            # the unit's IPAddressDeny= would block it without a word
            kept += (
                f" Under systemd, allow {host} with IPAddressAllow= in a drop-in "
                '(docs/install-pi.md, "The page and the network").'
            )
    else:
        board = f"the board's GPIO pins ({config.source})"
    return f"Refereeing {board}. {kept}"


def _no_backend(config: Config) -> str:
    """What a file without ``[board] backend`` means: the simulated grid, and
    a ``[gpio]`` or ``[serial]`` table in it (not used by the simulated grid)
    is almost surely a forgotten backend.

    >>> from controller.daemon.config import parse_config
    >>> print(_no_backend(parse_config({"gpio": {}}, "c")))
    sets no [board] backend, so its [gpio] table is not used; for a grid wired to \
this Pi's pins, set [board] backend = "gpio"
    """
    # the simulated sensor board ([sim] link = "serial") does use [serial]'s timings
    unused = [
        name
        for name in ("gpio", "serial")
        if name in config.given and not (name == "serial" and config.serial is not None)
    ]
    if not unused:
        return (
            'sets no [board] backend; for a real board set it: "gpio" (wired to this '
            'Pi\'s pins) or "serial" (the sensor board)'
        )
    tables = " and ".join(f"[{name}]" for name in unused)
    tables += " table is" if len(unused) == 1 else " tables are"
    if unused == ["gpio"]:
        choose = 'for a grid wired to this Pi\'s pins, set [board] backend = "gpio"'
    elif unused == ["serial"]:
        choose = 'for the sensor board, set [board] backend = "serial"'
    else:
        choose = (
            'for the real board, set [board] backend = "gpio" (wired to this Pi\'s pins) '
            'or "serial" (the sensor board)'
        )
    return f"sets no [board] backend, so its {tables} not used; {choose}"
