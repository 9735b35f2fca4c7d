"""The fault-injecting MQTT proxy (bench/soaklib/mqttproxy.py) between paho
clients and a real Mosquitto: everything passes untouched until told, then
each fault does what it says. The framing underneath is checked over every
packet stream Hypothesis makes."""

from __future__ import annotations

import io
import queue
import socket
import threading
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from paho.mqtt.enums import CallbackAPIVersion

from bench.soaklib.mqttframes import (
    DUP,
    MOST,
    PUBLISH,
    Malformed,
    as_copy,
    encode_length,
    read_packet,
)
from bench.soaklib.mqttproxy import BOUND, DOWN, UP, Mix, MqttProxy
from hardware.clock import FakeClock
from tests.broker import Mosquitto

WAIT = 20.0  # seconds any step may take on a loaded machine


class Peer:
    """A paho client whose messages and connections land in queues."""

    def __init__(self, port: int, name: str, topic: str | None = None) -> None:
        self.messages: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
        self.connected = threading.Event()
        self.connections = 0
        self.lost = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name)
        self.client.reconnect_delay_set(1, 1)
        self.client.on_connect = self._connect
        self.client.on_disconnect = self._disconnect
        self.client.on_message = lambda _c, _u, message: self.messages.put(message)
        # the broker has the subscription: a message published after this
        # reaches the peer (a sender on the broker itself could otherwise
        # overtake a SUBSCRIBE still crossing the proxy, and the message was lost)
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.topic = topic
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()
        assert self.connected.wait(WAIT)
        if topic is not None:
            assert self.subscribed.wait(WAIT)

    def _connect(self, client: mqtt.Client, *_: object) -> None:
        self.connections += 1
        if self.topic is not None:
            client.subscribe(self.topic, qos=1)
        self.connected.set()

    def _disconnect(self, *_: object) -> None:
        self.connected.clear()
        self.lost.set()

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(WAIT)

    def receive(self) -> bytes:
        return bytes(self.messages.get(timeout=WAIT).payload)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def proxy(mosquitto: Mosquitto, clock: FakeClock) -> Iterator[MqttProxy]:
    served = MqttProxy(("127.0.0.1", mosquitto.port), seed=1, clock=clock)
    served.start()
    try:
        yield served
    finally:
        served.close()


@pytest.fixture
def peers(mosquitto: Mosquitto, proxy: MqttProxy) -> Iterator[tuple[Peer, Peer]]:
    """A sender through the proxy and a listener straight on the broker; a
    message through the proxy has arrived once the listener subscribed."""
    listener = Peer(mosquitto.port, "listener", "t/#")
    sender = Peer(proxy.port, "sender")
    try:
        sender.publish("t/ready", b"ready")
        assert listener.receive() == b"ready"
        yield sender, listener
    finally:
        sender.close()
        listener.close()


def test_everything_passes_untouched_until_told(peers: tuple[Peer, Peer]) -> None:
    sender, listener = peers
    big = bytes(range(256)) * 80  # a remaining length of three bytes
    for payload in (b"a", big, b"b"):
        sender.publish("t/x", payload)
    assert [listener.receive() for _ in range(3)] == [b"a", big, b"b"]


def test_a_duplicate_arrives_twice(peers: tuple[Peer, Peer], proxy: MqttProxy) -> None:
    sender, listener = peers
    proxy.duplicate(direction=UP)
    sender.publish("t/x", b"once")
    sender.publish("t/x", b"next")
    assert [listener.receive() for _ in range(3)] == [b"once", b"once", b"next"]
    assert proxy.counts["duplicate"] == 1


