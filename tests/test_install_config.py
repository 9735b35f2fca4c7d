"""The commented configuration ``popref install`` writes: as written it is the
real board on the default pin map with the page on; every key is in it, and
every value it shows is the default that ``controller/daemon/config.py`` applies."""

from __future__ import annotations

import re
import tomllib

from controller.cli.installer import system_file
from controller.daemon.config import _KNOWN, parse_config, parse_serial
from hardware.pinmap import KNOWN_KEYS, PinMap
from hardware.serial_config import SerialConfig

TEMPLATE = system_file("config.toml")
ENV = {"STATE_DIRECTORY": "/var/lib/popref"}  # as systemd sets it for the service
# "# key = value   # a comment": a setting shown with its default
SHOWN = re.compile(r"^# (?P<setting>[a-z_]+ = .*?)(\s+#.*)?$")


def uncommented(text: str) -> str:
    return "\n".join(
        match["setting"] if (match := SHOWN.match(line)) else line for line in text.splitlines()
    )


def test_as_written_it_is_the_real_board_on_the_default_pins_with_the_page() -> None:
    config = parse_config(tomllib.loads(TEMPLATE), "config.toml", ENV)
    assert config.board.backend == "gpio"
    assert config.pin_map() == PinMap.default()
    assert config.web.enabled and config.web.port == 8080


def test_every_value_it_shows_is_the_default() -> None:
    document = tomllib.loads(uncommented(TEMPLATE))
    assert parse_config(document, "config.toml", ENV) == parse_config(
        tomllib.loads(TEMPLATE), "config.toml", ENV
    )
    # [serial] is read only for the sensor board; its port has no default
    serial = document["serial"]
    assert parse_serial(serial) == SerialConfig(serial["port"])


def test_every_key_is_in_it() -> None:
    serial_keys = ("port", "baud", "timeout", "resend", "keepalive", "reconnect_min")
    keys = {*(k for known in _KNOWN.values() for k in known), *KNOWN_KEYS, *serial_keys}
    missing = sorted(k for k in keys if not re.search(rf"\b{k}\b", TEMPLATE))
    assert missing == []
    tables = set(re.findall(r"^\[(\w+)\]", TEMPLATE, re.MULTILINE))
    assert tables == {*_KNOWN, "gpio", "serial"}
