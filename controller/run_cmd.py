"""``popref run``: the daemon, as systemd starts it on the Pi."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

HELP = "run the referee daemon on the configured board"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from controller.argtypes import rules_name
    from engine import RULES_NAMES

    parser.add_argument(
        "--config", type=Path, help="TOML configuration (default /etc/popref/config.toml)"
    )
    parser.add_argument(
        "--rules",
        type=rules_name,
        metavar="NAME",
        help=f"the rules of a new game: {', '.join(RULES_NAMES)}",
    )
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
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()
        daemon.stop_waiting()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        daemon.open()
        daemon.run(stop)
    except HardwareError as error:
        print(f"popref run: {error}", file=sys.stderr)
        return 2
    finally:
        daemon.close()
    return 0
