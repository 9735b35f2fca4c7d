"""The systemd unit and sysusers file: systemd's own checks, and the settings the daemon needs."""

from __future__ import annotations

import ipaddress
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cli.installer import unit_settings

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "controller" / "system" / "popref.service"
SYSUSERS = REPO / "controller" / "system" / "popref.conf"
VERIFY = REPO / "tests" / "verify-unit.sh"

needs_systemd = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None or shutil.which("systemd-sysusers") is None,
    reason="systemd-analyze and systemd-sysusers are not installed (tests/run.sh installs them)",
)


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
    # The unit's SupplementaryGroups= refuses to start if a group is missing;
    # Debian declares dialout itself.
    assert ["g", "gpio", "-"] in lines


@needs_systemd
def test_sysusers_does_not_conflict_with_debians_own_groups(tmp_path: Path) -> None:
    """At boot systemd-sysusers reads every file: Debian's basic.conf declares
    dialout (GID 20), and a second declaration is warned about as a conflict."""
    (tmp_path / "usr/lib/sysusers.d").mkdir(parents=True)
    (tmp_path / "usr/lib/sysusers.d/basic.conf").write_text("g dialout    20    -\n")
    (tmp_path / "etc/sysusers.d").mkdir(parents=True)
    (tmp_path / "etc/sysusers.d/popref.conf").write_text(SYSUSERS.read_text())
    result = subprocess.run(
        ["systemd-sysusers", f"--root={tmp_path}", "--dry-run"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Conflict" not in result.stderr + result.stdout


def offline_security(unit_text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze security --offline`` of ``unit_text``, with an
    ExecStart= that exists here; fails when the exposure is above 1.2."""
    unit = tmp_path / "popref.service"
    unit.write_text(
        unit_text.replace("ExecStart=/opt/popref/venv/bin/popref ", "ExecStart=/bin/true ")
    )
    return subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--threshold=12", str(unit)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@needs_systemd
def test_the_exposure_score_is_at_most_1_2(tmp_path: Path) -> None:
    result = offline_security(UNIT.read_text(), tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert "Overall exposure level for popref.service: 1.2" in result.stdout


# systemd.resource-control(5): what the symbolic names of IPAddressAllow= mean
SYMBOLIC = {
    "any": ["0.0.0.0/0", "::/0"],
    "localhost": ["127.0.0.0/8", "::1/128"],
    "link-local": ["169.254.0.0/16", "fe80::/64"],
    "multicast": ["224.0.0.0/4", "ff00::/8"],
}
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def networks(values: list[str]) -> list[Network]:
    words = " ".join(values).split()
    return [ipaddress.ip_network(n) for w in words for n in SYMBOLIC.get(w, [w])]


def allowed(address: Address) -> bool:
    """Whether the shipped unit lets ``address`` through (an allow entry wins
    over a deny entry, as systemd applies them)."""
    service = unit_settings(UNIT.read_text())["Service"]
    if any(address in n for n in networks(service["IPAddressAllow"])):
        return True
    return not any(address in n for n in networks(service["IPAddressDeny"]))


@pytest.mark.parametrize(
    "address",
    ["192.168.1.23", "10.0.0.7", "172.20.1.1", "169.254.3.4", "fd12:3456::1", "fe80::1",
     "127.0.0.1", "::1"],
)  # fmt: skip
def test_the_phones_on_the_home_network_reach_the_page(address: str) -> None:
    assert allowed(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "93.184.216.34", "2001:4860:4860::8888", "100.64.0.1", "172.32.0.1"]
)
def test_the_internet_is_denied(address: str) -> None:
    assert not allowed(ipaddress.ip_address(address))


@given(st.ip_addresses())
def test_no_global_address_is_allowed(address: Address) -> None:
    assert not (address.is_global and allowed(address))


PRIVATE = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]


@given(st.sampled_from(PRIVATE).flatmap(lambda net: st.ip_addresses(network=net)))
def test_every_private_address_is_allowed(address: Address) -> None:
    assert allowed(address)


def test_ip_sockets_stay_open_for_the_page_and_network_serial_ports() -> None:
    text = UNIT.read_text()
    service = unit_settings(text)["Service"]
    families = " ".join(service["RestrictAddressFamilies"]).split()
    assert {"AF_INET", "AF_INET6"} <= set(families)
    assert "PrivateNetwork" not in service
    # the comment shows the drop-in that adds a range, e.g. a VPN's
    assert "#   IPAddressAllow=100.64.0.0/10" in text and "planned" not in text


@needs_systemd
def test_a_documented_drop_in_is_accepted(tmp_path: Path) -> None:
    unit = tmp_path / "popref.service"
    unit.write_text(UNIT.read_text())
    drop_in = tmp_path / "popref.service.d"
    drop_in.mkdir()
    (drop_in / "vpn.conf").write_text("[Service]\nIPAddressAllow=100.64.0.0/10\n")
    result = verify(unit, SYSUSERS)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or shutil.which("unshare") is None,
    reason="needs root, setpriv and unshare to run as another user in a user namespace",
)
@pytest.mark.parametrize("groups", [["--groups", "23456"], ["--clear-groups"]])
def test_private_users_keeps_device_access_through_supplementary_groups(
    tmp_path: Path, groups: list[str]
) -> None:
    """PrivateUsers=yes runs the daemon in a user namespace where gpio and
    dialout are unmapped (shown as nobody); what matters is that the kernel
    still grants a device's group rights to their members, and only to them.
    The same steps as systemd: groups first, then the namespace."""
    # a directory the other user can reach (pytest's own is root's only)
    place = Path(tempfile.mkdtemp(prefix="popref-privusers-", dir="/tmp"))
    try:
        place.chmod(0o755)
        device = place / "gpiochip0"
        try:  # a character device like /dev/gpiochip0 (here /dev/null's numbers)
            os.mknod(device, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            device.write_text("")
        os.chown(device, 0, 23456)  # root:gpio, rw for the group, as udev makes it
        device.chmod(0o660)
        result = _open_as_another_user(device, groups)
    finally:
        shutil.rmtree(place)
    if groups[0] == "--groups":
        assert result.stdout == "opened\n", result.stderr
    else:
        assert result.returncode != 0 and "Permission denied" in result.stderr


def _open_as_another_user(device: Path, groups: list[str]) -> subprocess.CompletedProcess[str]:
    probe = f"exec 3<>{device} && echo opened"
    command = [
        "setpriv", "--reuid", "12345", "--regid", "12345", *groups, "--",
        "unshare", "--user", "--", "sh", "-c", probe,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=60)
