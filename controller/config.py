"""The daemon's configuration: one TOML file, read with tomllib and checked
before anything starts, so every mistake is one line that names the key.

>>> config = parse_config({"board": {"backend": "sim", "columns": 7}}, "example.toml")
>>> config.board.backend, config.game.rules
('sim', 'classic')
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine import RULES_NAMES
from hardware.errors import ConfigError

DEFAULT_PATH = Path("/etc/popref/config.toml")
DEFAULT_STATE_DIR = Path("/var/lib/popref")
BACKENDS = ("sim", "gpio", "serial")

_KNOWN: dict[str, tuple[str, ...]] = {
    "game": ("rules", "repetition", "both_lines", "simultaneous_ms"),
    "board": ("backend", "columns", "rows", "colour_sensing"),
    "daemon": ("state_dir",),
    "sim": ("seed", "link"),
    "web": ("enabled", "host", "port", "watch", "token", "max_clients", "pair_days"),
}
_BOTH_LINES: dict[str, Literal["popper", "opponent"]] = {"popper": "popper", "opponent": "opponent"}
SIM_LINKS: dict[str, Literal["gpio", "serial"]] = {"gpio": "gpio", "serial": "serial"}
_PASSED_ON = ("gpio", "serial")  # checked by the hardware layer's own parsers


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
    ``pair_days``."""

    enabled: bool = False
    host: str = "0.0.0.0"
    port: int = 8080
    watch: bool = True
    token: str = ""
    max_clients: int = 32
    pair_days: int = 30


@dataclass(frozen=True, slots=True)
class Config:
    """The whole configuration; ``gpio`` and ``serial`` are the raw tables,
    validated by the backend that uses them."""

    source: str = "defaults"
    game: GameConfig = GameConfig()
    board: BoardConfig = BoardConfig()
    state_dir: Path = DEFAULT_STATE_DIR
    seed: int = 0
    sim_link: Literal["gpio", "serial"] = "gpio"  # what the simulated grid drives
    gpio: Mapping[str, Any] = field(default_factory=dict)
    serial: Mapping[str, Any] = field(default_factory=dict)
    web: WebConfig = WebConfig()


