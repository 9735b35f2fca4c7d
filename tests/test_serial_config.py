"""The [serial] table, checked by the config module: defaults, and one-line
errors that start with the key."""

from __future__ import annotations

import tomllib
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.daemon.config import parse_config, parse_serial
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


@pytest.mark.parametrize(("backend", "link"), [("gpio", "gpio"), ("sim", "gpio")])
@pytest.mark.parametrize(
    ("table", "start"),
    [
        ({"baud": 12345}, "[serial] baud: 12345 is not a standard rate"),
        ({"port": ""}, "[serial] port:"),
        ({"timeout": -1}, "[serial] timeout:"),
        ({"keepalive": 5}, "[serial] keepalive:"),
        ({"speed": 1}, "[serial] speed: unknown key"),
    ],
)
def test_serial_is_checked_whatever_the_backend(
    backend: str, link: str, table: dict[str, object], start: str
) -> None:
    """Issue 19: a mistake in [serial] was accepted silently until the day
    the backend became serial."""
    data = {"board": {"backend": backend}, "sim": {"link": link}, "serial": table}
    with pytest.raises(ConfigError) as caught:
        parse_config(data, "popref.toml")
    assert str(caught.value).startswith(f"popref.toml: {start}")


KEYS = ("port", "baud", "timeout", "resend", "keepalive", "reconnect_min", "reconnect_max")
VALUES = st.one_of(
    st.booleans(),
    st.integers(-(10**6), 10**7),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from([115200, 9600, 0.5, 1.5, 2, 3600, 3601, "", " ", "/dev/ttyACM0", "loop://"]),
)
TABLES = st.dictionaries(st.sampled_from([*KEYS, "speed"]), VALUES, max_size=4)


@settings(max_examples=300, derandomize=True)
@given(TABLES, st.sampled_from(["gpio", "sim", "serial"]), st.sampled_from(["gpio", "serial"]))
def test_any_serial_table_is_judged_alike_whatever_the_backend(
    table: dict[str, object], backend: str, link: str
) -> None:
    """Whatever the backend, [serial] is refused with the same line as when
    the sensor board uses it (the port is needed only then)."""

    def verdict(check: Callable[[], object]) -> str | None:
        try:
            check()
        except ConfigError as error:
            return str(error).removeprefix("popref.toml: ")
        return None

    data = {"board": {"backend": backend}, "sim": {"link": link}, "serial": table}
    used = verdict(lambda: parse_serial({"port": "/dev/ttyACM0", **table}))
    if backend == "serial" and "port" not in table:
        used = verdict(lambda: parse_serial(table))
    assert verdict(lambda: parse_config(data, "popref.toml")) == used
