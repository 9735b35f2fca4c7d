"""``popref simulate``: the daemon on a simulated grid, by hand or by script."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from controller.cli.argtypes import add_new_game_rules, config_file, lenient_stdin
from controller.cli.play import LINK_VARIABLE
from controller.daemon.assembly import StartupError
from controller.daemon.config import Config, joining, load_config, parse_config
from controller.daemon.logs import setup_logging
from controller.i18n.text import N_, _t, from_locale
from controller.referee.computer_seat import MAX_LEVEL, MIN_LEVEL
from controller.simulator.script import Action, ScriptError, excerpt, read_script
from controller.simulator.simulation import Simulation
from controller.store.places import simulate_state_dir
from engine.colour import Colour
from hardware.errors import ConfigError
from hardware.sim.grid import SimGridError

if TYPE_CHECKING:
    from controller.web.server import WebServer


# after the link, where no page a browser opens could play it
TERMINAL_ONLY = N_(
    "Only popref play can open this link. For a browser, give the broker's WebSocket "
    "listener too (--web-broker ws://HOST:PORT) and serve the page (--web HOST:PORT); "
    "see docs/remote.md."
)
# when --opponent and --level apply (README.md says the same)
FROM_WHEN = "from this game if it has not begun, else from the next"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--script", type=Path, help="a file of actions ('-' for standard input)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per action")
    add_new_game_rules(parser)
    parser.add_argument("--state-dir", type=Path, help="keep the game here between runs")
    parser.add_argument(
        "--config", type=config_file, help="TOML configuration (board size, house rules)"
    )
    parser.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="serve the live board on this address (e.g. 127.0.0.1:8080), as [web] does",
    )
    parser.add_argument(
        "--opponent",
        choices=("red", "yellow", "none"),
        help=f"the colour the computer plays (none: two players), {FROM_WHEN}",
    )
    parser.add_argument(
        "--level",
        type=int,
        choices=range(MIN_LEVEL, MAX_LEVEL + 1),
        metavar="N",
        help=f"the computer's level, {MIN_LEVEL} (a child can beat it) to {MAX_LEVEL} "
        "(full strength), likewise",
    )
    parser.add_argument(
        "--remote",
        choices=("red", "yellow"),
        help="invite a friend to play this colour through a broker (prints the link)",
    )
    parser.add_argument(
        "--broker",
        metavar="URL",
        help="the MQTT broker for --remote, e.g. mqtt://127.0.0.1:1883 (as [remote] broker)",
    )
    parser.add_argument(
        "--web-broker",
        metavar="URL",
        help="that broker's WebSocket listener, e.g. ws://127.0.0.1:9001, for the friend's "
        "browser (as [remote] web_broker; with --web the link opens popref's page)",
    )
    parser.add_argument(
        "--join",
        metavar="LINK",
        nargs="?",
        const="",
        help="play another grid's game on this one: its invitation link (as [remote] join); "
        f"without LINK, ${LINK_VARIABLE}, which other users of this machine cannot read as "
        "they can a command line",
    )


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config) if args.config else parse_config({}, "defaults")
        if config.board.backend != "sim":
            config = _as_simulated(config)
        if args.web is not None:
            config = _with_web(config, args.web)
        _invites_or_joins(config, args)
        config = _with_web_broker(_with_remote(config, args), args)
        config = _with_join(config, args)
        # standard input is acted on line by line as it arrives (live.py)
        filed = args.script is not None and str(args.script) != "-"
        actions = _read_script(args.script, config) if filed else None
    except (ConfigError, ScriptError) as error:
        print(f"popref simulate: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="popref-sim-") as scratch:
        # by hand, the game is kept for next time; a script starts afresh
        state_dir = args.state_dir or (
            Path(scratch) if args.script is not None else simulate_state_dir()
        )
        try:
            return _simulate(config, state_dir, args, actions)
        except StartupError as error:
            print(f"popref simulate: {error}", file=sys.stderr)
            return 2


def _as_simulated(config: Config) -> Config:
    """The same table on the simulated grid (simulate never drives hardware)."""
    return replace(config, board=replace(config.board, backend="sim"))


def _with_web(config: Config, address: str) -> Config:
    """``config`` serving the page on ``address`` (``HOST:PORT``)."""
    from dataclasses import replace

    host, colon, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not port.isdigit() or not host:
        raise ConfigError(f"--web {address}: write HOST:PORT, e.g. 127.0.0.1:8080")
    table = {"enabled": True, "host": host, "port": int(port)}
    checked = parse_config({"board": {"backend": "sim"}, "web": table}, "--web").web
    return replace(
        config, web=replace(config.web, enabled=True, host=checked.host, port=checked.port)
    )


def _with_remote(config: Config, args: argparse.Namespace) -> Config:
    """``config`` with ``--broker`` as ``[remote] broker``, ``--remote`` as its ``plays``."""
    table: dict[str, Any] = {}
    if args.broker is not None:
        table["broker"] = args.broker
    elif args.remote is not None and config.remote.settings is None:
        raise ConfigError(
            "--remote: a remote player needs a broker; pass --broker mqtt://HOST:PORT"
        )
    if args.remote is not None:
        table["plays"] = args.remote
    if not table:
        return config
    opponent = {"plays": args.opponent} if args.opponent in ("red", "yellow") else {}
    plays_from = "--remote" if args.remote is not None else config.remote.plays_from
    if args.broker is None:
        plays = Colour(args.remote)
        return replace(config, remote=replace(config.remote, plays=plays, plays_from=plays_from))
    checked = parse_config({"remote": table, "opponent": opponent}, "--remote/--broker").remote
    settings = config.remote.settings
    if settings is not None and checked.settings is not None:
        checked = replace(checked, settings=replace(settings, broker=checked.settings.broker))
    return replace(config, remote=replace(checked, plays_from=plays_from))


def _with_web_broker(config: Config, args: argparse.Namespace) -> Config:
    """``config`` with ``--web-broker`` as ``[remote] web_broker``."""
    if args.web_broker is None:
        return config
    settings = config.remote.settings
    if settings is None:
        raise ConfigError(
            "--web-broker: it is the browsers' way to a broker; pass --broker mqtt://HOST:PORT too"
        )
    from controller.remote.address import BROWSER, broker_address

    try:
        web_broker = broker_address(args.web_broker, BROWSER).url
    except ValueError as error:
        raise ConfigError(f"--web-broker: {error}") from None
    settings = replace(settings, web_broker=web_broker)
    return replace(config, remote=replace(config.remote, settings=settings))


def _invites_or_joins(config: Config, args: argparse.Namespace) -> None:
    """Refuse an inviting grid's options on a joining one, naming all those
    given and what to leave out: one grid either invites or joins, and a
    joining grid's broker is the one its link names."""
    if args.join is not None:
        joins = "--join"
    elif config.remote.join is not None:
        joins = f"[remote] join in {config.source}"
    else:
        return
    options = (
        ("--remote", args.remote),
        ("--broker", args.broker),
        ("--web-broker", args.web_broker),
    )
    inviting = [name for name, value in options if value is not None]
    if not inviting:
        return
    given, leave = _listed([*inviting, joins]), _listed(inviting)
    if "--remote" in inviting:
        raise ConfigError(
            f"{given}: one grid either invites a friend or joins another grid's game, not "
            f"both; to join, leave out {leave}; to invite, leave out {joins}"
        )
    raise ConfigError(f"{given}: a joining grid uses the broker its link names; leave out {leave}")


