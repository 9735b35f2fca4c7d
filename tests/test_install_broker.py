"""``popref install --broker`` on a temporary root directory (the harness of
tests/test_install.py): Mosquitto's listeners, ACL and accounts, named in
popref's configuration, and ``popref uninstall`` taking them off. The files
it writes are then served by a real Mosquitto, and the accounts and ACL are
tried with paho-mqtt: the link's guest reads the board and asks for moves,
and can do nothing else."""

from __future__ import annotations

import os
import pwd
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from controller.cli.install import install
from controller.cli.install_broker import ACL, BROKER_CONF, MOSQUITTO, PASSWORDS
from controller.cli.installer import CONFIG, Host, InstallError, system_file
from controller.cli.uninstall import uninstall
from controller.daemon.config import load_config, parse_config
from controller.remote.client import RemoteClient
from controller.remote.link import parse_link
from controller.remote.settings import RemoteSettings
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from tests.broker import MISSING, Mosquitto
from tests.broker import MOSQUITTO as BROKER
from tests.test_install import System, debian_system, live, said, snapshot
from tests.test_remote_seat import play, pump, state

pytestmark = pytest.mark.skipif(BROKER is None, reason=MISSING)

ENV = {"STATE_DIRECTORY": "/var/lib/popref"}
WAIT = 10.0
# Debian's mosquitto package: its binary, and the account the broker runs as
PACKAGE = {
    "etc/passwd": "mosquitto:x:104:112::/var/lib/mosquitto:/usr/sbin/nologin\n",
    "etc/group": "mosquitto:x:112:\n",
}


@pytest.fixture
def broker_root(tmp_path: Path) -> Path:
    """The Debian root of tests/test_install.py with Mosquitto's package in it."""
    root = debian_system(tmp_path)
    (root / MOSQUITTO).parent.mkdir(parents=True)
    (root / MOSQUITTO).write_text("#!/bin/sh\n")
    for name, line in PACKAGE.items():
        with (root / name).open("a") as accounts:
            accounts.write(line)
    return root


def remote_settings(root: Path) -> RemoteSettings:
    settings = load_config(root / CONFIG, ENV).remote.settings
    assert settings is not None
    return settings


def test_it_sets_up_mosquitto_names_it_in_the_configuration_and_restarts_both(
    broker_root: Path,
) -> None:
    system = System(broker_root)
    lines = said(install, live(broker_root, system), broker=True)
    restarts = [c for c in system.commands if c[:2] == ["systemctl", "restart"]]
    # Mosquitto first: the service reads [remote] as it starts
    assert restarts == [
        ["systemctl", "restart", "mosquitto"],
        ["systemctl", "restart", "popref.service"],
    ]
    assert "restarted mosquitto: friends on this network can be invited from the page" in lines
    settings = remote_settings(broker_root)
    assert settings.broker.url == "mqtt://127.0.0.1:1883"
    assert settings.web_broker == "ws://raspberrypi.local:9001"
    assert settings.account is not None and settings.account.user == "popref"
    assert settings.guest.user == "guest" and settings.guest.password
    assert settings.guest.password != settings.account.password
    passwords = (broker_root / PASSWORDS).stat()
    assert (passwords.st_uid, passwords.st_gid) == (104, 112)  # the broker's account
    assert stat.S_IMODE(passwords.st_mode) == 0o600
    hashed = (broker_root / PASSWORDS).read_text()
    assert settings.guest.password not in hashed and hashed.count("$7$") == 2
    config = (broker_root / CONFIG).stat()
    assert stat.S_IMODE(config.st_mode) == 0o640 and config.st_uid == 0


def test_installing_again_keeps_the_accounts(broker_root: Path) -> None:
    install(live(broker_root), print, broker=True)
    before = snapshot(broker_root)
    lines = said(install, live(broker_root), broker=True)
    assert snapshot(broker_root) == before
    kept = "kept [remote] in /etc/popref/config.toml: it names a broker or a link already (yours)"
    assert kept in lines


def test_a_remote_table_of_the_owner_s_is_kept(broker_root: Path) -> None:
    mine = '[remote]\nbroker = "mqtts://broker.example.org:8883"\n'
    (broker_root / CONFIG).parent.mkdir(parents=True)
    (broker_root / CONFIG).write_text(mine)
    lines = said(install, live(broker_root), broker=True)
    assert (broker_root / CONFIG).read_text() == mine
    assert not (broker_root / PASSWORDS).exists()
    assert "no /etc/mosquitto/popref.passwd: make its accounts as docs/remote.md says" in lines


