"""MQTT's framing, as much of it as a proxy needs to cut a byte stream into
packets: the fixed header (the packet type in the high four bits of the
first byte, its flags in the low four) and the remaining length (one to four
bytes, seven bits each, least significant first, the high bit saying that
another follows; MQTT 3.1.1 and 5 alike).

>>> encode_length(321)
b'\\xc1\\x02'
>>> packet = bytes([0x30]) + encode_length(3) + b"abc"
>>> import io
>>> read_packet(io.BytesIO(packet * 2).read) == packet
True
>>> packet_type(packet) == PUBLISH
True
"""

from __future__ import annotations

from collections.abc import Callable

PUBLISH = 3
MOST = 268_435_455  # the largest remaining length four bytes can say
DUP = 0x08  # a PUBLISH's flag: this is a copy sent again
QOS = 0x06  # a PUBLISH's quality of service, in the fixed header's flags


class Malformed(Exception):
    """The stream is not MQTT, or a packet is larger than the reader allows."""


def encode_length(length: int) -> bytes:
    """The remaining length ``length`` as MQTT writes it."""
    if not 0 <= length <= MOST:
        raise ValueError(f"a remaining length is 0 to {MOST}, not {length}")
    out = bytearray()
    while True:
        length, digit = divmod(length, 128)
        out.append(digit | (0x80 if length else 0))
        if not length:
            return bytes(out)


def read_packet(read: Callable[[int], bytes], most: int = MOST) -> bytes | None:
    """The next whole packet from ``read`` (a blocking ``read(n)`` that returns
    fewer than ``n`` bytes only at the end); ``None`` at a clean end between
    packets. :class:`Malformed` for a stream cut inside a packet, a length
    that runs past four bytes, or a packet over ``most`` bytes of remaining
    length (the reader's bound on memory)."""
    head = read(1)
    if not head:
        return None
    length = shift = 0
    raw = bytearray(head)
    for _ in range(4):
        byte = read(1)
        if not byte:
            raise Malformed("the stream ended inside a fixed header")
        raw += byte
        length |= (byte[0] & 0x7F) << shift
        shift += 7
        if not byte[0] & 0x80:
            break
    else:
        raise Malformed("a remaining length longer than four bytes")
    if length > most:
        raise Malformed(f"a packet of {length} bytes, over the bound of {most}")
    rest = read(length) if length else b""
    if len(rest) != length:
        raise Malformed("the stream ended inside a packet")
    return bytes(raw) + rest


def packet_type(packet: bytes) -> int:
    return packet[0] >> 4


def as_copy(packet: bytes) -> bytes:
    """A PUBLISH as its sender sends it again: the DUP flag set where its
    quality of service has one (QoS 1 and 2; QoS 0 must keep it clear)."""
    if packet_type(packet) != PUBLISH or not packet[0] & QOS:
        return packet
    return bytes([packet[0] | DUP]) + packet[1:]


def topic(packet: bytes) -> str:
    """A PUBLISH's topic name (after the fixed header, two bytes of length)."""
    at = 1
    while packet[at] & 0x80:
        at += 1
    size = int.from_bytes(packet[at + 1 : at + 3], "big")
    return packet[at + 3 : at + 3 + size].decode("utf-8", errors="replace")