def _listed(names: list[str]) -> str:
    """``names`` as a sentence lists them.

    >>> _listed(["--remote"]), _listed(["--remote", "--broker", "--join"])
    ('--remote', '--remote, --broker and --join')
    """
    return " and ".join(filter(None, [", ".join(names[:-1]), names[-1]]))


def _with_join(config: Config, args: argparse.Namespace) -> Config:
    """``config`` with ``--join`` as ``[remote] join``: the game is the
    link's, its rules too (:func:`controller.daemon.config.joining`)."""
    if args.join is not None:
        link, source = args.join, "--join"
        if not link:
            link, source = os.environ.get(LINK_VARIABLE, ""), f"--join (${LINK_VARIABLE})"
            if not link:
                raise ConfigError(
                    f"--join: give the invitation link, or set {LINK_VARIABLE} to it and "
                    "pass --join alone"
                )
        if config.remote.settings is not None:  # the file's own broker, to invite through
            print(
                f"popref simulate: [remote] in {config.source} is not used: this grid joins "
                "(--join) through the broker its link names.",
                file=sys.stderr,
            )
        checked = parse_config({"remote": {"join": link}}, source).remote
        config = joining(replace(config, remote=replace(checked, settings=None)), "--join")
        joined_by = "--join"
    elif config.remote.join is not None:
        joined_by = f"[remote] join in {config.source}"
    else:
        return config
    if args.rules is not None:
        raise ConfigError(
            f"--rules: this grid joins another grid's game ({joined_by}), whose link carries "
            "the rules: the inviting grid chooses them; leave out --rules"
        )
    if args.opponent in ("red", "yellow"):
        from controller.remote.link import parse_link

        mine = parse_link(config.remote.join or "").colour
        raise ConfigError(
            f"--opponent {args.opponent}: this grid joins another grid's game ({joined_by}): "
            f"the person here plays {mine.value}, the other grid {mine.other.value}, "
            "the computer neither; leave out --opponent"
        )
    return config


def _read_script(path: Path, config: Config) -> list[Action]:
    return read_script(path, config.board.columns)


