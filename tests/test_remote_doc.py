"""docs/remote.md's test vectors are what the code signs and links, to the
byte: the section cannot drift from the protocol."""

from __future__ import annotations

import json
import re
from pathlib import Path

from controller.referee.invitation import Invitation, b64url
from controller.remote.link import Link, parse_link
from controller.remote.message import DOMAIN, Message, seal, unseal
from engine.colour import Colour

DOC = Path(__file__).resolve().parent.parent / "docs" / "remote.md"


def vectors() -> list[str]:
    found = re.search(r"```text vectors\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert found, "docs/remote.md has no ```text vectors block"
    return found[1].splitlines()


def test_the_documented_messages_are_signed_as_the_code_signs_them() -> None:
    lines = vectors()
    key = bytes.fromhex(lines[0].removeprefix("key "))
    game = lines[1].removeprefix("game ")
    assert key == bytes(range(32)) and len(game) == 22
    messages = [line for line in lines if line.startswith("{")]
    assert len(messages) >= 5
    for line in messages:
        data = json.loads(line)
        message = unseal(key, game, data["from"], line.encode())
        assert seal(key, message) == line.encode()
    second = json.loads(messages[1])
    signed = json.loads(lines[2].removeprefix("signed "))
    parts = (DOMAIN, game, second["from"], second["kind"], str(second["seq"]), second["body"])
    assert signed == "\n".join(parts)


def test_the_documented_link_is_the_one_the_code_makes() -> None:
    lines = vectors()
    key = bytes.fromhex(lines[0].removeprefix("key "))
    game = lines[1].removeprefix("game ")
    url = next(line for line in lines if line.startswith("link ")).removeprefix("link ")
    made = Link.of(
        Invitation(game, key, Colour.YELLOW, 0.0),
        "http://raspberrypi.local:8080/remote",
        "classic",
        broker="mqtt://raspberrypi.local:1883",
        web_broker="ws://raspberrypi.local:9001",
    )
    assert made.url() == url and parse_link(url) == made


def test_the_documented_signature_is_checked_byte_for_byte() -> None:
    lines = vectors()
    key = bytes.fromhex(lines[0].removeprefix("key "))
    message = Message(
        lines[1].removeprefix("game "), "remote", 2, "request", '{"ply":1,"move":"4"}'
    )
    assert seal(key, message).decode() == lines[4]


def test_the_documented_next_game_is_the_one_the_code_derives() -> None:
    lines = vectors()
    key = bytes.fromhex(lines[0].removeprefix("key "))
    game, secret = next(line for line in lines if line.startswith("sequel ")).split()[1:]
    after = Invitation(lines[1].removeprefix("game "), key, Colour.YELLOW, 0.0).sequel(1.0)
    assert (after.game, b64url(after.key)) == (game, secret)