def test_a_duplicate_towards_the_client_arrives_twice(
    mosquitto: Mosquitto, proxy: MqttProxy
) -> None:
    listener = Peer(proxy.port, "far listener", "t/#")
    sender = Peer(mosquitto.port, "near sender")
    try:
        sender.publish("t/ready", b"ready")
        assert listener.receive() == b"ready"
        proxy.duplicate(direction=DOWN)
        sender.publish("t/x", b"twice")
        first, second = (listener.messages.get(timeout=WAIT) for _ in range(2))
        assert (first.payload, second.payload) == (b"twice", b"twice")
        assert (first.dup, second.dup) == (False, True)
    finally:
        sender.close()
        listener.close()


def test_a_held_message_arrives_after_the_next(peers: tuple[Peer, Peer], proxy: MqttProxy) -> None:
    sender, listener = peers
    proxy.reorder(direction=UP)
    sender.client.publish("t/x", b"first", qos=1)
    sender.publish("t/x", b"second")
    assert [listener.receive() for _ in range(2)] == [b"second", b"first"]


def test_a_held_message_with_none_after_it_leaves_at_its_deadline(
    peers: tuple[Peer, Peer], proxy: MqttProxy, clock: FakeClock
) -> None:
    sender, listener = peers
    proxy.reorder(direction=UP)
    sender.client.publish("t/x", b"alone", qos=1)
    assert proxy.wait_for(lambda: proxy.counts["reorder"] == 1, WAIT)
    assert listener.messages.empty()  # the proxy holds it: it cannot have arrived
    clock.advance(2.0)
    proxy.poke()
    assert listener.receive() == b"alone"


def test_a_delayed_message_and_those_behind_it_wait_their_time(
    peers: tuple[Peer, Peer], proxy: MqttProxy, clock: FakeClock
) -> None:
    sender, listener = peers
    proxy.delay(30.0, direction=UP)
    sender.client.publish("t/x", b"late", qos=1)
    sender.client.publish("t/x", b"behind", qos=1)
    assert proxy.wait_for(lambda: proxy.counts["publish UP"] == 3, WAIT)
    assert listener.messages.empty()
    clock.advance(29.0)
    proxy.poke()
    assert listener.messages.empty()
    clock.advance(1.0)
    proxy.poke()
    assert [listener.receive() for _ in range(2)] == [b"late", b"behind"]
    assert proxy.counts["delay"] == 1


def test_a_cut_client_reconnects_after_the_refusal_ends(
    peers: tuple[Peer, Peer], proxy: MqttProxy, clock: FakeClock
) -> None:
    sender, listener = peers
    proxy.cut(10.0)
    assert sender.lost.wait(WAIT)
    # paho tries again every second; each attempt is refused while the cut lasts
    assert proxy.wait_for(lambda: proxy.counts["refused"] >= 2, WAIT)
    assert not sender.connected.is_set()
    # refused: reset at once, which the kernel may report to connect() or to recv()
    address = ("127.0.0.1", proxy.port)
    with (
        pytest.raises(ConnectionResetError),
        socket.create_connection(address, timeout=WAIT) as probe,
    ):
        probe.recv(1)
    clock.advance(10.0)
    assert sender.connected.wait(WAIT)
    assert sender.connections == 2
    sender.publish("t/x", b"after")
    assert listener.receive() == b"after"


def test_a_cut_without_a_duration_lasts_until_healed(
    peers: tuple[Peer, Peer], proxy: MqttProxy, clock: FakeClock
) -> None:
    sender, _ = peers
    proxy.cut()
    assert proxy.wait_for(lambda: proxy.counts["refused"] >= 1, WAIT)
    clock.advance(1e6)
    assert proxy.refusing()
    proxy.heal()
    assert sender.connected.wait(WAIT)


