"""One client cannot hold the live page: event streams it never reads are
dropped, answers it never reads give their places up to clients that read,
and one address holds at most its share (docs/web.md, "Bounded in size and
time"). Time is the table's fake clock: nothing here waits for it to pass."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.web.connections import (
    STALLED,
    STREAM_BACKLOG,
    WRITE_GRACE,
    Connection,
    Connections,
    address_key,
)
from hardware.clock import FakeClock
from tests.webclient import Stream, Table

BIG = {"status": "x" * 20_000}  # a state far larger than a stuck client's buffer


@contextmanager
def stuck_streams(table: Table, count: int) -> Iterator[list[socket.socket]]:
    """``count`` event streams whose client reads nothing, its receive buffer tiny."""
    held = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect((table.host, table.port))
            sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {table.authority}\r\n\r\n".encode())
            held.append(sock)
            # each follows before the next connects: the server's threads would
            # otherwise join the hub in their own order, and "the oldest" with them
            assert table.web.hub.wait_clients(len(held), timeout=10)
        yield held
    finally:
        for sock in held:
            sock.close()


def ended(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (what it had sent is read and dropped)."""
    sock.settimeout(10)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return True


def test_an_event_stream_whose_client_takes_nothing_is_dropped(table: Table) -> None:
    hub = table.web.hub
    with stuck_streams(table, 1) as (stuck,):
        # far more than its buffers hold: the stream stops sending, and waits
        for n in range(2 * STREAM_BACKLOG // len(BIG["status"]) + 4):
            hub.publish({**BIG, "n": n})
            assert hub.caught_up(timeout=10)
        assert hub.behind() == 1 and hub.clients == 1
        table.deadlines.advance(STALLED)  # nothing taken all that time
        assert hub.wait_clients(0, timeout=10)
        assert ended(stuck)


def test_a_quiet_stream_whose_client_takes_nothing_is_dropped_at_its_next_message(
    table: Table,
) -> None:
    hub = table.web.hub
    with stuck_streams(table, 1):
        hub.publish(BIG)  # more than its buffer, less than the backlog: it still sends
        assert hub.caught_up(timeout=10) and hub.behind() == 0
        table.deadlines.advance(STALLED)  # not taken whole all that time
        hub.publish({"n": 1})  # as a keep-alive would: the stream looks before sending
        assert hub.wait_clients(0, timeout=10)


def test_a_reader_keeps_its_stream_however_long_it_is(table: Table) -> None:
    reader = Stream(table)
    try:
        reader.next()
        for n in range(5):
            table.deadlines.advance(STALLED)
            table.web.hub.publish({"n": n})
            assert reader.until(lambda s, n=n: s.get("n") == n)
        assert table.web.hub.clients == 1
    finally:
        reader.close()


def test_streams_nobody_reads_cannot_keep_a_new_page_from_its_updates(tmp_path: Path) -> None:
    # every stream taken by one client that never reads (as /tmp/attack4/ssehold.py did)
    table = Table(tmp_path, max_clients=4)
    try:
        with stuck_streams(table, 4) as stuck:
            # each was sent its first state: none is behind the others yet, so
            # the oldest gives its place up (not whichever was still sending)
            assert table.web.hub.caught_up(timeout=10)
            page = Stream(table)
            try:
                assert page.status == 200 and page.next()["moves"] == []
                assert ended(stuck[0])  # the oldest gave its place up
                table.act("drop 3")
                assert page.until(lambda s: s.get("moves") == ["3"])
            finally:
                page.close()
    finally:
        table.close()


def test_answers_nobody_reads_give_their_places_up_to_a_client_that_reads(
    tmp_path: Path,
) -> None:
    """Every place held (as /tmp/attack4/hold.py did): event streams nobody
    reads, and connections with a tiny receive buffer asking for the largest
    file again and again, reading nothing. A client that reads gets in."""
    table = Table(tmp_path, max_clients=1)
    places = table.web.places
    ask = f"GET /vendor/mqtt/mqtt.min.js HTTP/1.1\r\nHost: {table.authority}\r\n\r\n".encode()
    slow = []
    try:
        with stuck_streams(table, 1):
            for _ in range(places.cap - 1):
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
                sock.connect((table.host, table.port))
                sock.sendall(ask * 30)
                slow.append(sock)
            assert places.wait(open=places.cap, blocked=places.cap - 1, timeout=10)
            table.deadlines.advance(WRITE_GRACE)
            for _ in range(3):
                status, _, body = table.request("GET", "/api/state")
                assert status == 200 and b'"rules"' in body
    finally:
        for sock in slow:
            sock.close()
        table.close()


def test_an_answer_being_read_keeps_its_place() -> None:
    clock = FakeClock()
    places = Connections(cap=2)
    reading, stuck = Connection(None, clock), Connection(None, clock)
    assert places.admit(reading) and places.admit(stuck)
    places.answering(reading)
    places.answering(stuck)
    stuck.blocked_since = clock()
    clock.advance(WRITE_GRACE / 2)
    reading.blocked_since = clock()  # its client takes something now and then
    assert not places.admit(Connection(None, clock))  # nobody stuck long enough yet
    clock.advance(WRITE_GRACE / 2)
    assert places.admit(Connection(None, clock)) and stuck.evicted and not reading.evicted


def test_a_new_connection_waits_for_a_place_only_while_an_answer_is_stuck() -> None:
    clock = FakeClock()
    places = Connections(cap=1)
    answering = Connection(None, clock)
    assert places.admit(answering)
    places.answering(answering)
    # its client takes its answer: no place will free up soon, none is waited for
    assert not places.admit(Connection(None, clock), wait=600.0)
    answering.blocked_since = clock()  # now it takes nothing
    admitted = threading.Event()
    newcomer = Connection(None, clock)

    def wait_for_a_place() -> None:
        if places.admit(newcomer, wait=600.0):
            admitted.set()

    waiting = threading.Thread(target=wait_for_a_place, daemon=True)
    waiting.start()
    assert places.wait(open=1, blocked=1, timeout=10) and not admitted.is_set()
    clock.advance(WRITE_GRACE)  # its place is the newcomer's at the next look
    assert admitted.wait(timeout=10) and answering.evicted
    waiting.join(timeout=10)


def test_one_address_holds_at_most_its_share_of_the_connections() -> None:
    clock = FakeClock()
    places = Connections(cap=10, per_address=3)
    mine = [Connection(None, clock, "192.168.1.7") for _ in range(3)]
    for connection in mine:
        assert places.admit(connection)
        places.answering(connection)
    # past its share, its own oldest waiting or stuck connection gives way; none here
    assert not places.admit(Connection(None, clock, "192.168.1.7"))
    assert places.admit(Connection(None, clock, "192.168.1.8"))  # another address gets in
    places.sending(mine[1])  # waits for its next request
    assert places.admit(Connection(None, clock, "192.168.1.7")) and mine[1].evicted
    assert not (mine[0].evicted or mine[2].evicted)
    # loopback is no one's (behind a local proxy every client has it)
    for _ in range(6):
        assert places.admit(Connection(None, clock, None))


def test_whose_an_address_is() -> None:
    assert address_key(("192.168.1.7", 5000)) == "192.168.1.7"
    assert address_key(("::ffff:192.168.1.7", 5000, 0, 0)) == "192.168.1.7"
    assert address_key(("fe80::1%eth0", 5000, 0, 2)) == "fe80::1"
    assert address_key(("127.0.0.1", 5000)) is None
    assert address_key(("::1", 5000, 0, 0)) is None
    assert address_key(("::ffff:127.0.0.1", 5000, 0, 0)) is None
    assert address_key("") is None
