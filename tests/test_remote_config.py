"""``[remote]`` in the configuration: checked like every table, one line
naming the file and the key."""

from __future__ import annotations

import pytest

from controller.daemon.config import parse_config
from engine.colour import Colour
from hardware.errors import ConfigError


def test_a_remote_seat_with_its_broker_and_guest_account() -> None:
    config = parse_config(
        {
            "remote": {
                "broker": "mqtts://broker.example.org",
                "user": "popref",
                "password": "secret",
                "ca_file": "/etc/ssl/private-ca.pem",
                "web_broker": "wss://broker.example.org:8081/mqtt",
                "guest_user": "guest",
                "guest_password": "guest-secret",
                "plays": "yellow",
                "page": "https://broker.example.org:8081/",
            }
        },
        "config.toml",
    )
    remote = config.remote
    assert remote.plays is Colour.YELLOW and remote.settings is not None
    assert remote.settings.broker.url == "mqtts://broker.example.org:8883"
    assert remote.settings.account.user == "popref" and remote.settings.guest.user == "guest"
    assert remote.settings.web_broker == "wss://broker.example.org:8081/mqtt"
    assert "secret" not in repr(remote)  # no password in a log or a traceback


def test_no_remote_table_no_remote_seat() -> None:
    assert parse_config({}, "config.toml").remote.settings is None
    assert parse_config({"remote": {"plays": "none"}}, "c.toml").remote.settings is None


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"plays": "red"}, "[remote] plays: a remote player needs a broker: set broker = "),
        ({"broker": "mqtt://a", "plays": "blue"}, "[remote] plays: 'blue' is not a colour"),
        ({"broker": "ws://a:9001"}, "[remote] broker: 'ws://a:9001' is not a broker address"),
        ({"broker": "mqtt://a", "web_broker": "mqtt://a"}, "[remote] web_broker: 'mqtt://a'"),
        ({"broker": "mqtt://u:p@a"}, "[remote] broker: mqtt://...: put no user or password"),
        ({"broker": "mqtt://a", "password": "x"}, "[remote] password: is for user; set user"),
        ({"broker": "mqtt://a", "guest_password": "x"}, "[remote] guest_password: is for"),
        ({"broker": "mqtt://a", "ca_file": "/x"}, "[remote] ca_file: is for an mqtts:// broker"),
        ({"broker": "mqtt://a", "page": "pi.local"}, "[remote] page: 'pi.local' is not a page"),
        ({"broker": "mqtt://a", "page": "http://a/#x"}, "[remote] page: "),
        ({"broker": "mqtt://a", "port": 1883}, "[remote] port: unknown key; known keys are"),
        ({"broker": 1883}, "[remote] broker: must be a non-empty string"),
        ({"broker": "mqtt://a", "user": ""}, "[remote] user: must be a non-empty string"),
        ({"web_broker": "ws://a"}, "[remote] web_broker: a remote player needs a broker"),
    ],
)
def test_a_mistake_in_remote_is_one_line_naming_the_file_and_key(
    table: dict[str, object], said: str
) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config({"remote": table}, "config.toml")
    assert str(error.value).startswith(f"config.toml: {said}")
    assert "\n" not in str(error.value)


def test_the_computer_and_a_friend_cannot_play_the_same_colour() -> None:
    with pytest.raises(ConfigError, match=r"\[remote\] plays: the computer plays red"):
        parse_config(
            {"opponent": {"plays": "red"}, "remote": {"broker": "mqtt://a", "plays": "red"}},
            "config.toml",
        )


LINK = (
    "http://pi.local:8080/remote#v=1&g=AAECAwQFBgcICQoLDA0ODw"
    "&k=AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8&c=yellow&r=classic"
    "&m=mqtt%3A%2F%2Fpi.local%3A1883"
)


def test_a_grid_joins_another_s_game_with_its_link_and_no_broker_of_its_own() -> None:
    remote = parse_config({"remote": {"join": LINK}}, "config.toml").remote
    assert remote.join == LINK and remote.settings is None


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"join": LINK, "broker": "mqtt://127.0.0.1"}, "joins another grid's game"),
        ({"join": LINK.split("&k=")[0]}, "cut short"),
        ({"join": LINK.replace("&m=mqtt%3A%2F%2Fpi.local%3A1883", "&w=ws%3A%2F%2Fpi")}, "(m)"),
    ],
)
def test_a_join_that_cannot_work_is_one_line(table: dict[str, str], said: str) -> None:
    with pytest.raises(ConfigError, match="join") as raised:
        parse_config({"remote": table}, "config.toml")
    assert said in str(raised.value) and "\n" not in str(raised.value)
