"""``popref uninstall``: undo ``popref install``.

It stops and disables the service, removes the unit and the sysusers file,
deletes the ``popref`` user and the groups install created, and removes the
configuration if it is still the one install wrote. It keeps the saved games
in ``/var/lib/popref`` and a configuration someone edited, unless ``--purge``
says to remove them too. popref itself stays in its venv (``/opt/popref``).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil

from controller.cli import install as install_cmd
from controller.cli.install_broker import remove_broker
from controller.cli.installer import (
    CONFIG,
    RECORD,
    SERVICE,
    STATE,
    SYSUSERS,
    UNIT,
    USER,
    Host,
    Say,
    Unit,
    carried_out,
    check_host,
    config_as_installed,
    groups,
    recorded_groups,
    users,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    install_cmd.add_root(
        parser, "to remove popref from (nothing is stopped: no systemd runs there)"
    )
    parser.add_argument(
        "--purge",
        action="store_true",
        help=f"also remove the saved games (/{STATE}) and the configuration",
    )


def run(args: argparse.Namespace) -> int:
    host = install_cmd.host_of(args)
    return carried_out("uninstall", lambda: uninstall(host, print, purge=args.purge))


def uninstall(host: Host, say: Say, *, purge: bool = False) -> None:
    check_host(host, Unit.shipped(), "uninstall")
    done: list[str] = []

    def tell(line: str) -> None:
        done.append(line)
        say(line)

    undo(host, tell, purge=purge)
    if not done:
        say("nothing to undo: popref is not installed here")


def undo(host: Host, say: Say, *, purge: bool) -> None:
    remove_service(host, say)
    remove_broker(host, say)
    remove_accounts(host, say)
    remove_config(host, say, purge=purge)
    state = host.path(STATE)
    if purge and state.exists():
        shutil.rmtree(state)
        say(f"removed /{STATE}: the saved games")
    elif state.exists():
        say(f"kept /{STATE}: the saved games (--purge removes them)")


def remove_service(host: Host, say: Say) -> None:
    unit = host.path(UNIT)
    if unit.exists():
        if host.offline:
            host.call("systemctl", *host.root_option(), "disable", SERVICE)
        else:
            host.call("systemctl", "disable", "--now", SERVICE)
        unit.unlink()
        if not host.offline:
            host.call("systemctl", "daemon-reload")
        say(f"stopped, disabled and removed {SERVICE}")
    if host.path(SYSUSERS).exists():
        host.path(SYSUSERS).unlink()
        say(f"removed /{SYSUSERS}")
    # Debian has no /etc/sysusers.d until install makes it
    with contextlib.suppress(OSError):
        host.path(SYSUSERS).parent.rmdir()


def remove_accounts(host: Host, say: Say) -> None:
    """The popref user and group, and the groups install created, unless
    someone else is in them now."""
    if USER in users(host.root):
        host.call("userdel", *host.root_option(), USER)
        say(f"removed the user {USER}")
    for name in (USER, *recorded_groups(host)):
        members = groups(host.root).get(name)
        if members is None:
            continue
        if members:
            say(f"kept the group {name}: {', '.join(members)} still in it")
            continue
        host.call("groupdel", *host.root_option(), name)
        say(f"removed the group {name}")


def remove_config(host: Host, say: Say, *, purge: bool) -> None:
    config = host.path(CONFIG)
    if config.exists():
        if purge or config_as_installed(host, config.read_text(encoding="utf-8", errors="replace")):
            config.unlink()
            say(f"removed /{CONFIG}")
        else:
            say(f"kept /{CONFIG}: you changed it (--purge removes it)")
    host.path(RECORD).unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # only when empty: nothing of anyone else's goes
        config.parent.rmdir()
