"""The configuration: one TOML file, read with tomllib and checked here,
every table, before anything starts, so every mistake is one line that names
the file and the key. The hardware gets ready objects: a :class:`PinMap` for
``[gpio]``, a :class:`SerialConfig` for ``[serial]``.

>>> config = parse_config({"board": {"backend": "sim", "columns": 7}}, "example.toml")
>>> config.board.backend, config.game.rules, config.pin_map().slider
('sim', 'classic', 'GPIO2')
>>> try:
...     parse_config({"board": {"rows": 40}}, "example.toml")
... except ConfigError as error:
...     print(error)
example.toml: [board] rows: 40 is out of range; use 4 to 16
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlsplit

from controller.daemon.tomlerror import explain
from controller.i18n.text import LANGUAGES
from controller.remote.address import BROWSER, TERMINAL, BrokerAddress, broker_address
from controller.remote.settings import Account, RemoteSettings
from engine import RULES_NAMES
from engine.colour import Colour
from engine.rules import MIN_SIDE, REPETITION
from engine.solver.opponent import MAX_LEVEL, MIN_LEVEL
from hardware import wire
from hardware.configtable import ConfigTable
from hardware.errors import ConfigError
from hardware.pinmap import PinMap
from hardware.serial_config import SerialConfig

if TYPE_CHECKING:
    from controller.remote.link import Link

T = TypeVar("T")

DEFAULT_PATH = Path("/etc/popref/config.toml")
DEFAULT_STATE_DIR = Path("/var/lib/popref")
BACKENDS = ("sim", "gpio", "serial")
SIMULATED_PORT = "simulated"  # the simulated board's stand-in for [serial] port
BAUDS = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000, 2000000)
HOST_NAME = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?")
MAX_BYTES = 1 << 20  # a configuration is a few hundred bytes; refuse to read a huge file

_KNOWN: dict[str, tuple[str, ...]] = {
    "game": ("rules", "repetition", "both_lines", "simultaneous_ms"),
    "board": ("backend", "columns", "rows", "colour_sensing"),
    "daemon": ("state_dir",),
    "sim": ("seed", "link"),
    "web": ("enabled", "host", "port", "watch", "token", "max_clients", "pair_days", "hosts"),
    "opponent": ("plays", "level", "think_ms", "seed", "ponder"),
    "ui": ("language",),
    "remote": (
        "broker",
        "user",
        "password",
        "ca_file",
        "web_broker",
        "guest_user",
        "guest_password",
        "plays",
        "join",
        "page",
    ),
}
_BOTH_LINES: dict[str, Literal["popper", "opponent"]] = {"popper": "popper", "opponent": "opponent"}
SIM_LINKS: dict[str, Literal["gpio", "serial"]] = {"gpio": "gpio", "serial": "serial"}
_HARDWARE = ("gpio", "serial")  # [gpio] is resolved by PinMap.parse, through ConfigTable


@dataclass(frozen=True, slots=True)
class GameConfig:
    rules: str = "classic"
    repetition: int | None = None
    both_lines: Literal["popper", "opponent"] = "popper"
    simultaneous: float = 0.5


@dataclass(frozen=True, slots=True)
class BoardConfig:
    backend: str = "sim"
    columns: int = 7
    rows: int = 6
    colour_sensing: bool = False


@dataclass(frozen=True, slots=True)
class WebConfig:
    """The live web view (docs/web.md). ``enabled`` defaults to on for a
    real board (a Pi at the table) and off for the simulated grid; ``watch``
    lets anyone who reaches the page watch; ``token`` is a fixed control
    token for headless use (empty: none); a paired browser's token lasts
    ``pair_days``; ``hosts`` are names the board answers to besides its own
    (``controller.web.hosts``)."""

    enabled: bool = False
    host: str = "0.0.0.0"
    port: int = 8080
    watch: bool = True
    token: str = ""
    max_clients: int = 32
    pair_days: int = 30
    hosts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OpponentConfig:
    """The computer opponent: the colour it plays in a new game (``None``:
    nobody), its level (the engine's ``MIN_LEVEL`` to ``MAX_LEVEL``, full
    strength), its thinking budget in seconds, the seed its games' seeds are
    derived from, and whether full strength thinks on the other player's
    time too."""

    plays: Colour | None = None
    level: int = 5
    think: float = 1.0  # issue 12: full strength is perfect in Classic within 1 s on a Pi 4
    seed: int = 0
    ponder: bool = True


@dataclass(frozen=True, slots=True)
class UiConfig:
    """What the terminal simulator speaks: ``language`` (``"fi"``), or
    ``None`` to follow the locale (:func:`controller.i18n.text.from_locale`)."""

    language: str | None = None


@dataclass(frozen=True, slots=True)
class RemoteConfig:
    """A remote player through an MQTT broker (docs/remote.md): ``settings``
    (``None``: no broker, no remote seat) and the colour a friend is invited
    to play in each new game (``plays``)."""

    settings: RemoteSettings | None = None
    plays: Colour | None = None
    join: str | None = None  # another grid's invitation link: play its game here (checked)
    plays_from: str | None = None  # the option that set ``plays``, if not the file


@dataclass(frozen=True, slots=True)
class Config:
    """The whole configuration, checked. ``pins`` is the pin map of
    ``[gpio]`` (``None`` when the board is not wired to GPIO and the file
    has no ``[gpio]`` table: see :meth:`pin_map`); ``serial`` the ``[serial]`` settings
    (``None`` unless the sensor board, real or simulated, is used)."""

    source: str = "defaults"
    game: GameConfig = GameConfig()
    board: BoardConfig = BoardConfig()
    state_dir: Path = DEFAULT_STATE_DIR
    seed: int = 0
    sim_link: Literal["gpio", "serial"] = "gpio"  # what the simulated grid drives
    pins: PinMap | None = None
    serial: SerialConfig | None = None
    opponent: OpponentConfig = OpponentConfig()
    web: WebConfig = WebConfig()
    ui: UiConfig = UiConfig()
    remote: RemoteConfig = RemoteConfig()
    # what the file itself sets: its tables ("gpio") and keys ("board.backend"),
    # so that what is said about a default can say it is one; not part of the
    # configuration's value (a key written as its default is the same config)
    given: frozenset[str] = dataclasses.field(default=frozenset(), compare=False)

    def pin_map(self) -> PinMap:
        """The pin map, or a one-line error naming the file: for commands
        that need the GPIO wiring whatever the backend (check-wiring)."""
        if self.pins is not None:
            return self.pins
        return _named(self.source, lambda: PinMap.parse({}, self.board.columns))


def load_config(path: Path | None, env: Mapping[str, str] = os.environ) -> Config:
    """Read ``path``; with ``None``, read the default file if it exists, or use
    the defaults (the simulated grid) when it does not."""
    if path is None:
        if not DEFAULT_PATH.exists():
            return parse_config({}, "defaults", env)
        path = DEFAULT_PATH
    return parse_config(_read(path), str(path), env)


def _read(path: Path) -> dict[str, Any]:
    """The parsed document, or a :class:`ConfigError` naming ``path``."""
    try:
        text = _text(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; pass --config with an existing file") from None
    except PermissionError:
        raise ConfigError(
            f"{path}: permission denied; make it readable by the popref user"
        ) from None
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ConfigError(f"{path}: cannot be read: {reason}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {explain(text, error)}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None


def _text(path: Path) -> str:
    """The file's text; only a regular file is read (a FIFO or a device would
    hang start-up or never end), and it must be UTF-8 without a byte-order mark."""
    # O_NONBLOCK: opening a FIFO with no writer must not wait for one
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file; give the path of a TOML file")
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES // 1024} KiB; is it the configuration?")
    if data.startswith(b"\xef\xbb\xbf"):
        raise ValueError("starts with a byte-order mark; save it as UTF-8 without BOM")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ValueError(f"line {line} is not UTF-8 text; save the file as UTF-8") from None


def parse_config(
    data: Mapping[str, Any], source: str, env: Mapping[str, str] = os.environ
) -> Config:
    """Check a parsed TOML document; errors start with ``source``."""
    config = _named(source, lambda: _parse(data, env))
    return joining(dataclasses.replace(config, source=source, given=_given(data)), "[remote] join")


def joining(config: Config, joined_by: str) -> Config:
    """``config`` for a grid that joins another grid's game (``[remote]
    join``, which ``joined_by`` names: the key, or ``--join``): its game is
    the link's, so the rules and the house rules are the link's (the
    inviting grid chose them) and the colours are the people's at the two
    grids. A file that chooses any of them is refused, one line naming its
    key, rather than ignored: the two grids would play two different games."""
    join = config.remote.join
    if join is None:
        return config
    from controller.remote.link import parse_link

    link = parse_link(join)  # checked already
    if "game.rules" in config.given:
        raise ConfigError(
            f"{config.source}: [game] rules: this grid joins another grid's game ({joined_by}), "
            "whose link carries the rules: the inviting grid chooses them; remove rules"
        )
    for key in ("repetition", "both_lines"):
        if f"game.{key}" in config.given:
            raise ConfigError(
                f"{config.source}: [game] {key}: this grid joins another grid's game "
                f"({joined_by}), whose link carries its house rules; remove {key}"
            )
    if config.opponent.plays is not None:
        raise ConfigError(
            f"{config.source}: [opponent] plays: this grid joins another grid's game "
            f"({joined_by}): the person here plays {link.colour.value}, the other grid "
            f"{link.colour.other.value}, the computer neither; remove plays"
        )
    return dataclasses.replace(config, game=_linked_game(config.game, link))


def _linked_game(game: GameConfig, link: Link) -> GameConfig:
    """``game`` with the rules and house rules ``link`` names."""
    return dataclasses.replace(
        game, rules=link.rules, repetition=link.repetition, both_lines=link.both_lines
    )


def page_joined(config: Config, link: str) -> Config:
    """``config`` while a link given on the page holds (``link``, checked):
    as :func:`joining`, but what the file chose for this grid's own games
    (rules, house rules, the computer's colour) is set aside, not refused:
    it comes back once the link is spent (controller.daemon.joining)."""
    from controller.remote.link import parse_link

    game = _linked_game(config.game, parse_link(link))
    opponent = dataclasses.replace(config.opponent, plays=None)
    remote = dataclasses.replace(config.remote, join=link)
    return dataclasses.replace(config, game=game, opponent=opponent, remote=remote)


def _named(source: str, check: Callable[[], T]) -> T:
    try:
        return check()
    except ConfigError as error:
        raise ConfigError(f"{source}: {error}") from None


def _parse(data: Mapping[str, Any], env: Mapping[str, str]) -> Config:
    for name in data:
        if name not in _KNOWN and name not in _HARDWARE:
            names = ", ".join(f"[{k}]" for k in (*_KNOWN, *_HARDWARE))
            raise ConfigError(f"[{name}]: unknown table; the tables are {names}")
    tables = {name: ConfigTable(name, data.get(name, {})) for name in (*_KNOWN, *_HARDWARE)}
    for name, known in _KNOWN.items():
        tables[name].only(known)
    game = _game(tables["game"])
    board = _board(tables["board"])
    daemon, sim = tables["daemon"], tables["sim"]
    state_dir = _state_dir(daemon, env)
    seed = sim.integer("seed", 0, low=0, high=2**32 - 1)
    why = '"gpio" for pins, "serial" for the sensor board'
    link = SIM_LINKS[sim.choice("link", "gpio", tuple(SIM_LINKS), "a link", why)]
    if link == "serial" and board.colour_sensing:
        raise sim.error(
            "link",
            'the sensor board does not sense colour; use link = "gpio" '
            "or set [board] colour_sensing = false",
        )
    gpio = data.get("gpio")
    wired = board.backend == "gpio" or gpio is not None
    pins = PinMap.parse(tables["gpio"].table, board.columns) if wired else None
    # [serial] is checked whatever the backend, so a mistake in it does not
    # wait for the day the sensor board is plugged in; only the board's own
    # backend needs a port (the simulated board names its own)
    used = board.backend == "serial" or (board.backend == "sim" and link == "serial")
    default_port = None if board.backend == "serial" else SIMULATED_PORT
    checked = parse_serial(tables["serial"].table, default_port)
    serial = checked if used else None
    _senses_colour(tables["board"], board, pins)
    opponent = _opponent(tables["opponent"])
    web = _web(tables["web"], on_a_board=board.backend != "sim")
    ui = _ui(tables["ui"])
    remote = _remote(tables["remote"], opponent)
    return Config("", game, board, state_dir, seed, link, pins, serial, opponent, web, ui, remote)


def _given(data: Mapping[str, Any]) -> frozenset[str]:
    """The tables (``"gpio"``) and keys (``"board.backend"``) the file sets."""
    keys = {
        f"{name}.{key}"
        for name, table in data.items()
        if isinstance(table, Mapping)
        for key in table
    }
    return frozenset(data) | keys


def _state_dir(daemon: ConfigTable, env: Mapping[str, str]) -> Path:
    """``state_dir``, with ``~`` the home directory as in a shell (``$HOME``;
    ``~name``: that user's), not a directory named ``~`` below the current one.

    >>> _state_dir(ConfigTable("daemon", {"state_dir": "~/popref-state"}), {"HOME": "/home/pi"})
    PosixPath('/home/pi/popref-state')
    """
    text = daemon.string("state_dir", str(default_state_dir(env)))
    if not text.startswith("~"):
        return Path(text)
    home = env.get("HOME")
    if home and (text == "~" or text.startswith("~/")):
        return Path(home) / text[2:]
    try:
        return Path(text).expanduser()
    except RuntimeError:  # no such user, or no home known for ~ (HOME unset)
        raise daemon.error(
            "state_dir",
            f"cannot tell which home directory {text.split('/')[0]!r} is; "
            'write the whole path, e.g. "/home/pi/popref-state"',
        ) from None


def _game(game: ConfigTable) -> GameConfig:
    rules = game.choice("rules", "classic", RULES_NAMES, "a game")
    repetition = game.integer("repetition", 0, low=0, high=REPETITION[1])
    if repetition == 1:
        raise game.error("repetition", "1 would end every game at once; use 0 (off) or 2 or more")
    both_lines = _BOTH_LINES[game.choice("both_lines", "popper", tuple(_BOTH_LINES), "a side")]
    simultaneous = game.integer("simultaneous_ms", 500, low=0, high=5000) / 1000
    return GameConfig(rules, repetition or None, both_lines, simultaneous)


def _opponent(opponent: ConfigTable) -> OpponentConfig:
    plays = opponent.choice(
        "plays", "none", ("red", "yellow", "none"), "a colour", "none: two players"
    )
    return OpponentConfig(
        plays=None if plays == "none" else Colour(plays),
        level=opponent.integer("level", 5, low=MIN_LEVEL, high=MAX_LEVEL),
        think=opponent.integer("think_ms", 1000, low=100, high=600_000) / 1000,
        seed=opponent.integer("seed", 0, low=0, high=2**32 - 1),
        ponder=opponent.boolean("ponder", True),
    )


def _remote(remote: ConfigTable, opponent: OpponentConfig) -> RemoteConfig:
    plays = remote.choice(
        "plays", "none", ("red", "yellow", "none"), "a colour", "none: nobody is invited"
    )
    colour = None if plays == "none" else Colour(plays)
    if colour is not None and colour is opponent.plays:
        raise remote.error(
            "plays",
            f"the computer plays {plays} ([opponent] plays); invite a friend for the "
            'other colour, or set [opponent] plays = "none"',
        )
    join = _join(remote)
    if "broker" not in remote:
        for key in remote.table:
            if key == "join":
                continue
            if key != "plays" or colour is not None:
                raise remote.error(
                    key, 'a remote player needs a broker: set broker = "mqtt://HOST:1883" too'
                )
        return RemoteConfig(join=join)
    if join is not None:
        raise remote.error("join", "joins another grid's game; remove broker and the rest, or join")
    settings = RemoteSettings(
        broker=_address(remote, "broker", TERMINAL),
        account=_account(remote, "user", "password", remote.table.get("ca_file")),
        web_broker=_address(remote, "web_broker", BROWSER).url if "web_broker" in remote else None,
        guest=_account(remote, "guest_user", "guest_password", None),
        page=_page(remote),
    )
    if "ca_file" in remote and not settings.broker.tls:
        raise remote.error("ca_file", "is for an mqtts:// broker; remove it or use mqtts://")
    return RemoteConfig(settings, colour)


def _join(remote: ConfigTable) -> str | None:
    """The invitation link of ``join``, checked as ``popref play`` checks one."""
    if "join" not in remote:
        return None
    from controller.remote.link import LinkError, parse_link

    link = remote.string("join", "-")
    try:
        if parse_link(link).broker is None:
            raise LinkError("the link names no mqtt:// broker (m); ask for a new link")
    except LinkError as error:
        raise remote.error("join", str(error)) from None
    return link


def _address(remote: ConfigTable, key: str, schemes: tuple[str, ...]) -> BrokerAddress:
    text = remote.string(key, "")
    try:
        return broker_address(text, schemes)
    except ValueError as error:
        raise remote.error(key, str(error)) from None


def _account(remote: ConfigTable, user: str, password: str, ca_file: object) -> Account:
    if password in remote and user not in remote:
        raise remote.error(password, f"is for {user}; set {user} too, or remove it")
    name = remote.string(user, "-") if user in remote else None
    secret = remote.string(password, "-") if password in remote else None
    if ca_file is not None:
        ca_file = remote.string("ca_file", "-")
    return Account(name, secret, ca_file if isinstance(ca_file, str) else None)


def _page(remote: ConfigTable) -> str:
    if "page" not in remote:
        return ""
    page = remote.string("page", "-")
    parts = urlsplit(page)
    if parts.scheme not in ("http", "https") or not parts.netloc or "#" in page:
        raise remote.error(
            "page",
            f"{page[:80]!r} is not a page's address; write http:// or https:// and the "
            "address where the remote page is served, without #",
        )
    return page


def _ui(ui: ConfigTable) -> UiConfig:
    why = '"auto": the locale\'s'
    language = ui.choice("language", "auto", ("auto", *LANGUAGES), "a language", why)
    return UiConfig(None if language == "auto" else language)


def _board(board: ConfigTable) -> BoardConfig:
    return BoardConfig(
        backend=board.choice("backend", "sim", BACKENDS, "a backend"),
        # the engine's smallest board, and what the sensor board's wire format
        # carries: every backend keeps to it, so a grid can change boards
        columns=board.integer("columns", 7, low=MIN_SIDE, high=wire.MAX_COLUMNS),
        rows=board.integer("rows", 6, low=MIN_SIDE, high=wire.MAX_ROWS),
        colour_sensing=board.boolean("colour_sensing", False),
    )


def _senses_colour(table: ConfigTable, board: BoardConfig, pins: PinMap | None) -> None:
    """``colour_sensing`` needs something that senses colour: else every disc
    is of unknown colour and no move can ever be played. (The simulated grid
    senses colour on its own pins; ``[sim] link = "serial"`` is refused above.)"""
    if not board.colour_sensing:
        return
    if board.backend == "serial":
        raise table.error(
            "colour_sensing",
            'the sensor board (backend = "serial") does not sense colour; '
            "set colour_sensing = false",
        )
    if board.backend == "gpio" and pins is not None and not pins.colour:
        raise table.error(
            "colour_sensing",
            "[gpio] has no colour pins, so no disc's colour would ever be known; add "
            "colour = [one pin per column] to [gpio] (docs/wiring.md), "
            "or set colour_sensing = false",
        )


def _web(web: ConfigTable, *, on_a_board: bool) -> WebConfig:
    host = web.string("host", "0.0.0.0")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise web.error(
            "host",
            f'{host!r} is not an IP address; use "0.0.0.0" (every network), '
            '"127.0.0.1" (this machine only) or one address of this machine',
        ) from None
    token = web.get("token", "")
    if not isinstance(token, str) or (token and len(token) < 16):
        raise web.error(
            "token",
            "must be a string of 16 characters or more in quotes (or left out); "
            "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe())'",
        )
    if any(not (c.isascii() and c.isprintable()) or c.isspace() for c in token):
        raise web.error("token", "use printable ASCII characters without spaces")
    return WebConfig(
        enabled=web.boolean("enabled", on_a_board),
        host=host,
        port=web.integer("port", 8080, low=0, high=65535),
        watch=web.boolean("watch", True),
        token=token,
        max_clients=web.integer("max_clients", 32, low=1, high=1000),
        pair_days=web.integer("pair_days", 30, low=1, high=3650),
        hosts=_web_hosts(web),
    )


def _web_hosts(web: ConfigTable) -> tuple[str, ...]:
    """``[web] hosts``: names (or addresses) the board answers to besides its own."""
    names = web.get("hosts", [])
    if not isinstance(names, list) or not all(
        isinstance(name, str) and _host_name(name) for name in names
    ):
        raise web.error(
            "hosts",
            'must be a list of host names or addresses in quotes, e.g. ["popref.example.org"]',
        )
    return tuple(names)


def _host_name(name: str) -> bool:
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(name)
        return True
    return len(name) <= 253 and HOST_NAME.fullmatch(name.lower()) is not None


_SERIAL_SECONDS = ("timeout", "resend", "keepalive", "reconnect_min", "reconnect_max")
_SERIAL_KEYS = ("port", "baud", *_SERIAL_SECONDS)


def parse_serial(table: Mapping[str, object], default_port: str | None = None) -> SerialConfig:
    """Check the ``[serial]`` table; raise :class:`ConfigError` with one line.
    ``default_port``: the port when the table names none (``None``: it must).

    >>> parse_serial({"port": "/dev/ttyACM0", "timeout": 3}).timeout
    3.0
    """
    serial = ConfigTable("serial", table)
    serial.only(_SERIAL_KEYS)
    port = serial.get("port", default_port)
    if not isinstance(port, str) or not port.strip() or "\0" in port:
        raise serial.error(
            "port",
            'set it to the board\'s device or a pyserial URL, for example port = "/dev/ttyACM0"',
        )
    baud = serial.get("baud", 115200)
    if isinstance(baud, bool) or not isinstance(baud, int):
        raise serial.error(
            "baud", f"expected a whole number of bits per second such as 115200, got {baud!r}"
        )
    if baud not in BAUDS:
        rates = ", ".join(map(str, BAUDS))
        raise serial.error("baud", f"{baud} is not a standard rate; use one of {rates}")
    seconds = {key: serial.seconds(key, 1.0, high=3600) for key in _SERIAL_SECONDS if key in serial}
    config = SerialConfig(port=port.strip(), baud=baud, **seconds)
    if config.reconnect_min > config.reconnect_max:
        raise serial.error(
            "reconnect_min",
            f"{config.reconnect_min} is more than reconnect_max ({config.reconnect_max}); "
            "make it smaller",
        )
    if config.keepalive >= 2.0:
        raise serial.error(
            "keepalive",
            f"{config.keepalive} s is too slow; the board goes dark after 2 s without the "
            "host, so use less than 2",
        )
    return config


def default_state_dir(env: Mapping[str, str] = os.environ) -> Path:
    """systemd's ``$STATE_DIRECTORY``; else ``/var/lib/popref`` for root (a
    Pi service); else the user's own state directory (a laptop)."""
    # with several StateDirectory= entries systemd joins them with colons; ours is first
    systemd = env.get("STATE_DIRECTORY", "").split(":")[0]
    if systemd:
        return Path(systemd)
    if os.geteuid() == 0:
        return DEFAULT_STATE_DIR
    base = env.get("XDG_STATE_HOME") or str(
        Path(env.get("HOME", "~")).expanduser() / ".local" / "state"
    )
    return Path(base) / "popref"