def test_a_seeded_mix_faults_the_same_publishes_each_run(
    mosquitto: Mosquitto, clock: FakeClock
) -> None:
    def run() -> tuple[list[bytes], dict[str, int]]:
        proxy = MqttProxy(("127.0.0.1", mosquitto.port), seed=5, clock=clock)
        proxy.start()
        listener = Peer(mosquitto.port, "mix listener", "m/#")
        sender = Peer(proxy.port, "mix sender")
        try:
            sender.publish("m/ready", b"ready")
            assert listener.receive() == b"ready"
            proxy.mix(Mix(duplicate=0.3, reorder=0.3, delays=(0.0, 0.0), directions=(UP,)))
            for n in range(20):
                sender.client.publish("m/x", b"%d" % n, qos=1)
            assert proxy.wait_for(lambda: proxy.counts["publish UP"] == 21, WAIT)
            clock.advance(2.0)  # a held one with none after it leaves
            proxy.poke()
            published = 20 + proxy.counts["duplicate"]
            got = [listener.receive() for _ in range(published)]
            return got, {k: proxy.counts[k] for k in ("duplicate", "reorder")}
        finally:
            sender.close()
            listener.close()
            proxy.close()

    first, faults = run()
    assert (first, faults) == run()
    assert faults["duplicate"] and faults["reorder"]
    assert sorted(set(first), key=int) == [b"%d" % n for n in range(20)]


def test_a_packet_over_the_bound_cuts_its_connection(proxy: MqttProxy) -> None:
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=WAIT) as raw:
        raw.sendall(bytes([PUBLISH << 4]) + encode_length(BOUND + 1))
        assert raw.recv(1) == b""


# -- the framing ----------------------------------------------------------------------------

packets = st.builds(
    lambda head, body: bytes([head]) + encode_length(len(body)) + body,
    st.integers(0x10, 0xFF),
    st.binary(max_size=400),
)


@given(st.lists(packets, max_size=8), st.integers(1, 64))
def test_any_stream_of_packets_is_cut_back_into_the_same_packets(
    sent: list[bytes], chunk: int
) -> None:
    stream = io.BufferedReader(_Trickle(b"".join(sent), chunk))  # arrives in small pieces
    got = []
    while (packet := read_packet(stream.read)) is not None:
        got.append(packet)
    assert got == sent


@given(st.integers(0, MOST))
def test_every_remaining_length_reads_back(length: int) -> None:
    encoded = encode_length(length)
    assert 1 <= len(encoded) <= 4
    if length == 0:
        assert read_packet(io.BytesIO(b"\xd0" + encoded).read) == b"\xd0\x00"
    else:  # the bound's complaint says the length read, before reading the packet
        with pytest.raises(Malformed, match=f"a packet of {length} bytes"):
            read_packet(io.BytesIO(b"\x30" + encoded).read, most=length - 1)


def test_malformed_streams_are_refused_never_read_past() -> None:
    with pytest.raises(Malformed, match="longer than four"):
        read_packet(io.BytesIO(b"\x30\xff\xff\xff\xff\x01").read)
    with pytest.raises(Malformed, match="inside a fixed header"):
        read_packet(io.BytesIO(b"\x30\x80").read)
    with pytest.raises(Malformed, match="over the bound"):
        read_packet(io.BytesIO(b"\x30" + encode_length(11)).read, most=10)
    with pytest.raises(ValueError):
        encode_length(MOST + 1)


@given(st.integers(0, 15), st.binary(max_size=20))
def test_a_copy_is_marked_dup_only_where_its_quality_of_service_allows(
    flags: int, body: bytes
) -> None:
    packet = bytes([PUBLISH << 4 | flags]) + encode_length(len(body)) + body
    copy = as_copy(packet)
    assert copy[1:] == packet[1:]
    assert copy[0] == (packet[0] | DUP if flags & 0x06 else packet[0])


class _Trickle(io.RawIOBase):
    """A raw stream that gives at most ``chunk`` bytes a read, like a socket."""

    def __init__(self, data: bytes, chunk: int) -> None:
        self._data = memoryview(data)
        self._chunk = chunk

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        size = min(len(buffer), self._chunk, len(self._data))
        buffer[:size] = self._data[:size]
        self._data = self._data[size:]
        return size
