"""The ``[serial]`` table of the configuration: where the sensor board is.

>>> config = parse_serial_config({"port": "/dev/ttyACM0"})
>>> config.baud, config.timeout
(115200, 1.5)
>>> from hardware.errors import ConfigError
>>> try:
...     parse_serial_config({"port": "/dev/ttyACM0", "baud": "fast"})
... except ConfigError as error:
...     print(str(error)[:44])
[serial] baud: expected a whole number of bi
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hardware.configtable import ConfigTable

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
    serial = ConfigTable("serial", table)
    serial.only(_KNOWN)
    port = serial.get("port")
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
    if baud not in _BAUDS:
        rates = ", ".join(map(str, _BAUDS))
        raise serial.error("baud", f"{baud} is not a standard rate; use one of {rates}")
    seconds = {key: serial.seconds(key, 1.0, high=3600) for key in _SECONDS if key in serial}
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
