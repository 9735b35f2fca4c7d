"""``popref install`` and ``popref uninstall`` on a temporary root directory.

systemd-sysusers, systemctl enable/disable, userdel and groupdel are the real
tools, confined to the temporary root with ``--root``; what needs a running
systemd (daemon-reload, restart) and ``hostname -I`` are recorded and answered
here, since the test machine runs no systemd.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import stat
import subprocess
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller import cli
from controller.cli.install import install, page_addresses
from controller.cli.installer import (
    CONFIG,
    RECORD,
    STATE,
    SYSUSERS,
    UNIT,
    Host,
    InstallError,
    carried_out,
)
from controller.cli.uninstall import uninstall
from controller.daemon.config import WebConfig
from tests.test_systemd_unit import offline_security, verify

TOOLS = ("systemd-sysusers", "systemctl", "systemd-analyze", "userdel", "groupdel")
EXECUTABLE = Path("opt/popref/venv/bin/popref")
WANTS = Path("etc/systemd/system/multi-user.target.wants/popref.service")
# A Debian system's accounts before popref: dialout exists, gpio does not.
DEBIAN = {
    "etc/passwd": "root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000::/home/pi:/bin/bash\n",
    "etc/group": "root:x:0:\ndialout:x:20:pi\npi:x:1000:\n",
    "etc/shadow": "root:*:19000:0:99999:7:::\npi:*:19000:0:99999:7:::\n",
    "etc/gshadow": "root:*::\ndialout:*::pi\npi:!::\n",
    # userdel removes a user's own group with it, as on Debian
    "etc/login.defs": "USERGROUPS_ENAB yes\n",
}


class System:
    """The commands a live install runs, recorded; those that work on files
    alone run for real inside the temporary root."""

    def __init__(self, root: Path, *, failing: str = "") -> None:
        self.root, self.failing = root, failing
        self.commands: list[list[str]] = []

    def __call__(self, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        argv = list(argv)
        self.commands.append(argv)
        if " ".join(argv) == self.failing:
            return subprocess.CompletedProcess(argv, 1, "", "Job failed. See journalctl.\n")
        if argv[:2] == ["hostname", "-I"]:
            return subprocess.CompletedProcess(argv, 0, "192.168.1.23 10.8.0.2 fd00::23 \n", "")
        confined = self.confined(argv)
        if confined is None:
            return subprocess.CompletedProcess(argv, 0, "", "")
        return subprocess.run(confined, capture_output=True, text=True, timeout=60)

    def confined(self, argv: list[str]) -> list[str] | None:
        if argv[0] in ("systemd-sysusers", "userdel", "groupdel"):
            return [argv[0], f"--root={self.root}", *argv[1:]]
        if argv[0] == "mosquitto_passwd":  # it hashes a file in the temporary root
            return argv
        if argv[:2] == ["systemctl", "enable"] or argv[:2] == ["systemctl", "disable"]:
            return ["systemctl", f"--root={self.root}", argv[1], argv[-1]]
        return None  # daemon-reload, restart: they need a running systemd


def debian_root(root: Path) -> Path:
    (root / WANTS).parent.mkdir(parents=True)  # as on Debian, with another service in it
    (root / WANTS).with_name("ssh.service").symlink_to("/lib/systemd/system/ssh.service")
    for name, text in DEBIAN.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / EXECUTABLE).parent.mkdir(parents=True)
    (root / EXECUTABLE).write_text("#!/bin/sh\n")
    (root / EXECUTABLE).chmod(0o755)
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return debian_system(tmp_path)


def debian_system(tmp_path: Path) -> Path:
    """A Debian system's root in a temporary directory, for the real tools."""
    if os.geteuid() != 0 or not all(map(shutil.which, TOOLS)):
        pytest.skip(f"writes root-owned files and accounts with {', '.join(TOOLS)}: needs root")
    return debian_root(tmp_path / "root")


def live(root: Path, system: System | None = None, **changes: object) -> Host:
    settings: dict[str, object] = {
        "root": root, "run": system or System(root), "euid": 0, "booted": True,
        "hostname": "raspberrypi", **changes,
    }  # fmt: skip
    return Host(**settings)  # type: ignore[arg-type]


def offline(root: Path) -> Host:
    return Host(root=root, offline=True, euid=0)


