"""The sensor board's serial settings, as the ``[serial]`` table of the
configuration gives them (checked by :mod:`controller.daemon.config`).

>>> config = SerialConfig("/dev/ttyACM0")
>>> config.baud, config.timeout
(115200, 1.5)
"""

from __future__ import annotations

from dataclasses import dataclass


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
