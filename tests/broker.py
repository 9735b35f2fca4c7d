"""A real Mosquitto for the tests, on free ports of the loopback interface:
an MQTT listener and a WebSockets one (for browsers), anonymous, nothing kept
on disk (a restart loses the retained messages, as a broker that was
replaced would); with :class:`Tls`, both listeners speak TLS, as a broker on
the internet does. ``tests/run.sh`` installs Debian's ``mosquitto``; where it
is missing, the tests that need it skip, with this reason."""

from __future__ import annotations

import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Tls:
    """A certificate authority of the test's own and the certificate it signed
    for the broker (127.0.0.1 and localhost), as PEM files; ``spki`` is the
    base64 SHA-256 of the broker's public key, which Chromium can be told
    to trust (``--ignore-certificate-errors-spki-list``)."""

    ca: Path
    cert: Path
    key: Path
    spki: str

    @classmethod
    def make(cls, directory: Path) -> Tls:
        import base64
        import hashlib

        import trustme
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization

        directory.mkdir(parents=True, exist_ok=True)
        authority = trustme.CA()
        issued = authority.issue_cert("127.0.0.1", "localhost")
        ca, cert, key = (directory / name for name in ("ca.pem", "cert.pem", "key.pem"))
        authority.cert_pem.write_to_path(str(ca))
        issued.cert_chain_pems[0].write_to_path(str(cert))
        issued.private_key_pem.write_to_path(str(key))
        public = x509.load_pem_x509_certificate(cert.read_bytes()).public_key()
        der = public.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return cls(ca, cert, key, base64.b64encode(hashlib.sha256(der).digest()).decode("ascii"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Mosquitto:
    """One broker process; :meth:`restart` brings it back on the same ports."""

    def __init__(
        self, directory: Path, http_dir: Path | None = None, tls: Tls | None = None
    ) -> None:
        assert MOSQUITTO is not None, MISSING
        self.tls = tls
        self.port = free_port()
        self.ws_port = free_port()
        self.config = directory / "mosquitto.conf"
        # the WebSockets listener may also serve files, as for the remote page
        serves = f"http_dir {http_dir}\n" if http_dir is not None else ""
        secure = f"certfile {tls.cert}\nkeyfile {tls.key}\n" if tls is not None else ""
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            f"{secure}"
            "allow_anonymous true\n"
            f"listener {self.ws_port} 127.0.0.1\n"
            "protocol websockets\n"
            f"{secure}"
            f"{serves}"
            # as the test's own user: run as root, Mosquitto would become the user
            # mosquitto, who cannot read a test's files (the page, the certificates)
            f"user {pwd.getpwuid(os.getuid()).pw_name}\n"
            "persistence false\n"
            "set_tcp_nodelay true\n"
            "log_dest stderr\n"
            "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.ws_port}"

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