def test_without_mosquitto_it_says_how_to_install_it(broker_root: Path) -> None:
    (broker_root / MOSQUITTO).unlink()
    with pytest.raises(InstallError) as raised:
        install(live(broker_root), print, broker=True)
    assert str(raised.value) == (
        "--broker: Mosquitto is not installed here: sudo apt install -y mosquitto, "
        "then run popref install --broker again"
    )
    assert raised.value.status == 2
    assert not (broker_root / BROKER_CONF).exists()


def test_a_system_image_gets_the_files_and_no_restart(broker_root: Path) -> None:
    system = System(broker_root)
    image = Host(broker_root, offline=True, run=system, euid=0, hostname="grid")
    install(image, print, broker=True)
    assert ["systemctl", "restart", "mosquitto"] not in system.commands
    assert remote_settings(broker_root).web_broker == "ws://grid.local:9001"


def test_uninstall_takes_it_all_off_the_configuration_too(broker_root: Path) -> None:
    install(live(broker_root), print, broker=True)
    system = System(broker_root)
    lines = said(uninstall, live(broker_root, system))
    for relative in (BROKER_CONF, ACL, PASSWORDS):
        assert not (broker_root / relative).exists()
        assert f"removed /{relative}" in lines
    assert ["systemctl", "restart", "mosquitto"] in system.commands
    # install wrote [remote] into it: uninstall knows it as its own
    assert "removed /etc/popref/config.toml" in lines


def test_a_configuration_changed_since_is_kept_by_uninstall(broker_root: Path) -> None:
    install(live(broker_root), print, broker=True)
    with (broker_root / CONFIG).open("a") as config:
        config.write("# mine\n")
    lines = said(uninstall, live(broker_root))
    assert "kept /etc/popref/config.toml: you changed it (--purge removes it)" in lines


# -- the files, served by a real Mosquitto ----------------------------------------------


@pytest.fixture
def served(broker_root: Path, tmp_path: Path) -> Iterator[tuple[Mosquitto, RemoteSettings]]:
    """A real Mosquitto with the installed listeners (on free ports), ACL
    and password file."""
    install(live(broker_root), print, broker=True)
    broker = Mosquitto(tmp_path)
    conf = (broker_root / BROKER_CONF).read_text()
    conf = conf.replace("listener 1883", f"listener {broker.port} 127.0.0.1")
    conf = conf.replace("listener 9001", f"listener {broker.ws_port} 127.0.0.1")
    conf = conf.replace("/etc/mosquitto/", f"{broker_root}/etc/mosquitto/")
    broker.config.write_text(
        conf + f"user {pwd.getpwuid(os.getuid()).pw_name}\npersistence false\n"
        "log_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
    )
    broker.start()
    try:
        yield broker, remote_settings(broker_root)
    finally:
        broker.stop()


class Client:
    """A paho client of one account, which keeps what it receives."""

    def __init__(self, broker: Mosquitto, user: str | None, password: str | None) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if user is not None:
            self.client.username_pw_set(user, password)
        self.got: list[tuple[str, bytes]] = []
        self.lock = threading.Condition()
        self.connected = threading.Event()
        self.refused = threading.Event()
        self.client.on_connect = self._connected
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def _connected(self, *args: object) -> None:
        reason = args[3]  # client, userdata, flags, reason code, properties
        assert isinstance(reason, ReasonCode)
        (self.refused if reason.is_failure else self.connected).set()

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.got.append((message.topic, bytes(message.payload)))
            self.lock.notify_all()

    def has(self, message: tuple[str, bytes]) -> bool:
        """Whether ``message`` arrives within WAIT seconds."""
        with self.lock:
            return self.lock.wait_for(lambda: message in self.got, WAIT)

    def subscribe(self, topic: str) -> None:
        assert self.connected.wait(WAIT)
        done = threading.Event()
        self.client.on_subscribe = lambda *args: done.set()
        self.client.subscribe(topic, qos=1)
        assert done.wait(WAIT)

    def publish(self, topic: str, payload: bytes) -> None:
        assert self.connected.wait(WAIT)
        self.client.publish(topic, payload, qos=1).wait_for_publish(WAIT)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_the_accounts_and_the_acl_work_on_a_real_mosquitto(
    served: tuple[Mosquitto, RemoteSettings],
) -> None:
    broker, settings = served
    assert settings.account is not None
    board = Client(broker, settings.account.user, settings.account.password)
    guest = Client(broker, settings.guest.user, settings.guest.password)
    stranger = Client(broker, None, None)
    wrong = Client(broker, "guest", "not the password")
    try:
        assert stranger.refused.wait(WAIT) and wrong.refused.wait(WAIT)
        board.subscribe("popref/1/g/#")
        guest.subscribe("popref/1/g/#")
        # the guest asks for moves; its forged state and board messages go nowhere
        guest.publish("popref/1/g/state", b"forged state")
        guest.publish("popref/1/g/board", b"forged move")
        guest.publish("popref/1/g/remote", b"a request")
        # the board reads the friend's request and says the state, which the guest reads
        board.publish("popref/1/g/state", b"the state")
        assert guest.has(("popref/1/g/state", b"the state"))
        # each client's messages arrive in order: the request came after the forgeries
        assert board.has(("popref/1/g/remote", b"a request"))
        assert [payload for _, payload in board.got if payload.startswith(b"forged")] == []
        assert [payload for _, payload in guest.got if payload.startswith(b"forged")] == []
    finally:
        for client in (board, guest, stranger, wrong):
            client.close()


