"""``popref run``: the daemon, as systemd starts it on the Pi."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from engine import RULES_NAMES

    parser.add_argument(
        "--config", type=Path, help="TOML configuration (default /etc/popref/config.toml)"
    )
    parser.add_argument("--rules", choices=RULES_NAMES, help="the rules of a new game")
    parser.add_argument("--state-dir", type=Path, help="where the journal and finished games live")


def run(args: argparse.Namespace) -> int:
    from controller.assembly import StartupError, assemble
    from controller.logs import setup_logging
    from hardware.clock import monotonic
    from hardware.errors import HardwareError

    setup_logging()
    try:
        assembled = assemble(args.config, args.rules, args.state_dir, monotonic)
    except StartupError as error:
        print(f"popref run: {error}", file=sys.stderr)
        return 2
    daemon = assembled.daemon
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
