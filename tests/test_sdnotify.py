"""The notify protocol reaches a real datagram socket, on a path or an abstract name."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.daemon.sdnotify import Notifier


class Listener:
    """A stand-in for systemd's end of the notify socket: a real bound datagram socket."""

    def __init__(self, address: str) -> None:
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(address)
        self.socket.settimeout(5)

    def receive(self) -> str:
        return self.socket.recv(4096).decode()

    def nothing_waiting(self) -> bool:
        self.socket.setblocking(False)
        try:
            self.socket.recv(4096)
        except BlockingIOError:
            return True
        finally:
            self.socket.settimeout(5)
        return False


@pytest.fixture
def path_listener(tmp_path: Path) -> Iterator[tuple[str, Listener]]:
    address = str(tmp_path / "notify")
    listener = Listener(address)
    yield address, listener
    listener.socket.close()


@pytest.fixture
def abstract_listener() -> Iterator[tuple[str, Listener]]:
    name = f"popref-test-{uuid.uuid4().hex}"
    listener = Listener("\0" + name)
    yield "@" + name, listener
    listener.socket.close()


@pytest.mark.parametrize("which", ["path_listener", "abstract_listener"])
def test_every_message_arrives_as_one_datagram(which: str, request: pytest.FixtureRequest) -> None:
    variable, listener = request.getfixturevalue(which)
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": variable})
    assert notifier.enabled
    assert notifier.ready()
    assert notifier.status("Yellow to move, Pop 10 3:2")
    assert notifier.watchdog()
    assert notifier.stopping()
    assert [listener.receive() for _ in range(4)] == [
        "READY=1",
        "STATUS=Yellow to move, Pop 10 3:2",
        "WATCHDOG=1",
        "STOPPING=1",
    ]
    notifier.close()


def test_a_status_never_carries_a_second_assignment(path_listener: tuple[str, Listener]) -> None:
    variable, listener = path_listener
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": variable})
    assert notifier.status("Red to move\nREADY=1")
    assert listener.receive() == "STATUS=Red to move READY=1"


def test_the_socket_reopens_after_close(path_listener: tuple[str, Listener]) -> None:
    variable, listener = path_listener
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": variable})
    assert notifier.watchdog()
    notifier.close()
    assert notifier.watchdog()
    assert [listener.receive(), listener.receive()] == ["WATCHDOG=1", "WATCHDOG=1"]


@pytest.mark.parametrize("value", [None, "", "relative/path", "vsock:2:1234"])
def test_without_a_usable_socket_everything_is_a_quiet_no_op(value: str | None) -> None:
    env = {} if value is None else {"NOTIFY_SOCKET": value}
    notifier = Notifier.from_environment(env)
    assert not notifier.enabled
    assert (notifier.ready(), notifier.status("x"), notifier.watchdog(), notifier.stopping()) == (
        False,
        False,
        False,
        False,
    )


def test_a_listener_that_went_away_makes_sends_fail_without_raising(
    path_listener: tuple[str, Listener],
) -> None:
    variable, listener = path_listener
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": variable})
    assert notifier.ready()
    listener.socket.close()
    os.unlink(variable)
    assert notifier.watchdog() is False
    assert notifier.status("still alive") is False


def test_a_socket_that_is_not_a_socket_fails_quietly(tmp_path: Path) -> None:
    plain = tmp_path / "plain-file"
    plain.write_text("")
    assert Notifier.from_environment({"NOTIFY_SOCKET": str(plain)}).ready() is False


def test_the_default_environment_is_the_process_environment(
    monkeypatch: pytest.MonkeyPatch, path_listener: tuple[str, Listener]
) -> None:
    variable, listener = path_listener
    monkeypatch.setenv("NOTIFY_SOCKET", variable)
    monkeypatch.setenv("WATCHDOG_USEC", "4000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    notifier = Notifier.from_environment()
    assert notifier.watchdog_interval() == 2.0
    assert notifier.ready()
    assert listener.receive() == "READY=1"
    assert listener.nothing_waiting()


@pytest.mark.parametrize(
    ("env", "interval"),
    [
        ({"WATCHDOG_USEC": "10000000"}, 5.0),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "4242"}, 5.0),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "4243"}, None),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "not a pid"}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "-5"}, None),
        ({"WATCHDOG_USEC": "ten"}, None),
        ({"WATCHDOG_PID": "4242"}, None),
        ({}, None),
    ],
)
def test_the_watchdog_interval_is_half_the_timeout_for_our_process_only(
    env: dict[str, str], interval: float | None
) -> None:
    assert Notifier.from_environment(env, pid=4242).watchdog_interval() == interval