def _simulate(
    config: Config, state_dir: Path, args: argparse.Namespace, actions: list[Action] | None
) -> int:
    language = _language(config)
    if not args.json:
        setup_logging(language=language)
    remote = Colour(args.remote) if args.remote else None
    simulation = Simulation(
        config, state_dir, args.rules, opponent=args.opponent, level=args.level, remote=remote
    )
    web = None
    try:
        if config.web.enabled:
            web = _serve(simulation, config, args.web)
            if web is None:
                return 2
        _invitations(simulation, args.json, language)
        if args.script is None:
            from controller.simulator.terminal import interact

            one_screen = sys.stdout.isatty() and sys.stderr.isatty()
            return interact(
                simulation, lenient_stdin(), sys.stdout, language, one_screen=one_screen
            )
        if not _play(simulation, actions, args, language):
            return 2
        if web is not None:
            _linger(web.url)
    finally:
        if web is not None:
            web.close()
        simulation.close()
    return 0


def _play(
    simulation: Simulation, actions: list[Action] | None, args: argparse.Namespace, language: str
) -> bool:
    """The script's actions (``None``: standard input's, as they arrive),
    each reported; False after a bad line or action's one line of error."""
    if actions is None:
        from controller.simulator.live import InputLines, LiveScript, standard_input

        def changed() -> None:
            _report(simulation, None, args.json, sys.stdout, language)

        script: Iterator[Action] = LiveScript(
            simulation, InputLines(standard_input()), changed
        ).actions()
    else:
        script = iter(actions)
    try:
        for action in script:
            try:
                simulation.act(action)
            except SimGridError as error:
                where = f"{args.script}: line {action.line} ({excerpt(action.text)})"
                print(f"popref simulate: {where}: {error}", file=sys.stderr)
                return False
            _report(simulation, action.text, args.json, sys.stdout, language)
    except ScriptError as error:
        print(f"popref simulate: {error}", file=sys.stderr)
        return False
    return True


def _invitations(simulation: Simulation, as_json: bool, language: str) -> None:
    """Print each invitation's link on a line of its own, with its QR code
    as text (on standard error with ``--json``, which keeps standard output
    for the link and the JSON lines); a link no browser can open (no broker
    address for browsers) gets a sentence saying so instead of the code a
    phone would scan."""
    from controller.remote.qr import qr_text

    host = simulation.daemon.remote
    if host is None:
        return
    for_browsers = host.settings.web_broker is not None

    def show(link: str) -> None:
        print(link, flush=True)
        aside = qr_text(link) if for_browsers else _t(TERMINAL_ONLY).render(language)
        print(aside, file=sys.stderr if as_json else sys.stdout, flush=True)

    link = host.current_link()  # made as the simulation began, or resumed
    if link is not None:
        show(link)
    host.on_invited = show


def _serve(simulation: Simulation, config: Config, typed: str | None) -> WebServer | None:
    """The page for ``simulation``; ``None`` after saying why it cannot listen.
    ``typed`` is ``--web``'s address, if the page was asked for with it: then
    the advice is about ``--web``, not the configuration's ``[web]``."""
    from controller.web.server import WebError, serve_daemon

    try:
        web = serve_daemon(simulation.daemon, config.web, simulation.clock, simulation)
    except WebError as error:
        if typed is None:
            said = str(error)
        else:
            said = (
                f"--web {typed}: cannot listen on {error.host} port {error.port}: "
                f"{error.reason}; choose another port"
            )
        print(f"popref simulate: {said}", file=sys.stderr)
        return None
    return web  # its address: in the server's log, or after a script (_linger)


def _linger(url: str, nap: Callable[[float], None] = time.sleep) -> None:
    """After a script, keep the page up until Ctrl-C, to look at the end."""
    # Ctrl-C may come as soon as the line is out: already inside the suppression
    with contextlib.suppress(KeyboardInterrupt):
        print(
            f"popref simulate: the script is done; {url} stays up until Ctrl-C",
            file=sys.stderr,
            flush=True,
        )
        # short sleeps, not signal.pause(): a Ctrl-C that lands after the
        # interpreter's last check and before pause(2) begins would leave
        # it waiting for another signal (seen on a loaded machine)
        while True:
            nap(0.2)


def _language(config: Config) -> str:
    """The terminal's language: ``[ui] language``, else the locale's."""
    return config.ui.language or from_locale(os.environ)


def _report(
    simulation: Simulation, action: str | None, as_json: bool, out: TextIO, language: str
) -> None:
    """The state after ``action``, or (``None``) after a change nobody here made."""
    from controller.simulator.terminal import render

    if as_json:
        # the contract of --json (docs/web.md): its sentences are English
        out.write(json.dumps(simulation.state(action)) + "\n")
    elif action is None:
        out.write(f"{render(simulation, language)}\n")
    else:
        out.write(f"> {action}\n{render(simulation, language)}\n")
    out.flush()
