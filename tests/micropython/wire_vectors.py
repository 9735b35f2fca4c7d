"""The wire format's vectors, printed one per line in hex: run under CPython
and under MicroPython with ``wire.py`` importable, and the two outputs must
be equal byte for byte (``tests/test_micropython.py``).

    python3 wire_vectors.py DEPLOY; micropython wire_vectors.py DEPLOY
"""

import sys

sys.path.insert(0, sys.argv[1])

import wire


def hexed(data):
    return "".join(f"{b:02x}" for b in data)


def frames():
    hb = wire.Heartbeat(
        0xDEADBEEF, 0xFFFFFFF0, 0x1234, 1, 513, 0, 7, 2, 0x41, 0x7F, [1, 2, 65535], [0, 9, 300]
    )
    show = wire.Show(
        0xFFFE, wire.COLOUR_YELLOW, 9, wire.NO_SCORE, wire.ALERT_WIN,
        [wire.LAMP_DROP, wire.LAMP_POP, wire.LAMP_CHOSEN, wire.LAMP_WINNING],
        [wire.COLOUR_RED, wire.COLOUR_NONE, wire.COLOUR_YELLOW, wire.COLOUR_RED],
        [0, 3, 0, 0x3C],
    )  # fmt: skip
    yield 1, wire.HELLO, wire.pack_hello(0x01020304, 7)
    yield 2, wire.HEARTBEAT, wire.pack_heartbeat(hb)
    yield 3, wire.ACK, wire.pack_ack(0xFFFE)
    yield 3, wire.HOST_HELLO, bytes([wire.PROTOCOL_VERSION])
    yield 255, wire.SHOW, wire.pack_show(show)
    yield 0, wire.PING, b""


def main():
    for data in (b"", b"123456789", bytes(range(256)), b"\xa5" * 40):
        print("crc", hexed(data[:8]), f"{wire.crc16(data):04x}")
    stream = bytearray()
    for seq, kind, payload in frames():
        frame = wire.encode(seq, kind, payload)
        print("frame", hexed(frame))
        stream.extend(b"\xa5\x07noise\x00\xa5")  # noise, false SYNCs among the frames
        stream.extend(frame)
    stream.extend(wire.encode(9, wire.PING, b"")[:-1])  # a partial frame at the end
    payloads = [payload for _, _, payload in frames()]
    hb = wire.unpack_heartbeat(payloads[1])
    print("heartbeat", hb.boot_id, hb.uptime_ms, hb.shown, hb.drops, hb.pops, hb.exit_faults)
    show = wire.unpack_show(payloads[4])
    print("show", show.display_id, show.alert, show.lamps, show.colours, show.winning)
    print("hello", wire.unpack_hello(payloads[0]), "ack", wire.unpack_ack(payloads[2]))
    for chunk in (1, 2, 3, 7, 64, len(stream)):
        decoder = wire.Decoder()
        out = []
        for at in range(0, len(stream), chunk):
            decoder.feed(stream[at : at + chunk])
            while True:
                frame = decoder.next_frame()
                if frame is None:
                    break
                out.append(f"{frame[0]}/{frame[1]}/{hexed(frame[2])}")
        decoder.expire()
        tail = decoder.next_frame()
        print("chunks", chunk, len(out), ";".join(out), decoder.garbage, decoder.bad, tail)


main()
