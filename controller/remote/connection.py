"""One connection to an MQTT broker, on a network thread of its own (paho's),
which reconnects by itself. Nothing here blocks its caller on the broker:
``publish`` queues (a bounded number of messages while the broker is away),
and what arrives is handed to ``on_message`` on the network thread, which
must only check and enqueue.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import socket
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.remote.address import BrokerAddress
from controller.remote.settings import Account
from controller.remote.trouble import ended, failed

log = logging.getLogger("popref")

KEEPALIVE = 60  # seconds; the broker drops a client silent for 1.5 times this
# How long the network thread waits for traffic at a time. paho's own thread
# wakes every second; this one only for traffic and, while idle, four times a
# keepalive, so a ping is never due long before it is sent.
IDLE_WAIT = KEEPALIVE / 4
QUEUED = 32  # messages kept while the broker is away; the retained state heals the rest
RECONNECT = (1, 8)  # seconds between attempts to reach the broker again, doubling


def _raw(sock: Any) -> Any:
    """The operating system's socket: under WebSockets, paho's wrapper holds it."""
    return getattr(sock, "_socket", sock)


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Send each message at once. Without TCP_NODELAY (paho does not set it)
    a message written while the acknowledgement of the last one is in flight
    waits for the peer's delayed ACK: 40 ms on Linux, measured by
    bench/remote.py (a request took 42 ms to reach the board, the broker's
    own round trip 0.5 ms)."""
    with contextlib.suppress(OSError, AttributeError):
        _raw(sock).setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _Client(mqtt.Client):
    def _thread_main(self) -> None:
        # paho's own thread body with a long wait: no wake-ups while idle
        try:
            self.loop_forever(timeout=IDLE_WAIT, retry_first_connection=True)
        finally:
            self._thread = None


