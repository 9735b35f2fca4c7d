"""The wire format: CRC pinned by the catalogue vector, framing, resync."""

from __future__ import annotations

import binascii
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware import wire


def test_crc_is_ccitt_false_by_the_catalogue_check_value() -> None:
    assert wire.crc16(b"123456789") == 0x29B1


@given(st.binary(max_size=300))
def test_crc_agrees_with_the_standard_librarys_ccitt(data: bytes) -> None:
    assert wire.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def test_a_frame_is_pinned_byte_for_byte() -> None:
    # SYNC LEN SEQ KIND PAYLOAD CRC over LEN..PAYLOAD
    frame = wire.encode(5, wire.ACK, b"\x01\x02")
    assert frame[:6] == bytes([0xA5, 2, 5, 0x03, 1, 2])
    assert frame[6:] == wire.crc16(bytes([2, 5, 3, 1, 2])).to_bytes(2, "big")


def frames_of(decoder: wire.Decoder) -> list[tuple[int, int, bytes]]:
    out = []
    while (frame := decoder.next_frame()) is not None:
        out.append(frame)
    return out


@given(
    st.lists(st.binary(max_size=wire.MAX_PAYLOAD), min_size=1, max_size=8),
    st.binary(max_size=40),
    st.randoms(use_true_random=False),
)
def test_frames_survive_garbage_in_front_and_any_chunking(
    payloads: list[bytes], garbage: bytes, rnd: random.Random
) -> None:
    stream = garbage + b"".join(wire.encode(i, wire.SHOW, p) for i, p in enumerate(payloads))
    decoder = wire.Decoder()
    got = []
    at = 0
    while at < len(stream):
        n = rnd.randint(1, 17)
        decoder.feed(stream[at : at + n])
        at += n
        got += frames_of(decoder)
    # A false SYNC in the garbage can make the decoder wait for a long frame;
    # the bytes that follow on a live link (here: idle filler) release every
    # real frame. None is ever lost.
    decoder.feed(bytes(wire.HEADER + wire.MAX_PAYLOAD + wire.TRAILER))
    got += frames_of(decoder)
    assert got == [(i, wire.SHOW, p) for i, p in enumerate(payloads)]


def test_a_false_sync_then_silence_holds_frames_until_expire_releases_them() -> None:
    real = wire.encode(1, wire.PING, b"a") + wire.encode(2, wire.ACK, b"\x00\x07")
    decoder = wire.Decoder()
    decoder.feed(bytes([wire.SYNC, 150, 0xA5, 0x03]) + real)  # noise: LEN 150, then SYNC 3
    assert frames_of(decoder) == []  # waiting for 150 bytes that will never come
    assert decoder.waiting == 4 + len(real)
    decoder.expire()
    assert frames_of(decoder) == [(1, wire.PING, b"a"), (2, wire.ACK, b"\x00\x07")]
    assert decoder.waiting == 0 and decoder.garbage + decoder.bad == 4  # the noise, byte by byte


def test_expire_gives_up_only_the_bytes_held_when_it_is_called() -> None:
    frame = wire.encode(5, wire.PING, b"xyz")
    decoder = wire.Decoder()
    decoder.feed(bytes([wire.SYNC, 90]) + frame[:4])  # a false SYNC, then half a frame
    decoder.expire()
    # Senders write frames whole, so whatever was still partial then was noise.
    assert frames_of(decoder) == [] and decoder.waiting == 0
    decoder.feed(frame[4:] + frame[:5])  # bytes after expire() wait as usual
    assert frames_of(decoder) == [] and decoder.waiting == 5
    decoder.feed(frame[5:])
    assert frames_of(decoder) == [(5, wire.PING, b"xyz")]


@given(st.binary(max_size=40), st.lists(st.binary(max_size=20), min_size=1, max_size=4))
def test_after_expire_every_whole_frame_held_comes_out(noise: bytes, payloads: list[bytes]) -> None:
    frames = b"".join(wire.encode(i, wire.PING, p) for i, p in enumerate(payloads))
    decoder = wire.Decoder()
    decoder.feed(noise + bytes([wire.SYNC, wire.MAX_PAYLOAD]) + frames)
    got = frames_of(decoder)
    decoder.expire()
    got += frames_of(decoder)
    assert got[-len(payloads) :] == [(i, wire.PING, p) for i, p in enumerate(payloads)]
    assert decoder.waiting == 0


def test_a_corrupted_frame_is_dropped_and_the_next_one_found() -> None:
    first = bytearray(wire.encode(1, wire.PING, b"abc"))
    first[5] ^= 0x40
    decoder = wire.Decoder()
    decoder.feed(bytes(first) + wire.encode(2, wire.PING, b"def"))
    assert frames_of(decoder) == [(2, wire.PING, b"def")]
    assert decoder.bad == 1


def test_a_frame_cut_short_costs_only_itself() -> None:
    lost = wire.encode(1, wire.PING, b"0123456789")[:7]
    decoder = wire.Decoder()
    decoder.feed(lost + wire.encode(2, wire.PING, b"x") + wire.encode(3, wire.PING, b"y"))
    # The cut frame's LEN swallows part of frame 2; its CRC fails and the hunt
    # resumes inside, so frame 3 (at least) comes through.
    assert (3, wire.PING, b"y") in frames_of(decoder)


def test_an_overfull_buffer_keeps_the_newest_bytes() -> None:
    decoder = wire.Decoder(capacity=64)
    decoder.feed(b"\x00" * 100)
    decoder.feed(wire.encode(9, wire.PING, b""))
    assert frames_of(decoder) == [(9, wire.PING, b"")]


def test_payload_too_long_is_refused() -> None:
    with pytest.raises(ValueError):
        wire.encode(0, wire.SHOW, bytes(wire.MAX_PAYLOAD + 1))


@given(
    st.integers(0, 2**32 - 1),
    st.lists(st.tuples(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF)), max_size=16),
    st.booleans(),
    st.integers(0, 0xFFFF),
)
def test_heartbeat_round_trip(
    boot: int, counts: list[tuple[int, int]], slider: bool, presses: int
) -> None:
    hb = wire.Heartbeat(boot, 123456, 7, slider, 3, True, presses, 2, 0x0004, 0x8000,
                        [d for d, _ in counts], [p for _, p in counts])  # fmt: skip
    back = wire.unpack_heartbeat(wire.pack_heartbeat(hb))
    assert vars(back) == vars(hb)


def test_show_round_trip_and_length_checks() -> None:
    lamps = [wire.LAMP_DROP, wire.LAMP_WINNING]
    show = wire.Show(65000, wire.COLOUR_RED, 3, wire.NO_SCORE, wire.ALERT_WIN,
                     lamps, [wire.COLOUR_RED, 0], [0, 0b1111])  # fmt: skip
    payload = wire.pack_show(show)
    assert vars(wire.unpack_show(payload)) == vars(show)
    with pytest.raises(ValueError):
        wire.unpack_show(payload[:-1])
    with pytest.raises(ValueError):
        wire.unpack_heartbeat(b"\x00" * 5)


def test_hello_carries_the_version_first() -> None:
    hello = wire.pack_hello(0xDEADBEEF, 7)
    assert wire.unpack_hello(hello) == (wire.PROTOCOL_VERSION, 0xDEADBEEF, 7)
    # A future version's hello of another length still says its version.
    assert wire.unpack_hello(bytes([9, 1, 2])) == (9, 0, 0)