def load_config(path: Path | None, env: Mapping[str, str] = os.environ) -> Config:
    """Read ``path``; with ``None``, read the default file if it exists, or use
    the defaults (the simulated grid) when it does not."""
    if path is None:
        if not DEFAULT_PATH.exists():
            return parse_config({}, "defaults", env)
        path = DEFAULT_PATH
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; pass --config with an existing file") from None
    except PermissionError:
        raise ConfigError(
            f"{path}: permission denied; make it readable by the popref user"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read: {error.strerror}") from None
    return parse_config(data, str(path), env)


def parse_config(
    data: Mapping[str, Any], source: str, env: Mapping[str, str] = os.environ
) -> Config:
    """Check a parsed TOML document; errors start with ``source``."""
    try:
        return _parse(data, source, env)
    except ConfigError as error:
        raise ConfigError(f"{source}: {error}") from None


def _parse(data: Mapping[str, Any], source: str, env: Mapping[str, str]) -> Config:
    for name, value in data.items():
        if name not in _KNOWN and name not in _PASSED_ON:
            known = ", ".join(f"[{k}]" for k in (*_KNOWN, *_PASSED_ON))
            raise ConfigError(f"[{name}]: unknown table; the tables are {known}")
        if not isinstance(value, dict):
            raise ConfigError(f"{name}: must be a table, written [{name}]")
        if name in _KNOWN:
            for key in value:
                if key not in _KNOWN[name]:
                    raise ConfigError(
                        f"[{name}] {key}: unknown key; known keys are {', '.join(_KNOWN[name])}"
                    )
    game = data.get("game", {})
    board = data.get("board", {})
    daemon = data.get("daemon", {})
    sim = data.get("sim", {})

    rules = _string(game, "game", "rules", "classic")
    if rules not in RULES_NAMES:
        raise ConfigError(
            f"[game] rules: {rules!r} is not a game; use one of {', '.join(RULES_NAMES)}"
        )
    repetition = _integer(game, "game", "repetition", 0, low=0, high=100)
    if repetition == 1:
        raise ConfigError(
            "[game] repetition: 1 would end every game at once; use 0 (off) or 2 or more"
        )
    both_name = _string(game, "game", "both_lines", "popper")
    if both_name not in _BOTH_LINES:
        raise ConfigError(f'[game] both_lines: {both_name!r}; use "popper" or "opponent"')
    both_lines = _BOTH_LINES[both_name]
    simultaneous = _integer(game, "game", "simultaneous_ms", 500, low=0, high=5000) / 1000

    backend = _string(board, "board", "backend", "sim")
    if backend not in BACKENDS:
        raise ConfigError(f"[board] backend: {backend!r}; use one of {', '.join(BACKENDS)}")
    columns = _integer(board, "board", "columns", 7, low=4, high=16)
    rows = _integer(board, "board", "rows", 6, low=4, high=12)
    colour_sensing = _boolean(board, "board", "colour_sensing", False)

    state_default = str(default_state_dir(env))
    state_dir = Path(_string(daemon, "daemon", "state_dir", state_default))
    seed = _integer(sim, "sim", "seed", 0, low=0, high=2**32 - 1)
    link_name = _string(sim, "sim", "link", "gpio")
    if link_name not in SIM_LINKS:
        raise ConfigError(
            f'[sim] link: {link_name!r}; use "gpio" (pins) or "serial" (sensor board)'
        )
    if link_name == "serial" and colour_sensing:
        raise ConfigError(
            '[sim] link: the sensor board does not sense colour; use link = "gpio" '
            "or set [board] colour_sensing = false"
        )
    web = _web(data.get("web", {}), on_a_board=backend != "sim")
    return Config(
        source=source,
        game=GameConfig(rules, repetition or None, both_lines, simultaneous),
        board=BoardConfig(backend, columns, rows, colour_sensing),
        state_dir=state_dir,
        seed=seed,
        sim_link=SIM_LINKS[link_name],
        gpio=data.get("gpio", {}),
        serial=data.get("serial", {}),
        web=web,
    )


def _web(table: Mapping[str, Any], *, on_a_board: bool) -> WebConfig:
    enabled = _boolean(table, "web", "enabled", on_a_board)
    host = _string(table, "web", "host", "0.0.0.0")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ConfigError(
            f'[web] host: {host!r} is not an IP address; use "0.0.0.0" (every network), '
            '"127.0.0.1" (this machine only) or one address of this machine'
        ) from None
    port = _integer(table, "web", "port", 8080, low=0, high=65535)
    watch = _boolean(table, "web", "watch", True)
    token = table.get("token", "")
    if not isinstance(token, str) or (token and len(token) < 16):
        raise ConfigError(
            "[web] token: must be a string of 16 characters or more in quotes (or left out); "
            "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe())'"
        )
    if any(not (c.isascii() and c.isprintable()) or c.isspace() for c in token):
        raise ConfigError("[web] token: use printable ASCII characters without spaces")
    max_clients = _integer(table, "web", "max_clients", 32, low=1, high=1000)
    pair_days = _integer(table, "web", "pair_days", 30, low=1, high=3650)
    return WebConfig(enabled, host, port, watch, token, max_clients, pair_days)


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


def _string(table: Mapping[str, Any], name: str, key: str, default: str) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"[{name}] {key}: must be a non-empty string in quotes, not {value!r}")
    return value


def _integer(
    table: Mapping[str, Any], name: str, key: str, default: int, *, low: int, high: int
) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"[{name}] {key}: must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(f"[{name}] {key}: {value} is out of range; use {low} to {high}")
    return value


def _boolean(table: Mapping[str, Any], name: str, key: str, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"[{name}] {key}: must be true or false, not {value!r}")
    return value
