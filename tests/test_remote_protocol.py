"""The remote seat's protocol, pure: signatures, messages, links, broker
addresses (docs/remote.md). Hypothesis runs the properties over every kind of
message, key and mutation."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from controller.referee.commands import SEQ_LIMIT
from controller.referee.invitation import Invitation, b64url
from controller.remote.address import BROWSER, TERMINAL, broker_address
from controller.remote.link import Link, LinkError, page_address, parse_link
from controller.remote.message import (
    BOARD,
    KINDS,
    REMOTE,
    REMOTE_LIMIT,
    Message,
    Refused,
    seal,
    signature,
    unseal,
)
from engine import RULES_NAMES
from engine.colour import Colour

keys = st.binary(min_size=32, max_size=32)
games = st.binary(min_size=16, max_size=16).map(b64url)
seqs = st.integers(1, SEQ_LIMIT)
senders = st.sampled_from((BOARD, REMOTE))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
bodies = st.dictionaries(st.text(max_size=10), json_values, max_size=5).map(
    lambda value: json.dumps(value, separators=(",", ":"), ensure_ascii=False)
)


@st.composite
def messages(draw: st.DrawFn) -> Message:
    sender = draw(senders)
    kind = draw(st.sampled_from(KINDS[sender]))
    return Message(draw(games), sender, draw(seqs), kind, draw(bodies))


def fits(message: Message, key: bytes) -> bool:
    return message.sender == BOARD or len(seal(key, message)) <= REMOTE_LIMIT


@given(messages(), keys)
def test_a_sealed_message_opens_with_its_key_as_it_was(message: Message, key: bytes) -> None:
    assume(fits(message, key))
    assert unseal(key, message.game, message.sender, seal(key, message)) == message


@given(messages(), keys, keys)
def test_a_message_signed_with_any_other_key_is_refused(
    message: Message, key: bytes, other: bytes
) -> None:
    assume(key != other and fits(message, other))
    with pytest.raises(Refused) as refused:
        unseal(key, message.game, message.sender, seal(other, message))
    assert refused.value.kind == "forged"


def _mutations(data: st.DataObject, sealed: dict[str, object]) -> dict[str, object]:
    """``sealed`` with one field changed to another value of any kind."""
    field = data.draw(st.sampled_from(sorted(sealed)))
    value = data.draw(
        st.one_of(
            json_values,
            seqs,
            games,
            st.sampled_from((BOARD, REMOTE, "state", "move", "reply", "request", "hello")),
            bodies,
            st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
        )
    )
    assume(value != sealed[field])
    return {**sealed, field: value}


@given(messages(), keys, st.data())
def test_any_change_to_a_signed_message_is_refused(
    message: Message, key: bytes, data: st.DataObject
) -> None:
    assume(fits(message, key))
    sealed = json.loads(seal(key, message))
    mutated = _mutations(data, sealed)
    with pytest.raises(Refused):
        unseal(key, message.game, message.sender, json.dumps(mutated).encode())


@given(messages(), keys, st.binary(max_size=300))
def test_an_unsigned_message_or_any_bytes_at_all_are_refused_never_an_error(
    message: Message, key: bytes, noise: bytes
) -> None:
    unsigned = json.loads(seal(key, message))
    del unsigned["sig"]
    for payload in (json.dumps(unsigned).encode(), noise, b"\0" + noise + seal(key, message)):
        with pytest.raises(Refused):
            unseal(key, message.game, message.sender, payload)


def test_what_is_refused_and_why() -> None:
    key, game = bytes(32), "A" * 22
    good = Message(game, REMOTE, 5, "request", '{"ply":0,"move":"4"}')
    sealed = json.loads(seal(key, good))

    def refused(payload: bytes, sender: str = REMOTE) -> str:
        with pytest.raises(Refused) as caught:
            unseal(key, game, sender, payload)
        return caught.value.kind

    assert refused(json.dumps({**sealed, "game": "B" * 22}).encode()) == "foreign"
    assert refused(seal(key, good), sender=BOARD) == "foreign"
    assert refused(b"x" * (REMOTE_LIMIT + 1)) == "size"
    assert refused(json.dumps({**sealed, "seq": 0}).encode()) == "malformed"
    assert refused(json.dumps({**sealed, "seq": True}).encode()) == "malformed"
    assert refused(json.dumps({**sealed, "kind": "state"}).encode()) == "malformed"
    assert refused(json.dumps({**sealed, "extra": 1}).encode()) == "malformed"
    repeated = seal(key, good)[:-1] + b',"seq":6}'
    assert refused(repeated) == "malformed"
    nan = Message(game, REMOTE, 5, "request", '{"ply":NaN}')
    forged_nan = json.dumps({**sealed, "body": nan.body, "sig": signature(key, nan)}).encode()
    assert refused(forged_nan) == "malformed"


invitations = st.builds(Invitation, games, keys, st.sampled_from(list(Colour)), st.floats(0, 2e9))
optional_text = st.none() | st.text(min_size=1, max_size=20)


@given(
    invitations,
    st.sampled_from(RULES_NAMES),
    st.sampled_from(("mqtt://pi.local:1883", "mqtts://[::1]:8883", None)),
    st.sampled_from(("ws://pi.local:9001", "wss://broker.example.org:443/mqtt", None)),
    optional_text,
    optional_text,
)
def test_a_link_carries_its_invitation_there_and_back(
    invitation: Invitation,
    rules: str,
    broker: str | None,
    web_broker: str | None,
    user: str | None,
    password: str | None,
) -> None:
    assume(broker or web_broker)
    link = Link.of(
        invitation,
        "https://example.org/popref/",
        rules,
        broker=broker,
        web_broker=web_broker,
        user=user,
        password=password,
    )
    assert parse_link(link.url()) == link


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("ftp://x#v=1", "not an invitation link"),
        ("http://x/remote", "not an invitation link"),
        ("http://x#v=2&g=A", "protocol version 2"),
        ("http://x#v=1&g=AAAAAAAAAAAAAAAAAAAAAA", "no secret (k)"),
        ("http://x#v=1&g=AAAA&k=" + "A" * 43 + "&c=red&m=mqtt://a", "damaged"),
        ("http://x#v=1&g=" + "A" * 22 + "&k=" + "A" * 43 + "&c=blue&m=mqtt://a", "neither red"),
        ("http://x#v=1&g=" + "A" * 22 + "&k=" + "A" * 43 + "&c=red", "names no broker"),
        ("http://x#v=1&g=" + "A" * 22 + "&k=" + "A" * 43 + "&c=red&m=ws://a", "broker"),
        ("http://x#v=1&v=1", "twice"),
        ("http://x#" + "a" * 3000, "characters long"),
    ],
)
def test_a_link_that_is_not_an_invitation_says_what_is_wrong(url: str, said: str) -> None:
    with pytest.raises(LinkError, match=re.escape(said)) as error:
        parse_link(url)
    assert "\n" not in str(error.value)
    assert "A" * 43 not in str(error.value)  # never the secret


@pytest.mark.parametrize(
    ("text", "schemes", "wrong"),
    [
        ("mqtt://user:pw@host", TERMINAL, "no user or password"),
        ("mqtt://host/path", TERMINAL, "have a path"),
        ("mqtt://host:99999", TERMINAL, "not a broker address"),
        ("ws://host", TERMINAL, "not a broker address"),
        ("mqtt://host?x=1", TERMINAL, "no ?query"),
        ("mqtt://ho st", TERMINAL, "not a broker address"),
        ("mqtt://-bad-", TERMINAL, "not a broker address"),
        ("mqtt://host", BROWSER, "ws://HOST:PORT"),
    ],
)
def test_a_broker_address_that_is_wrong_says_how_to_write_it(
    text: str, schemes: tuple[str, ...], wrong: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(wrong)):
        broker_address(text, schemes)


def test_the_page_address_of_a_link() -> None:
    assert page_address("https://x.org/p/", ("0.0.0.0", 8080), None, "pi") == "https://x.org/p/"
    assert page_address("", ("192.168.1.2", 8080), None, "pi") == "http://192.168.1.2:8080/remote"
    assert page_address("", ("::1", 80), None, "pi") == "http://[::1]:80/remote"
    assert page_address("", None, "ws://b.lan:9001", "pi") == "http://b.lan:9001/"
    assert page_address("", None, None, "pi") == "http://popref.invalid/remote"
