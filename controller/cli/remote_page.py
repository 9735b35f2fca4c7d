"""``popref remote-page DIR``: write the remote page (docs/remote.md) into
``DIR`` for a web server on the internet (or a broker's own static server,
Mosquitto's ``http_dir``, where its build allows): the page as
``index.html`` with its policy in a ``<meta>`` element, its scripts and
styles, the vendored libraries with their licences, its sentences in every
language and the lamp table. The page then reaches the broker for browsers
of ``[remote] web_broker`` (or ``--web-broker``), that one origin.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.cli.argtypes import config_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", type=Path, help="where to write the page")
    parser.add_argument(
        "--config",
        type=config_file,
        metavar="FILE",
        help="TOML configuration (for [remote] web_broker)",
    )
    parser.add_argument(
        "--web-broker",
        metavar="URL",
        help="the broker for browsers, wss://HOST:PORT (default: [remote] web_broker)",
    )


def run(args: argparse.Namespace) -> int:
    from controller.daemon.config import load_config
    from controller.remote.address import BROWSER, broker_address
    from controller.web.api import RULES
    from controller.web.remote_page import write_page
    from hardware.errors import ConfigError

    web_broker = args.web_broker
    if not web_broker:
        try:
            settings = load_config(args.config).remote.settings
        except ConfigError as error:
            return _fail(str(error))
        web_broker = settings.web_broker if settings is not None else None
    if not web_broker:
        return _fail(
            "no broker for browsers: set [remote] web_broker in the configuration, or give "
            "--web-broker wss://HOST:PORT"
        )
    try:
        address = broker_address(web_broker, BROWSER)
    except ValueError as error:
        return _fail(f"--web-broker: {error}")
    if not address.tls:  # written all the same: it serves a browser on the broker's own host
        print(
            f"popref remote-page: note: {web_broker} has no TLS, so the broker serves the page "
            "over plain http, where a phone's browser cannot sign moves (no secure context); "
            "use wss:// for phones, or the Pi's own /remote on the home network",
            file=sys.stderr,
        )
    try:
        written = write_page(args.directory, web_broker, RULES)
    except OSError as error:
        return _fail(f"{args.directory}: cannot write the page there: {error.strerror or error}")
    print(
        f"Wrote {len(written)} files into {args.directory}; serve them over https and set "
        '[remote] page to their address (docs/remote.md, "For the internet").'
    )
    return 0


def _fail(reason: str) -> int:
    print(f"popref remote-page: {reason}", file=sys.stderr)
    return 2
