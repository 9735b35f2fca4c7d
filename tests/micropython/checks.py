"""The sensor board's checks under MicroPython's unix port.

    micropython tests/micropython/checks.py NAME DEPLOY STANDINS

``DEPLOY`` holds the board's files as on the Pico (``tests/test_micropython.py``
copies them), ``STANDINS`` the stand-ins for ``machine`` and ``neopixel``.
Prints ``ok NAME`` when the check passes; a failure raises (exit status 1).
"""

import sys

import harness
import micropython


def check_imports(rig):
    for name in ("main", "board", "lights", "link", "outputs", "sensors", "pinmap", "wire"):
        __import__(name)
    __import__("timing")
    pins = rig.pinmap.ENTRY_PINS + rig.pinmap.EXIT_PINS
    pins += (rig.pinmap.SLIDER_PIN, rig.pinmap.BUTTON_PIN)
    assert all(rig.machine.Pin(n).hard for n in pins), "every input pin has a hard IRQ"


def _disc(rig, pins, column, blocked_ms=30):
    """A disc through a beam: 2 ms of chatter, blocked, 2 ms of chatter, clear."""
    for _ in range(2):
        rig.beam(pins, column, True)
        rig.step()
        rig.beam(pins, column, False)
    rig.beam(pins, column, True)
    rig.run(blocked_ms)
    rig.beam(pins, column, False)
    rig.step()
    rig.beam(pins, column, True)
    rig.step()
    rig.beam(pins, column, False)
    rig.run(40)


def check_main_loop(rig):
    wire = rig.wire
    pinmap = rig.pinmap
    rig.run(10)
    first = rig.frames()
    assert first[0][1] == wire.HELLO, first
    assert wire.unpack_hello(first[0][2]) == (wire.PROTOCOL_VERSION, 0x1234ABCD, 7)
    # HOST_HELLO with sequence 3: its second byte is 0x03, Ctrl-C on a live REPL
    rig.send(wire.HOST_HELLO, bytes([wire.PROTOCOL_VERSION]), seq=3)
    rig.step()
    kinds = [kind for _, kind, _ in rig.frames()]
    assert kinds[:2] == [wire.HELLO, wire.HEARTBEAT], kinds
    for column in range(1, 8):
        _disc(rig, pinmap.ENTRY_PINS, column)
    for column in (2, 5):
        _disc(rig, pinmap.EXIT_PINS, column, blocked_ms=120)
    show = wire.Show(
        7, wire.COLOUR_RED, 3, 4, wire.ALERT_NONE, [wire.LAMP_DROP] * 7, [1] * 7, [0] * 7
    )
    rig.send(wire.SHOW, wire.pack_show(show))
    rig.step()
    acks = [wire.unpack_ack(p) for _, kind, p in rig.frames() if kind == wire.ACK]
    assert acks == [7], acks
    slider = rig.machine.Pin(pinmap.SLIDER_PIN)
    slider.drive(1 if pinmap.SLIDER_OPEN_HIGH else 0)
    rig.run(50)
    slider.drive(0 if pinmap.SLIDER_OPEN_HIGH else 1)
    rig.run(50)
    button = rig.machine.Pin(pinmap.BUTTON_PIN)
    button.drive(0)
    rig.run(300)
    button.drive(1)
    rig.run(3000)  # the host falls silent: the board goes idle, beats on
    beats = rig.heartbeats()
    last = beats[-1]
    assert last.drops == [1] * 7, last.drops
    assert last.pops == [0, 1, 0, 0, 1, 0, 0], last.pops
    assert (last.slider_changes, last.presses, last.holds) == (2, 1, 0)
    assert last.shown == wire.NO_DISPLAY and rig.board.idle
    assert rig.ticks.now < 10_000, "the ticks wrapped at 2**30"
    ups = [hb.uptime_ms for hb in beats]
    gaps = [ups[i + 1] - ups[i] for i in range(len(ups) - 1)]
    assert all(0 < gap <= 200 for gap in gaps), gaps
    elapsed = (rig.ticks.now - rig.board.started) & (harness.PERIOD - 1)
    assert 0 <= elapsed - ups[-1] < 200, (elapsed, ups[-1])


def check_burst(rig):
    """Every beam blocked at once, then every beam clear at once, five times,
    while the soft IRQ queue would overflow: no disc lost."""
    pinmap = rig.pinmap
    pins = pinmap.ENTRY_PINS + pinmap.EXIT_PINS
    rig.run(10)
    for _ in range(5):
        rig.machine.burst([(n, rig.beam_level(True)) for n in pins])
        rig.run(30)
        rig.machine.burst([(n, rig.beam_level(False)) for n in pins])
        rig.run(30)
    board = rig.board
    assert (board.drops, board.pops) == ([5] * 7, [5] * 7), (board.drops, board.pops)


