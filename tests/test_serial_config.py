"""The [serial] table, checked by the config module: defaults, and one-line
errors that start with the key."""

from __future__ import annotations

import tomllib

import pytest

from controller.daemon.config import parse_serial
from hardware.errors import ConfigError
from hardware.serial_config import SerialConfig


def test_defaults_from_toml() -> None:
    table = tomllib.loads('[serial]\nport = "/dev/ttyACM0"\n')["serial"]
    assert parse_serial(table) == SerialConfig(port="/dev/ttyACM0")


def test_any_pyserial_url_and_timeouts() -> None:
    table = tomllib.loads('[serial]\nport = "loop://"\nbaud = 57600\ntimeout = 3\n')["serial"]
    config = parse_serial(table)
    assert (config.port, config.baud, config.timeout) == ("loop://", 57600, 3.0)


@pytest.mark.parametrize(
    ("table", "start"),
    [
        ({}, "[serial] port: set it"),
        ({"port": ""}, "[serial] port:"),
        ({"port": 3}, "[serial] port:"),
        ({"port": "x", "baud": "fast"}, "[serial] baud: expected a whole number"),
        ({"port": "x", "baud": 12345}, "[serial] baud: 12345 is not a standard rate"),
        ({"port": "x", "baud": True}, "[serial] baud:"),
        ({"port": "x", "timeout": 0}, "[serial] timeout: expected a positive"),
        ({"port": "x", "resend": "1s"}, "[serial] resend:"),
        ({"port": "x", "keepalive": 2}, "[serial] keepalive: 2.0 s is too slow"),
        ({"port": "x", "reconnect_min": 9}, "[serial] reconnect_min: 9.0 is more than"),
        ({"port": "x", "speed": 1}, "[serial] speed: unknown key"),
    ],
)
def test_bad_values_say_which_key_and_what_to_do(table: dict[str, object], start: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_serial(table)
    message = str(caught.value)
    assert message.startswith(start)
    assert "\n" not in message


def test_the_config_module_hands_the_backend_ready_settings() -> None:
    from controller.daemon.config import parse_config

    table = {"board": {"backend": "serial", "columns": 9}, "serial": {"port": "loop://"}}
    config = parse_config(table, "popref.toml")
    assert config.serial == SerialConfig(port="loop://")
    with pytest.raises(ConfigError, match=r"^popref.toml: \[serial\] port:"):
        parse_config({"board": {"backend": "serial"}}, "popref.toml")
    simulated = parse_config({"sim": {"link": "serial"}, "serial": {"timeout": 3}}, "popref.toml")
    assert simulated.serial is not None and simulated.serial.timeout == 3.0
