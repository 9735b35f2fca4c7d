"""A real Mosquitto for the tests, on free ports of the loopback interface:
an MQTT listener and a WebSockets one (for browsers), anonymous, nothing kept
on disk (a restart loses the retained messages, as a broker that was
replaced would). ``tests/run.sh`` installs Debian's ``mosquitto``; where it is
missing, the tests that need it skip, with this reason."""

from __future__ import annotations

import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or next(
    (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)),
    None,
)
MISSING = (
    "mosquitto is not installed (tests/run.sh installs it with apt-get where it can; "
    "or install it yourself): the remote seat's tests need a real broker"
)
READY = b" running"  # the line Mosquitto logs once it listens
START_WAIT = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Mosquitto:
    """One broker process; :meth:`restart` brings it back on the same ports."""

    def __init__(self, directory: Path, http_dir: Path | None = None) -> None:
        assert MOSQUITTO is not None, MISSING
        self.port = free_port()
        self.ws_port = free_port()
        self.config = directory / "mosquitto.conf"
        # the WebSockets listener also serves files, as for the remote page;
        # as the test's own user (run as root, Mosquitto would become the
        # user mosquitto, who cannot read a test's temporary directory)
        serves = ""
        if http_dir is not None:
            serves = f"http_dir {http_dir}\nuser {pwd.getpwuid(os.getuid()).pw_name}\n"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            f"listener {self.ws_port} 127.0.0.1\n"
            "protocol websockets\n"
            f"{serves}"
            "persistence false\n"
            "set_tcp_nodelay true\n"
            "log_dest stderr\n"
            "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.ws_port}"

    def start(self) -> None:
        """Start it and wait until it says it is running."""
        assert MOSQUITTO is not None
        process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.process = process
        assert process.stderr is not None
        said = b""
        end = time.monotonic() + START_WAIT
        while READY not in said:
            left = end - time.monotonic()
            ready, _, _ = select.select([process.stderr], [], [], max(0.0, left))
            chunk = os.read(process.stderr.fileno(), 4096) if ready else b""
            if not chunk:
                self.stop()
                raise RuntimeError(f"mosquitto did not start: {said.decode(errors='replace')}")
            said += chunk

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()

    def restart(self) -> None:
        self.stop()
        self.start()
