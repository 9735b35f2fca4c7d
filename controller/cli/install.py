"""``popref install``: make this Raspberry Pi referee its grid at every boot.

Run as root from the venv the unit starts (``sudo /opt/popref/venv/bin/popref
install``), it writes the ``popref`` user's sysusers file and has
``systemd-sysusers`` create the user in the groups ``gpio`` and ``dialout``,
writes a commented ``/etc/popref/config.toml`` unless there is one, writes the
unit, enables and starts the service, and prints the page's addresses. Every
step checks what is there first, so running it again (after an update) only
restarts the service. ``--root DIR`` prepares a system image or a chroot
instead: the same files and users, the service enabled but not started.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from pathlib import Path

from controller.cli.install_broker import set_up_broker
from controller.cli.installer import (
    CONFIG,
    SERVICE,
    SYSUSERS,
    UNIT,
    USER,
    Host,
    InstallError,
    Say,
    Unit,
    carried_out,
    check_host,
    group_id,
    groups,
    installed_config,
    record_groups,
    system_file,
    users,
    write_file,
)
from controller.daemon.config import WebConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_root(parser, "to install into (enabled, not started: no systemd runs there)")
    parser.add_argument(
        "--broker",
        action="store_true",
        help="also set up Mosquitto (apt install mosquitto first) for friends on this "
        "network: its listeners, accounts and ACL, named in [remote] (docs/install-pi.md)",
    )


def add_root(parser: argparse.ArgumentParser, what: str) -> None:
    """``--root DIR``: a system image or chroot, and ``what`` is done there."""
    parser.add_argument(
        "--root", type=directory, metavar="DIR", help=f"a system image or chroot {what}"
    )


def directory(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a directory; give the system's root")
    return path.resolve()


def host_of(args: argparse.Namespace) -> Host:
    if args.root is None:
        return Host()
    return Host(root=args.root, offline=True)


def run(args: argparse.Namespace) -> int:
    host = host_of(args)
    return carried_out("install", lambda: install(host, print, broker=args.broker))


def install(host: Host, say: Say, *, broker: bool = False) -> None:
    unit = Unit.shipped()
    check_host(host, unit, "install")
    if not os.access(host.path(unit.executable.relative_to("/")), os.X_OK):
        raise InstallError(
            f"{unit.executable} does not exist, and the service runs popref from there: "
            "install popref into that venv first (docs/install-pi.md)"
        )
    web = read_config(host)
    create_user(host, unit, say)
    write_config(host, say)
    if broker:  # before the service starts: it reads [remote] then
        set_up_broker(host, say)
    write_file(host, UNIT, unit.text, say)
    start(host, say)
    if web is None:
        web = read_config(host)
    if not host.offline and web is not None:
        show_page(host, web, say)


def create_user(host: Host, unit: Unit, say: Say) -> None:
    """The popref user in the unit's groups, by systemd-sysusers; the groups
    it had to create are recorded for uninstall."""
    before = set(groups(host.root))
    write_file(host, SYSUSERS, system_file("popref.conf"), say)
    host.call("systemd-sysusers", *host.root_option(), str(host.path(SYSUSERS)))
    now = groups(host.root)
    if USER not in users(host.root):
        raise InstallError(f"systemd-sysusers did not create the user {USER}", 1)
    missing = [g for g in unit.groups if USER not in now.get(g, [])]
    if missing:
        raise InstallError(
            f"systemd-sysusers did not put {USER} in {', '.join(missing)}: "
            f"compare /{SYSUSERS} with `id {USER}`",
            1,
        )
    record_groups(host, sorted(set(now) - before - {USER}))
    say(f"user {USER}: in the groups {', '.join(unit.groups)}")


def read_config(host: Host) -> WebConfig | None:
    """The web view's settings of the configuration (``None`` when there is
    none yet); a mistake in it stops the install with the configuration's line."""
    path = host.path(CONFIG)
    if not path.exists():
        return None
    return installed_config(path).web


def write_config(host: Host, say: Say) -> None:
    """The commented configuration, readable by root and the popref group;
    an existing one is never touched."""
    path = host.path(CONFIG)
    if path.exists():
        say(f"kept /{CONFIG} (yours)")
        return
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(system_file("config.toml"))
        os.fchown(handle.fileno(), 0, group_id(host.root, USER))
    say(f"wrote /{CONFIG}: the board on the default pin map; every setting is in it")


def start(host: Host, say: Say) -> None:
    if host.offline:
        host.call("systemctl", *host.root_option(), "enable", SERVICE)
        say(f"enabled {SERVICE}: it starts when that system boots")
        return
    host.call("systemctl", "daemon-reload")
    host.call("systemctl", "enable", SERVICE)
    try:
        host.call("systemctl", "restart", SERVICE)
    except InstallError as error:
        raise InstallError(
            f"{SERVICE} did not start ({error}); see why: journalctl -u {USER} -n 20", 1
        ) from None
    say(f"enabled and started {SERVICE}: systemctl status {USER}")


def show_page(host: Host, web: WebConfig, say: Say) -> None:
    if not web.enabled:
        say(f"the page is off ([web] enabled = false in /{CONFIG})")
        return
    say("The live board, on any phone or laptop on this network:")
    for address in page_addresses(host, web):
        say(f"  {address}")


def page_addresses(host: Host, web: WebConfig) -> list[str]:
    """Where phones find the page: each address of ``hostname -I`` that the
    server listens on, then the Pi's ``.local`` name (Avahi answers for it)."""
    listen = ipaddress.ip_address(web.host)
    if listen.is_unspecified:
        try:
            found = host.run(["hostname", "-I"]).stdout.split()
        except InstallError:  # no hostname command: the .local name still works
            found = []
        # "::" listens on IPv4 too (controller/web/server.py); "0.0.0.0" on IPv4 only
        shown = [a for a in found if listen.version == 6 or ":" not in a]
        shown.append(f"{host.hostname}.local")
    else:
        shown = [str(listen)]
    return [f"http://{f'[{a}]' if ':' in a else a}:{web.port}/" for a in shown]