def said(action: object, *args: object, **kwargs: object) -> list[str]:
    lines: list[str] = []
    action(*args, lines.append, **kwargs)  # type: ignore[operator]
    return lines


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` and its text, without the account tools' own
    backups (``passwd-``) and lock files."""
    return {
        str(path.relative_to(root)): path.read_text() if path.is_file() else "directory"
        for path in sorted(root.rglob("*"))
        if not path.name.endswith("-") and not path.name.endswith(".lock")
    }


def accounts(root: Path) -> tuple[str, str]:
    return (root / "etc/passwd").read_text(), (root / "etc/group").read_text()


def test_a_live_install_writes_everything_starts_the_service_and_shows_the_page(
    root: Path,
) -> None:
    system = System(root)
    lines = said(install, live(root, system))
    assert system.commands == [
        ["systemd-sysusers", str(root / SYSUSERS)],
        ["systemctl", "daemon-reload"],
        ["systemctl", "enable", "popref.service"],
        ["systemctl", "restart", "popref.service"],
        ["hostname", "-I"],
    ]
    assert (root / WANTS).is_symlink()
    passwd, group = accounts(root)
    assert "\npopref:x:" in passwd
    assert "gpio:x:" in group and "dialout:x:20:pi,popref\n" in group
    config = (root / CONFIG).stat()
    assert stat.S_IMODE(config.st_mode) == 0o640 and config.st_uid == 0
    assert f"popref:x:{config.st_gid}:" in group
    assert stat.S_IMODE((root / UNIT).stat().st_mode) == 0o644
    # IPv6 is not listed: the default [web] host 0.0.0.0 listens on IPv4 only
    assert lines[-4:] == [
        "The live board, on any phone or laptop on this network:",
        "  http://192.168.1.23:8080/",
        "  http://10.8.0.2:8080/",
        "  http://raspberrypi.local:8080/",
    ]


def test_installing_again_changes_nothing_and_restarts_the_service(root: Path) -> None:
    install(live(root), print)
    before = snapshot(root)
    system = System(root)
    lines = said(install, live(root, system))
    assert snapshot(root) == before
    assert ["systemctl", "restart", "popref.service"] in system.commands
    assert "unchanged /etc/systemd/system/popref.service" in lines
    assert "kept /etc/popref/config.toml (yours)" in lines
    assert (root / RECORD).read_text().splitlines()[1:] == ["group gpio"]


def test_an_existing_configuration_is_never_overwritten(root: Path) -> None:
    mine = '[board]\nbackend = "serial"\n\n[serial]\nport = "/dev/ttyACM0"\n\n[web]\nport = 8123\n'
    (root / CONFIG).parent.mkdir(parents=True)
    (root / CONFIG).write_text(mine)
    lines = said(install, live(root))
    assert (root / CONFIG).read_text() == mine
    assert lines[-1] == "  http://raspberrypi.local:8123/"


def test_a_broken_configuration_stops_the_install_before_anything_is_written(
    root: Path,
) -> None:
    (root / CONFIG).parent.mkdir(parents=True)
    (root / CONFIG).write_text("[board]\nrows = 40\n")
    before = snapshot(root)
    with pytest.raises(InstallError) as raised:
        install(live(root), print)
    assert str(raised.value).startswith(f"{root / CONFIG}: [board] rows: 40 is out of range")
    assert raised.value.status == 2
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"euid": 1000}, "run it as root: sudo /opt/popref/venv/bin/popref install"),
        ({"booted": False}, "systemd is not running here (no /run/systemd/system)"),
    ],
)
def test_it_refuses_where_it_cannot_install(
    root: Path, changes: dict[str, object], refusal: str
) -> None:
    before = snapshot(root)
    system = System(root)
    with pytest.raises(InstallError, match=refusal.replace("(", r"\(").replace(")", r"\)")):
        install(live(root, system, **changes), print)
    assert system.commands == [] and snapshot(root) == before


def test_it_refuses_without_popref_in_the_venv_the_unit_starts(root: Path) -> None:
    (root / EXECUTABLE).unlink()
    with pytest.raises(InstallError, match="/opt/popref/venv/bin/popref does not exist"):
        install(live(root), print)
    assert not (root / UNIT).exists()


def test_a_service_that_does_not_start_is_one_line_with_where_to_look(root: Path) -> None:
    system = System(root, failing="systemctl restart popref.service")
    with pytest.raises(InstallError) as raised:
        install(live(root, system), print)
    assert raised.value.status == 1
    assert str(raised.value) == (
        "popref.service did not start (systemctl restart popref.service failed (status 1): "
        "Job failed. See journalctl.); see why: journalctl -u popref -n 20"
    )


def test_uninstall_undoes_exactly_what_install_did_and_keeps_the_games(root: Path) -> None:
    before = snapshot(root)
    install(live(root), print)
    (root / STATE / "games").mkdir(parents=True)
    (root / STATE / "games/0001.txt").write_text("a game\n")
    system = System(root)
    lines = said(uninstall, live(root, system))
    assert system.commands == [
        ["systemctl", "disable", "--now", "popref.service"],
        ["systemctl", "daemon-reload"],
        ["userdel", "popref"],
        ["groupdel", "gpio"],
    ]
    assert lines[-1] == "kept /var/lib/popref: the saved games (--purge removes them)"
    assert snapshot(root) == {
        **before,
        **{p: "directory" for p in ("var", "var/lib", "var/lib/popref", "var/lib/popref/games")},
        "var/lib/popref/games/0001.txt": "a game\n",
    }
    assert said(uninstall, live(root)) == [
        "kept /var/lib/popref: the saved games (--purge removes them)"
    ]


def test_purge_removes_the_games_and_an_edited_configuration(root: Path) -> None:
    install(live(root), print)
    (root / CONFIG).write_text('[board]\nbackend = "gpio"\n[game]\nrules = "pop10"\n')
    (root / STATE).mkdir(parents=True)
    assert "kept /etc/popref/config.toml: you changed it (--purge removes it)" in said(
        uninstall, live(root)
    )
    install(live(root), print)
    said(uninstall, live(root), purge=True)
    assert not (root / "etc/popref").exists() and not (root / STATE).exists()


def test_uninstall_keeps_a_group_it_created_that_someone_joined_since(root: Path) -> None:
    install(live(root), print)
    group = root / "etc/group"
    group.write_text(group.read_text().replace(":popref\n", ":popref,pi\n", 1))
    lines = said(uninstall, live(root))
    assert "kept the group gpio: pi still in it" in lines
    assert "gpio" in [line.split(":")[0] for line in group.read_text().splitlines()]


def test_nothing_installed_is_nothing_to_undo(root: Path) -> None:
    assert said(uninstall, live(root)) == ["nothing to undo: popref is not installed here"]


def test_an_offline_install_into_an_image_enables_without_starting(root: Path) -> None:
    lines = said(install, offline(root))
    assert lines[-1] == "enabled popref.service: it starts when that system boots"
    assert (root / WANTS).is_symlink()
    uninstall(offline(root), print)
    assert not (root / WANTS).exists() and not (root / UNIT).exists()


def test_systemd_accepts_the_unit_install_writes_and_rates_it_1_2(
    root: Path, tmp_path: Path
) -> None:
    install(offline(root), print)
    result = verify(root / UNIT, root / SYSUSERS)
    assert result.returncode == 0, result.stdout + result.stderr
    security = offline_security((root / UNIT).read_text(), tmp_path)
    assert security.returncode == 0, security.stdout[-2000:]
    assert "Overall exposure level for popref.service: 1.2" in security.stdout


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_the_commands_refuse_a_root_that_is_not_a_directory(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([command, "--root", str(tmp_path / "nowhere")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "is not a directory" in error


@given(
    st.lists(st.ip_addresses(), max_size=6).map(lambda found: [str(a) for a in found]),
    st.sampled_from(["0.0.0.0", "::"]),
    st.integers(1, 65535),
)
def test_the_page_is_shown_at_every_address_it_listens_on(
    found: list[str], listen: str, port: int
) -> None:
    def hostname(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(argv, 0, " ".join(found) + " \n", "")

    host = Host(run=hostname, euid=0, booted=True, hostname="pi")
    urls = page_addresses(host, WebConfig(host=listen, port=port))
    served = [a for a in found if listen == "::" or ipaddress.ip_address(a).version == 4]
    assert urls == [
        *(f"http://{f'[{a}]' if ':' in a else a}:{port}/" for a in served),
        f"http://pi.local:{port}/",
    ]
    for url in urls:  # each is a URL a browser reads back as the same host and port
        parts = urlsplit(url)
        assert parts.port == port and parts.path == "/"


def test_a_page_for_this_machine_only_says_so() -> None:
    host = Host(euid=0, booted=True, hostname="pi")
    assert page_addresses(host, WebConfig(host="127.0.0.1")) == ["http://127.0.0.1:8080/"]


def test_a_file_that_cannot_be_written_is_one_line_not_a_traceback(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (root / CONFIG).parent.write_text("not a directory\n")  # /etc/popref as a file
    assert carried_out("install", lambda: install(live(root), print)) == 1
    error = capsys.readouterr().err
    assert error == f"popref install: {root / RECORD}: Not a directory\n"


def test_each_commands_root_says_what_it_does_there(capsys: pytest.CaptureFixture[str]) -> None:
    """A walk read uninstall's --root as "a system image or chroot to install into"."""
    from controller.cli import main

    said = {}
    for command in ("install", "uninstall"):
        assert main([command, "--help"]) == 0
        said[command] = " ".join(capsys.readouterr().out.split())
    assert "--root DIR a system image or chroot to install into" in said["install"]
    assert "--root DIR a system image or chroot to remove popref from" in said["uninstall"]
    assert "install into" not in said["uninstall"]
