"""The ``[serial]`` table of the configuration: where the sensor board is.

>>> config = parse_serial_config({"port": "/dev/ttyACM0"})
>>> config.baud, config.timeout
(115200, 1.5)
>>> try:
...     parse_serial_config({"port": "/dev/ttyACM0", "baud": "fast"})
... except ConfigError as error:
...     print(str(error)[:44])
[serial] baud: expected a whole number of bi
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hardware.errors import ConfigError

_BAUDS = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000, 2000000)


@dataclass(frozen=True, slots=True)
class SerialConfig:
    """Where the board is and how patient to be with it (seconds).

    ``port`` is a device path or any pyserial URL (``loop://``,
    ``rfc2217://host:port``). ``timeout``: silence after which the board is
    reported as gone. ``resend``: how often an unacknowledged display is
    sent again. ``keepalive``: how often the host pings a quiet board, which
    goes dark after two seconds without hearing from the host.
    ``reconnect_min``/``reconnect_max``: the backoff between attempts to
    reopen a port that went away.
    """

    port: str
    baud: int = 115200
    timeout: float = 1.5
    resend: float = 0.25
    keepalive: float = 0.5
    reconnect_min: float = 0.5
    reconnect_max: float = 8.0


_SECONDS = ("timeout", "resend", "keepalive", "reconnect_min", "reconnect_max")
_KNOWN = ("port", "baud", *_SECONDS)


def parse_serial_config(table: Mapping[str, object]) -> SerialConfig:
    """Check the ``[serial]`` table; raise :class:`ConfigError` with one line."""
    for key in table:
        if key not in _KNOWN:
            raise ConfigError(f"[serial] {key}: unknown key; the keys are {', '.join(_KNOWN)}")
    port = table.get("port")
    if not isinstance(port, str) or not port.strip():
        raise ConfigError(
            "[serial] port: set it to the board's device or a pyserial URL, "
            'for example port = "/dev/ttyACM0"'
        )
    baud = table.get("baud", 115200)
    if isinstance(baud, bool) or not isinstance(baud, int):
        raise ConfigError(
            f"[serial] baud: expected a whole number of bits per second such as 115200, "
            f"got {baud!r}"
        )
    if baud not in _BAUDS:
        raise ConfigError(
            f"[serial] baud: {baud} is not a standard rate; use one of "
            f"{', '.join(map(str, _BAUDS))}"
        )
    seconds: dict[str, float] = {}
    for key in _SECONDS:
        if key not in table:
            continue
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ConfigError(
                f"[serial] {key}: expected a positive number of seconds, got {value!r}"
            )
        if value > 3600:
            raise ConfigError(f"[serial] {key}: {value} seconds is too long; use at most 3600")
        seconds[key] = float(value)
    config = SerialConfig(port=port.strip(), baud=baud, **seconds)
    if config.reconnect_min > config.reconnect_max:
        raise ConfigError(
            f"[serial] reconnect_min: {config.reconnect_min} is more than reconnect_max "
            f"({config.reconnect_max}); make it smaller"
        )
    if config.keepalive >= 2.0:
        raise ConfigError(
            f"[serial] keepalive: {config.keepalive} s is too slow; the board goes dark after "
            "2 s without the host, so use less than 2"
        )
    return config
