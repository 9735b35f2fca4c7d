"""``popref install --broker``: Mosquitto on this Raspberry Pi, for friends
on the home network and for a second grid (docs/remote.md, "Running
Mosquitto for it"), and ``popref uninstall``'s undoing of it.

It needs Debian's ``mosquitto`` installed (``sudo apt install -y
mosquitto``). It writes the listeners (``/etc/mosquitto/conf.d/popref.conf``)
and the ACL, makes two accounts with fresh random passwords (``popref``, the
daemon's, and ``guest``, which every link carries) hashed by Mosquitto's own
``mosquitto_passwd``, names them in ``[remote]`` of popref's configuration,
and restarts Mosquitto. A ``[remote]`` that already names a broker or a link
is the owner's: it is kept, and so is the password file.

>>> print(remote_keys("pi", {"popref": "p1", "guest": "g1"}))
broker = "mqtt://127.0.0.1:1883"   # written by popref install --broker
user = "popref"
password = "p1"
web_broker = "ws://pi.local:9001"
guest_user = "guest"
guest_password = "g1"
<BLANKLINE>
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from pathlib import Path

from controller.cli.installer import (
    CONFIG,
    SERVICE_ENV,
    Host,
    InstallError,
    Say,
    account_ids,
    installed_config,
    record_config,
    system_file,
    write_file,
)
from controller.daemon.config import load_config
from hardware.errors import ConfigError

MOSQUITTO = Path("usr/sbin/mosquitto")
BROKER_CONF = Path("etc/mosquitto/conf.d/popref.conf")
ACL = Path("etc/mosquitto/popref.acl")
PASSWORDS = Path("etc/mosquitto/popref.passwd")
ACCOUNT = "mosquitto"  # Debian's package runs the broker as this user
DAEMON, GUEST = "popref", "guest"  # the accounts, as the ACL names them
MQTT_PORT, WEB_PORT = 1883, 9001  # as the listeners say
REMOTE_HEADER = re.compile(r"\[remote\]\s*(#.*)?")


def set_up_broker(host: Host, say: Say) -> None:
    """Mosquitto's listeners, ACL and accounts for popref, named in its
    configuration; Mosquitto restarted (live) to take them."""
    if not host.path(MOSQUITTO).exists():
        raise InstallError(
            "--broker: Mosquitto is not installed here: sudo apt install -y mosquitto, "
            "then run popref install --broker again"
        )
    write_file(host, BROKER_CONF, system_file("mosquitto-popref.conf"), say)
    write_file(host, ACL, system_file("mosquitto-popref.acl"), say)
    if _names_a_broker(host):
        say(f"kept [remote] in /{CONFIG}: it names a broker or a link already (yours)")
        if not host.path(PASSWORDS).exists():
            say(f"no /{PASSWORDS}: make its accounts as docs/remote.md says")
    else:
        passwords = {DAEMON: _password(), GUEST: _password()}
        _write_passwords(host, passwords)
        say(f"wrote /{PASSWORDS}: the accounts {DAEMON} and {GUEST}, with new passwords")
        _name_in_config(host, remote_keys(host.hostname, passwords))
        say(f"wrote [remote] in /{CONFIG}: popref's and the link's accounts on it")
    if not host.offline:
        try:
            host.call("systemctl", "restart", "mosquitto")
        except InstallError as error:
            raise InstallError(
                f"Mosquitto did not start ({error}); see why: journalctl -u mosquitto -n 20", 1
            ) from None
        say("restarted mosquitto: friends on this network can be invited from the page")


def remove_broker(host: Host, say: Say) -> None:
    """What :func:`set_up_broker` wrote for Mosquitto, if it is there;
    Mosquitto restarted (live) without it."""
    removed = False
    for relative in (BROKER_CONF, ACL, PASSWORDS):
        if host.path(relative).exists():
            host.path(relative).unlink()
            say(f"removed /{relative}")
            removed = True
    if removed and not host.offline and host.path(MOSQUITTO).exists():
        host.call("systemctl", "restart", "mosquitto")
        say("restarted mosquitto without popref's listeners")


def remote_keys(hostname: str, passwords: dict[str, str]) -> str:
    """``[remote]``'s keys for the broker on this Pi: the daemon on the
    loopback address, the friends' browsers at the Pi's ``.local`` name
    (Avahi answers for it, as for the page)."""
    return (
        f'broker = "mqtt://127.0.0.1:{MQTT_PORT}"   # written by popref install --broker\n'
        f'user = "{DAEMON}"\n'
        f'password = "{passwords[DAEMON]}"\n'
        f'web_broker = "ws://{hostname}.local:{WEB_PORT}"\n'
        f'guest_user = "{GUEST}"\n'
        f'guest_password = "{passwords[GUEST]}"\n'
    )


def _password() -> str:
    # URL-safe: it is written into TOML and, for the guest, into every link
    return secrets.token_urlsafe(18)


def _names_a_broker(host: Host) -> bool:
    config = installed_config(host.path(CONFIG))
    return config.remote.settings is not None or config.remote.join is not None


def _write_passwords(host: Host, passwords: dict[str, str]) -> None:
    """The password file, whole or not at all, hashed by ``mosquitto_passwd
    -U`` (no password on a command line, where ``ps`` shows it); only the
    broker's account reads it, as Mosquitto asks."""
    path = host.path(PASSWORDS)
    owner = _account(host)
    fd, name = tempfile.mkstemp(prefix=".popref.passwd.", dir=path.parent)
    new = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp: mode 600
            handle.writelines(f"{user}:{password}\n" for user, password in passwords.items())
        host.call("mosquitto_passwd", "-U", str(new))
        os.chown(new, *owner)
        new.replace(path)
    except BaseException:
        new.unlink(missing_ok=True)
        raise


def _account(host: Host) -> tuple[int, int]:
    """Mosquitto's user and group ids, from the system's own files."""
    ids = account_ids(host.root, ACCOUNT)
    if ids is not None:
        return ids
    raise InstallError(
        f"--broker: there is no user {ACCOUNT}, which Debian's mosquitto package makes: "
        "sudo apt install --reinstall mosquitto"
    )


def _name_in_config(host: Host, keys: str) -> None:
    """``keys`` at the top of the configuration's ``[remote]`` table (a new
    table at the end when it has none), keeping the file's owner and mode."""
    path = host.path(CONFIG)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if REMOTE_HEADER.fullmatch(line.strip())), None)
    if at is None:
        lines += ["\n[remote]\n", keys]
    else:
        lines.insert(at + 1, keys)
    text = "".join(lines)
    before = path.stat()
    new = path.with_name(f".{path.name}.new")
    # created unreadable to others: it holds the passwords from the first byte
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        load_config(new, SERVICE_ENV)
        os.chown(new, before.st_uid, before.st_gid)
        new.chmod(before.st_mode & 0o777)
        new.replace(path)
    except ConfigError as error:
        raise InstallError(f"--broker: [remote] was not added ({error}); add it by hand") from None
    finally:
        new.unlink(missing_ok=True)
    record_config(host, text)
