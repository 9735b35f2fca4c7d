"""The systemd unit and sysusers file: systemd's own checks, and the settings the daemon needs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "popref.service"
SYSUSERS = REPO / "systemd" / "popref.conf"
VERIFY = REPO / "tests" / "verify-unit.sh"

needs_systemd = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None or shutil.which("systemd-sysusers") is None,
    reason="systemd-analyze and systemd-sysusers are not installed (tests/run.sh installs them)",
)


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


def verify(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VERIFY), *map(str, paths)], capture_output=True, text=True, timeout=120
    )


@needs_systemd
def test_systemd_accepts_the_unit_and_the_sysusers_file() -> None:
    result = verify()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "popref.service: ok" in result.stdout
    assert "popref.conf: ok" in result.stdout


@needs_systemd
@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (("Restart=on-failure", "Restart=sometimes"), "restart specifier"),
        (("DeviceAllow=char-ttyUSB rw", "DeviceAllow=char-ttyUSB rwz"), "device rights"),
        (("NoNewPrivileges=yes", "NoNewPrivilege=yes"), "Unknown key"),
        (("ExecStart=/opt/popref/venv/bin/popref run", "ExecStart=/opt/nothing/popref run"), ""),
    ],
)
def test_the_check_fails_on_a_broken_unit(
    tmp_path: Path, change: tuple[str, str], complaint: str
) -> None:
    old, new = change
    text = UNIT.read_text()
    assert old in text
    broken = tmp_path / "popref.service"
    broken.write_text(text.replace(old, new))
    result = verify(broken, SYSUSERS)
    assert result.returncode != 0
    assert complaint in result.stdout


@needs_systemd
def test_the_check_fails_on_a_broken_sysusers_file(tmp_path: Path) -> None:
    broken = tmp_path / "popref.conf"
    broken.write_text(SYSUSERS.read_text() + "u popref - - - - trailing\n")
    result = verify(UNIT, broken)
    assert result.returncode != 0
    assert "popref.conf" in result.stdout


def test_the_unit_has_what_the_daemon_relies_on() -> None:
    service = unit_settings(UNIT.read_text())["Service"]
    expected = {
        "Type": ["notify"],
        "NotifyAccess": ["main"],
        "ExecStart": ["/opt/popref/venv/bin/popref run --config /etc/popref/config.toml"],
        "User": ["popref"],
        "StateDirectory": ["popref"],
        "RuntimeDirectory": ["popref"],
        "Environment": ["LG_WD=%t/popref"],
        "Restart": ["on-failure"],
        "WatchdogSec": ["10"],
        "KillSignal": ["SIGTERM"],
        "DevicePolicy": ["closed"],
        "ProtectSystem": ["strict"],
        "ProtectHome": ["yes"],
        "NoNewPrivileges": ["yes"],
        "PrivateTmp": ["yes"],
    }
    assert {key: service.get(key) for key in expected} == expected
    assert set(service["SupplementaryGroups"][0].split()) == {"gpio", "dialout"}
    assert "TimeoutStartSec" in service


def test_the_hardening_still_reaches_the_gpio_chip_and_serial_ports() -> None:
    service = unit_settings(UNIT.read_text())["Service"]
    allowed = set(service["DeviceAllow"])
    assert {"char-gpiochip rw", "char-ttyACM rw", "char-ttyUSB rw"} <= allowed
    # PrivateDevices=yes would hide /dev/gpiochip* whatever DeviceAllow= says.
    assert service.get("PrivateDevices", ["no"]) == ["no"]
    # gpiozero identifies the Pi through /proc/device-tree and /proc/cpuinfo.
    assert service.get("ProcSubset", ["all"]) == ["all"]
    # The notify socket is AF_UNIX.
    assert "AF_UNIX" in " ".join(service["RestrictAddressFamilies"]).split()


def test_sysusers_creates_the_user_in_both_device_groups() -> None:
    lines = [
        line.split()
        for line in SYSUSERS.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert any(line[:2] == ["u", "popref"] for line in lines)
    assert ["m", "popref", "gpio"] in lines
    assert ["m", "popref", "dialout"] in lines
    # The unit's SupplementaryGroups= refuses to start if a group is missing.
    assert ["g", "gpio", "-"] in lines and ["g", "dialout", "-"] in lines
