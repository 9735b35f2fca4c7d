"""Figures for ``bench/firmware.py``, under MicroPython's unix port: main-loop
passes and frames per second, and heap bytes allocated per pass.

    micropython tests/micropython/measure.py DEPLOY STANDINS

Prints ``name value`` lines. Wall time is the unix port's own clock, taken
before ``harness.load`` swaps ``time`` for the board's hand-moved ticks.
"""

import gc
import sys
import time

import harness

clock = time  # the real one: the board gets harness.Ticks


def _wall(run, count, block=200):
    """Seconds per call of ``run`` over ``count`` calls, and heap bytes each
    (collected between blocks, outside the timing, so the heap never fills)."""
    took = 0
    allocated = 0
    for _ in range(count // block):
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        started = clock.ticks_us()
        for _ in range(block):
            run()
        took += clock.ticks_diff(clock.ticks_us(), started)
        allocated += gc.mem_alloc() - before
        gc.enable()
    calls = count // block * block
    return took / 1e6 / calls, allocated / calls


def main():
    deploy, standins = sys.argv[1], sys.argv[2]
    rig = harness.Rig(harness.load(deploy, standins))
    wire = rig.wire
    board = rig.board
    rig.send(wire.HOST_HELLO, bytes([wire.PROTOCOL_VERSION]))
    rig.run(300)
    rig.frames()
    board.lights.strip.record = False  # the stand-in's record is not the firmware's

    rig.line.keep = False

    # Passes a millisecond apart with no frame and no edge: after each pass
    # that had something due (a redraw, a heartbeat), the passes until the
    # next such one are idle ones, measured as one block.
    idle = [0, 0, 0]  # passes, bytes, microseconds
    busy = [0, 0]  # passes, bytes
    gc.collect()
    gc.disable()
    while idle[0] < 20000:
        before = gc.mem_alloc()
        rig.ticks.advance(1)
        board.step()
        busy[1] += gc.mem_alloc() - before
        busy[0] += 1
        wait = board.due_in(rig.ticks.now)
        before = gc.mem_alloc()
        started = clock.ticks_us()
        for _ in range(wait - 1):
            rig.ticks.advance(1)
            board.step()
        idle[2] += clock.ticks_diff(clock.ticks_us(), started)
        idle[1] += gc.mem_alloc() - before
        idle[0] += wait - 1
        if busy[0] % 50 == 0:
            gc.enable()
            gc.collect()
            gc.disable()
    gc.enable()
    print("idle_passes", idle[0])
    print("idle_passes_per_s", round(idle[0] * 1e6 / idle[2]))
    print("idle_pass_bytes", idle[1] / idle[0])
    print("busy_passes", busy[0])
    print("busy_pass_bytes", busy[1] / busy[0])

    def beat():  # a pass that sends a heartbeat
        rig.ticks.advance(200)
        board.step()

    each, allocated = _wall(beat, 5000)
    print("heartbeats_per_s", round(1 / each))
    print("heartbeat_pass_bytes", allocated)

    lamps = [wire.LAMP_DROP] * 7
    frames = []
    for n in range(64):
        show = wire.Show(n, wire.COLOUR_RED, n % 10, 3, 0, lamps, [1] * 7, [0] * 7)
        frames.append(wire.encode(n & 0xFF, wire.SHOW, wire.pack_show(show)))
    at = [0]

    def show():  # a SHOW frame from the host: decoded, drawn, acknowledged
        rig.line.incoming.extend(frames[at[0] & 63])
        at[0] += 1
        rig.ticks.advance(1)
        board.step()

    each, allocated = _wall(show, 5000)
    print("show_frames_per_s", round(1 / each))
    print("show_pass_bytes", allocated)
    print("show_frame_bytes", len(frames[0]))
    hb = wire.Heartbeat(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, [0] * 7, [0] * 7)
    print("heartbeat_frame_bytes", len(wire.encode(0, wire.HEARTBEAT, wire.pack_heartbeat(hb))))


main()