def test_docs_remote_md_shows_the_files_it_writes() -> None:
    """The settings docs/remote.md gives for a Mosquitto set up by hand are
    those of the files ``--broker`` writes, line for line."""
    text = Path(__file__).parent.parent.joinpath("docs/remote.md").read_text(encoding="utf-8")
    home = text[text.index("**On the Pi, for the home network.**") :]
    blocks = re.findall(r"```text\n(.*?)```", home, re.DOTALL)[:2]
    for shown, name in zip(blocks, ("mosquitto-popref.conf", "mosquitto-popref.acl"), strict=True):
        settings = [line for line in system_file(name).splitlines() if not line.startswith("#")]
        assert shown.splitlines() == settings


def test_a_friend_plays_through_the_broker_it_set_up(
    served: tuple[Mosquitto, RemoteSettings], tmp_path: Path
) -> None:
    """The whole protocol through those accounts and that ACL: the board's
    state, moves, replies, presence and will as ``popref``, the friend's
    hello and requests as the link's guest."""
    broker, settings = served
    assert settings.account is not None
    remote = {
        "broker": f"mqtt://127.0.0.1:{broker.port}",
        "user": settings.account.user,
        "password": settings.account.password,
        "guest_user": settings.guest.user,
        "guest_password": settings.guest.password,
    }
    config = parse_config({"remote": remote}, "config.toml")
    sim = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    try:
        link = parse_link(sim.links[-1])
        assert (link.user, link.password) == (settings.guest.user, settings.guest.password)
        friend = RemoteClient(link, name="friend")
        friend.start()
        try:
            assert pump(sim, friend, lambda: friend.state is not None)
            play(sim, friend, 4, 4, 5, 5, 6, 6, 7)  # Yellow's moves asked for by the friend
            assert pump(sim, friend, lambda: state(friend)["result"] == "red")
        finally:
            friend.close()
    finally:
        sim.close()


def test_without_the_broker_s_own_user_it_says_how_to_get_it(broker_root: Path) -> None:
    passwd = broker_root / "etc/passwd"
    passwd.write_text(passwd.read_text().replace(PACKAGE["etc/passwd"], ""))
    with pytest.raises(InstallError) as raised:
        install(live(broker_root), print, broker=True)
    assert str(raised.value) == (
        "--broker: there is no user mosquitto, which Debian's mosquitto package makes: "
        "sudo apt install --reinstall mosquitto"
    )
    assert raised.value.status == 2
    assert not (broker_root / PASSWORDS).exists()  # nothing half made


def test_a_broker_that_does_not_start_is_one_line_with_where_to_look(broker_root: Path) -> None:
    system = System(broker_root, failing="systemctl restart mosquitto")
    with pytest.raises(InstallError) as raised:
        install(live(broker_root, system), print, broker=True)
    assert raised.value.status == 1
    assert str(raised.value) == (
        "Mosquitto did not start (systemctl restart mosquitto failed (status 1): "
        "Job failed. See journalctl.); see why: journalctl -u mosquitto -n 20"
    )