def check_stalled_burst(rig):
    """Every beam passes a disc (blocked for 20 ms) while the main loop is
    stalled for 25, 30 and 100 ms (a garbage collection, a long strip write):
    the IRQs count every disc, and two discs through a beam in one stall
    count twice."""
    pinmap = rig.pinmap
    pins = pinmap.ENTRY_PINS + pinmap.EXIT_PINS
    rig.run(10)
    for stall in (25, 30, 100):
        rig.machine.burst([(n, rig.beam_level(True)) for n in pins])
        rig.ticks.advance(20)
        rig.machine.burst([(n, rig.beam_level(False)) for n in pins])
        rig.step(stall - 20)
        rig.run(30)
    for _ in range(2):
        rig.machine.burst([(n, rig.beam_level(True)) for n in pins])
        rig.ticks.advance(20)
        rig.machine.burst([(n, rig.beam_level(False)) for n in pins])
        rig.ticks.advance(20)
    rig.run(30)
    board = rig.board
    assert (board.drops, board.pops) == ([5] * 7, [5] * 7), (board.drops, board.pops)


def check_backstop(rig):
    """A beam that changes with no IRQ at all (a lost interrupt, a pulse
    shorter than the IRQ latency) is still seen, by the level compare."""
    pin = rig.machine.Pin(rig.pinmap.ENTRY_PINS[5])
    rig.run(10)
    pin.value(rig.beam_level(True))  # the level changes; no handler runs
    rig.run(30)
    pin.value(rig.beam_level(False))
    rig.run(30)
    assert rig.board.drops == [0, 0, 0, 0, 0, 1, 0], rig.board.drops


def check_queue_overflows(rig):
    """The burst check means something: soft IRQs from a burst overflow the
    scheduler queue here, and the stand-in drops the rest as the RP2040 does."""
    seen = []

    def soft(pin):
        seen.append(pin.id)

    ids = list(range(500, 514))
    for n in ids:
        rig.machine.Pin(n, rig.machine.Pin.IN).irq(soft, 12)  # soft: no hard=True
    rig.machine.burst([(n, 1) for n in ids])
    assert 0 < len(seen) < len(ids), seen
    assert rig.machine.dropped == len(ids) - len(seen), rig.machine.dropped
    print("soft IRQs delivered", len(seen), "of", len(ids))


def check_edge_during_update(rig):
    """An edge in the middle of Input.update, just as it takes the level
    still on as settled (a disc has left the beam): the disc counts once,
    and the 4 ms blip that edge starts is no second disc."""
    pins = rig.pinmap.EXIT_PINS
    settle = __import__("timing").BEAM_SETTLE_MS
    rig.run(10)
    rig.beam(pins, 3, True)
    rig.run(30)
    rig.beam(pins, 3, False)
    edge = rig.ticks.now
    rig.run(settle - 1)
    fired = []

    def blip(now, since):
        if since == edge:
            fired.append(now)
            rig.beam(pins, 3, True)
        else:
            rig.ticks.on_diff = blip

    rig.ticks.on_diff = blip
    rig.step()
    assert fired == [edge + settle], fired
    rig.run(4)
    rig.beam(pins, 3, False)
    rig.run(40)
    assert rig.board.pops == [0, 0, 1, 0, 0, 0, 0], rig.board.pops


def check_backstop_during_an_edge(rig):
    """The level backstop settles a lost edge from the main loop with IRQs
    off: a blip whose IRQs come meanwhile waits for it, and the disc counts
    once."""
    pin = rig.machine.Pin(rig.pinmap.ENTRY_PINS[1])
    rig.run(10)
    pin.drive(rig.beam_level(True))
    rig.run(30)
    pin.value(rig.beam_level(False))  # the disc leaves, and that IRQ is lost
    fired = []

    def blip(now, since):
        fired.append(now)
        pin.drive(rig.beam_level(True))  # inside the backstop's settling
        pin.drive(rig.beam_level(False))

    rig.ticks.on_diff = blip
    rig.step()
    assert fired, "the backstop settled the lost edge"
    rig.run(30)
    assert rig.board.drops == [0, 1, 0, 0, 0, 0, 0], rig.board.drops


def check_no_allocation(rig):
    """No heap allocation in the IRQ handlers or in an idle pass of the main
    loop (step and due_in) under micropython.heap_lock()."""
    board = rig.board
    pin = rig.machine.Pin(rig.pinmap.ENTRY_PINS[0])
    rig.run(300)
    idle_passes = 0
    for _ in range(5):
        board.step()
        wait = board.due_in(rig.ticks.now)
        micropython.heap_lock()
        try:
            for _ in range(wait - 1):
                rig.ticks.advance(1)
                board.step()
                board.due_in(rig.ticks.now)
                idle_passes += 1
            pin.drive(rig.beam_level(True))  # the hard IRQ handler runs here
            pin.drive(rig.beam_level(False))
        finally:
            micropython.heap_unlock()
        rig.ticks.advance(1)
    assert idle_passes > 100, idle_passes
    print("idle passes under heap_lock", idle_passes)


def main():
    name, deploy, standins = sys.argv[1], sys.argv[2], sys.argv[3]
    ticks = harness.load(deploy, standins)
    globals()["check_" + name](harness.Rig(ticks))
    print("ok", name)


main()