class Connection:
    """A broker connection for one side of the protocol (``name`` says which,
    in the log and the broker's client id)."""

    def __init__(
        self,
        address: BrokerAddress,
        name: str,
        on_message: Callable[[str, bytes], None],
        on_connected: Callable[[], None] = lambda: None,
        account: Account | None = None,
        will: Callable[[str], tuple[str, bytes] | None] | None = None,
        retain_will: bool = True,
    ) -> None:
        self.address = address
        # the will for a connection named ``conn``: its topic and payload, left
        # with the broker to publish if that connection dies without a goodbye
        self._will = will
        # a grid's presence is retained, so a side that starts again learns from
        # the broker whether the other one left (docs/remote.md); a person's not
        self._retain_will = retain_will
        self._next_conn = secrets.token_hex(8)
        self.conn = ""  # the name of the connection up now (its will names it)
        # told, on the network thread, when the connection comes or goes (the lights say so)
        self.on_change: Callable[[], None] = lambda: None
        self._on_message = on_message
        self._on_connected = on_connected
        self._topics: set[str] = set()
        self._lock = threading.Lock()  # the topics, from the loop and the network thread
        self._subscribed = False  # the connection up has been given the topics (under _lock)
        self.connected = threading.Event()
        self._lost_said = False
        self.trouble: str | None = None  # why the broker is away, while it is
        self._refusal: str | None = None  # the broker's answer to the attempt, a refusal
        self._closing = False
        # the connection is being made again for a new will (renew): not a loss
        self._renewing = False
        client = _Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"{name}-{secrets.token_hex(6)}",
            transport="websockets" if address.websockets else "tcp",
        )
        if address.websockets:
            client.ws_set_options(path=address.path or "/")
        account = account or Account()
        self._ca_file = account.ca_file
        if address.tls:
            client.tls_set(ca_certs=account.ca_file)
        if account.user:
            client.username_pw_set(account.user, account.password)
        client.reconnect_delay_set(*RECONNECT)
        client.max_queued_messages_set(QUEUED)
        client.on_socket_open = _no_delay
        client.on_connect = self._connect
        client.on_connect_fail = self._connect_failed
        client.on_disconnect = self._disconnect
        client.on_message = self._message
        self._client = client
        self._started = False

    def _leave_will(self) -> None:
        """The will the next connection leaves: paho sends it with CONNECT, so
        each connection gets one naming it."""
        will = self._will(self._next_conn) if self._will is not None else None
        if will is None:
            self._client.will_clear()
        else:
            self._client.will_set(will[0], will[1], qos=1, retain=self._retain_will)

    @property
    def started(self) -> bool:
        return self._started

    def start(self) -> None:
        """Begin connecting, on the network thread (it retries until closed)."""
        self._started = True
        self._leave_will()
        self._client.connect_async(self.address.host, self.address.port, keepalive=KEEPALIVE)
        self._client.loop_start()

    def subscribe(self, topics: Iterable[str]) -> None:
        """Follow ``topics`` from now on, across reconnections."""
        wanted = set(topics)
        with self._lock:
            self._topics |= wanted
            live = self._subscribed  # else the next connection subscribes them
        if wanted and live:
            self._client.subscribe([(topic, 1) for topic in sorted(wanted)])

    def unsubscribe(self, topics: Iterable[str]) -> None:
        gone = set(topics)
        with self._lock:
            self._topics -= gone
            live = self._subscribed
        if gone and live:
            self._client.unsubscribe(sorted(gone))

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """Queue ``payload`` for ``topic`` (QoS 1); never waits for the broker."""
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if info.rc == mqtt.MQTT_ERR_QUEUE_SIZE:
            log.debug("The broker is away and %d messages wait: one more was dropped.", QUEUED)

    def reconnect(self) -> None:
        """End the connection as a cut network would, from any thread: paho's
        thread notices, says so and connects again by itself."""
        with contextlib.suppress(OSError, AttributeError):
            _raw(self._client.socket()).shutdown(socket.SHUT_RDWR)

    @property
    def renewing(self) -> bool:
        """Whether the connection is being made again for a new will
        (:meth:`renew`): the broker is not away, so nothing to show."""
        return self._renewing

    def renew(self) -> None:
        """Leave the broker the will for now, from the loop. A will is given
        with CONNECT and names the board's invitation (its topics), so after a
        new invitation the one left would tell nobody that this side is gone:
        the connection up now ends as a cut network would (paho's thread
        connects again at once, leaving the new will, and sends again what
        was not acknowledged) and its old will is published on the old
        invitation's topics, which nobody follows any more."""
        self._leave_will()
        if self.connected.is_set():
            self._renewing = True
            self.reconnect()

    def close(self) -> None:
        if not self._started:
            return
        self._closing = True
        self._client.disconnect()
        self._client.loop_stop()

    # -- on the network thread ---------------------------------------------------------

    def _connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        self._renewing = False
        if reason.is_failure:
            self._refusal = f"the broker refused the connection ({reason})"
            self._lost(self._refusal)
            return
        with self._lock:
            # from here on subscribe() sends its own: a topic added between
            # this read and the flag would otherwise be subscribed by nobody
            topics = sorted(self._topics)
            self._subscribed = True
        if topics:
            client.subscribe([(topic, 1) for topic in topics])
        self.conn, self._next_conn = self._next_conn, secrets.token_hex(8)
        self._leave_will()
        self.connected.set()
        log.info("Connected to the broker at %s.", self.address.url)
        self._lost_said = False
        self.trouble = None
        self._on_connected()
        self.on_change()

    def _connect_failed(self, client: mqtt.Client, userdata: Any) -> None:
        # paho calls this inside its ``except OSError`` and passes no error
        self._renewing = False
        self._lost(failed(sys.exception(), self._ca_file))

    def _disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        with self._lock:
            self._subscribed = False
        answered = self.connected.is_set()
        self.connected.clear()
        # the attempt's own refusal says more than its hanging up after it
        refusal, self._refusal = self._refusal, None
        if not self._renewing:  # renewed on purpose: no loss to log
            self._lost(refusal or ended(reason, answered))
        self.on_change()

    def _lost(self, why: str) -> None:
        self.trouble = why
        if not self._lost_said and not self._closing:
            self._lost_said = True  # said once until it comes back
            log.warning("The broker at %s: %s; trying again.", self.address.url, why)

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self._on_message(message.topic, bytes(message.payload))
