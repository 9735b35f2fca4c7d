"""Putting popref on a Raspberry Pi as a system service and taking it off
again: what ``popref install`` and ``popref uninstall`` do (docs/install-pi.md).

The files are the repository's ``systemd/``: the unit, the sysusers file and
the commented configuration, carried in the package as ``controller/system``
(links to them, which the sdist and wheel hold as files). Every path is taken under
:attr:`Host.root` and every system command goes through :attr:`Host.run`, so
the tests install into a temporary directory.

>>> unit_settings("[Service]\\nUser=popref\\n# a comment\\nDeviceAllow=a\\nDeviceAllow=b\\n")
{'Service': {'User': ['popref'], 'DeviceAllow': ['a', 'b']}}
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from controller.daemon.config import DEFAULT_PATH, DEFAULT_STATE_DIR, Config, load_config
from hardware.errors import ConfigError

SERVICE = "popref.service"
USER = "popref"
UNIT = Path("etc/systemd/system") / SERVICE
SYSUSERS = Path("etc/sysusers.d/popref.conf")
CONFIG = DEFAULT_PATH.relative_to("/")
# What install created that the system may have had before (groups), so that
# uninstall removes only those.
RECORD = CONFIG.parent / "installed"
STATE = DEFAULT_STATE_DIR.relative_to("/")
# the service's environment, as systemd gives it, for reading its configuration
SERVICE_ENV = {"STATE_DIRECTORY": str(DEFAULT_STATE_DIR)}
COMMAND_SECONDS = 180  # systemctl restart waits for READY=1 (TimeoutStartSec=60)

Say = Callable[[str], None]
Runner = Callable[[Sequence[str]], subprocess.CompletedProcess[str]]


class InstallError(Exception):
    """One line for the person installing; ``status`` is the exit status:
    2 for a refusal (not root, no systemd, a bad configuration), 1 when a
    system command failed."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def carried_out(verb: str, action: Callable[[], None]) -> int:
    """Run ``action`` for ``popref VERB``: its exit status, a failure told in
    one line on standard error."""
    try:
        action()
    except InstallError as error:
        print(f"popref {verb}: {error}", file=sys.stderr)
        return error.status
    except OSError as error:  # a full disk, a read-only /etc
        where = f"{error.filename}: " if error.filename else ""
        print(f"popref {verb}: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    return 0


def run_command(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(argv), capture_output=True, text=True, timeout=COMMAND_SECONDS, check=False
        )
    except FileNotFoundError:
        raise InstallError(
            f"{argv[0]} is not installed here; a systemd system such as Raspberry Pi OS has it"
        ) from None
    except subprocess.TimeoutExpired:
        raise InstallError(f"{' '.join(argv)} did not finish in {COMMAND_SECONDS} s", 1) from None


def _systemd_is_running() -> bool:
    """sd_booted(3): the system was booted with systemd."""
    return Path("/run/systemd/system").is_dir()


@dataclass(frozen=True)
class Host:
    """The system to install on. ``offline`` (``--root``): a system image or
    a chroot, whose files and users are written and whose service is enabled
    but not started, as no systemd runs there."""

    root: Path = Path("/")
    offline: bool = False
    run: Runner = run_command
    euid: int = field(default_factory=os.geteuid)
    booted: bool = field(default_factory=_systemd_is_running)
    hostname: str = field(default_factory=socket.gethostname)

    def path(self, relative: Path) -> Path:
        return self.root / relative

    def call(self, *argv: str) -> str:
        """Run a system command; its standard output, or an error naming it."""
        done = self.run(argv)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            why = f": {said[-1]}" if said else ""
            raise InstallError(f"{' '.join(argv)} failed (status {done.returncode}){why}", 1)
        return done.stdout

    def root_option(self) -> tuple[str, ...]:
        """``--root=DIR`` for systemctl, systemd-sysusers, userdel and groupdel
        offline; nothing live."""
        return (f"--root={self.root}",) if self.offline else ()


def system_file(name: str) -> str:
    """A file of ``systemd/`` as the package carries it (``controller/system``)."""
    return (resources.files("controller") / "system" / name).read_text(encoding="utf-8")


def unit_settings(text: str) -> dict[str, dict[str, list[str]]]:
    """Every ``Key=value`` per section, in order, repeated keys kept (as systemd reads them)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


@dataclass(frozen=True)
class Unit:
    """The unit's facts that install relies on, read from the unit itself."""

    text: str
    executable: Path
    groups: tuple[str, ...]

    @classmethod
    def shipped(cls) -> Unit:
        text = system_file(SERVICE)
        service = unit_settings(text)["Service"]
        executable = Path(service["ExecStart"][0].split()[0])
        return cls(text, executable, tuple(service["SupplementaryGroups"][0].split()))

    def command(self, verb: str) -> str:
        return f"sudo {self.executable} {verb}"


def check_host(host: Host, unit: Unit, verb: str) -> None:
    if host.euid != 0:
        raise InstallError(f"run it as root: {unit.command(verb)}")
    if not host.offline and not host.booted:
        raise InstallError(
            "systemd is not running here (no /run/systemd/system), and the service "
            "needs it: run it on the Raspberry Pi itself; for a system image or a "
            "chroot, add --root DIR"
        )


def groups(root: Path) -> dict[str, list[str]]:
    """The groups of the system under ``root`` and their members, from /etc/group."""
    return {
        fields[0]: [m for m in fields[3].split(",") if m]
        for fields in _entries(root / "etc/group", 4)
    }


def users(root: Path) -> set[str]:
    return {fields[0] for fields in _entries(root / "etc/passwd", 7)}


def _entries(path: Path, count: int) -> list[list[str]]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    return [f for f in (line.split(":") for line in lines) if len(f) >= count]


def installed_config(path: Path) -> Config:
    """The configuration at ``path`` as the service reads it; a mistake in
    it stops the install with the configuration's line."""
    try:
        return load_config(path, SERVICE_ENV)
    except ConfigError as error:
        raise InstallError(f"{error}; fix it, then run popref install again") from None


def account_ids(root: Path, name: str) -> tuple[int, int] | None:
    """User ``name``'s id and group id in the system's /etc/passwd, or None."""
    for fields in _entries(root / "etc/passwd", 7):
        if fields[0] == name:
            return int(fields[2]), int(fields[3])
    return None


def group_id(root: Path, name: str) -> int:
    for fields in _entries(root / "etc/group", 4):
        if fields[0] == name:
            return int(fields[2])
    raise InstallError(f"there is no group {name} in /etc/group after systemd-sysusers", 1)


def write_file(host: Host, relative: Path, text: str, say: Say) -> None:
    """Write a file root owns (mode 644) whole or not at all; say what changed."""
    path = host.path(relative)
    if path.is_file() and path.read_text(encoding="utf-8", errors="replace") == text:
        say(f"unchanged /{relative}")
        return
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    new = path.with_name(f".{path.name}.new")
    new.write_text(text, encoding="utf-8")
    new.chmod(0o644)
    new.replace(path)
    say(f"wrote /{relative}")


def _recorded(host: Host, kind: str) -> list[str]:
    """The record's values of ``kind`` (its lines ``KIND VALUE``)."""
    try:
        lines = host.path(RECORD).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    return [line.removeprefix(f"{kind} ") for line in lines if line.startswith(f"{kind} ")]


def _record(host: Host, groups: Sequence[str], config: Sequence[str]) -> None:
    lines = [
        "# what popref install created, for popref uninstall",
        *(f"group {g}" for g in groups),
        *(f"config {digest}" for digest in config),
    ]
    write_file(host, RECORD, "\n".join(lines) + "\n", lambda _: None)


def recorded_groups(host: Host) -> list[str]:
    """The groups install created (uninstall removes only those)."""
    return _recorded(host, "group")


def record_groups(host: Host, created: Sequence[str]) -> None:
    """Add ``created`` to the record, keeping what earlier runs created."""
    known = recorded_groups(host)
    known += [name for name in created if name not in known]
    _record(host, known, _recorded(host, "config"))


def record_config(host: Host, text: str) -> None:
    """The configuration as install last wrote it is ``text``: uninstall
    removes it while it is still that (a digest, not its passwords)."""
    _record(host, recorded_groups(host), [hashlib.sha256(text.encode()).hexdigest()])


def config_as_installed(host: Host, text: str) -> bool:
    """Whether ``text`` is the configuration install wrote: the shipped one,
    or the one it last wrote itself (:func:`record_config`)."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    return text == system_file("config.toml") or digest in _recorded(host, "config")
