"""The firmware's own code under CPython, on stand-in pins and a fake clock."""

from __future__ import annotations

import itertools
import math
import os
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware import timing
from hardware.sim.board import Firmware
from hardware.sim.board.ticks import FakeTicks
from hardware.sim.seam import Beam


@pytest.fixture
def fw(tmp_path: Path) -> Iterator[Firmware]:
    # Start just before the 2**30 ms tick wrap, so every timer crosses it.
    with Firmware(tmp_path, ticks_start=(1 << 30) - 1500) as firmware:
        firmware.stream.connected = True
        yield firmware


def run(fw: Firmware, ms: int) -> None:
    for _ in range(ms):
        fw.step()


def every_beam(fw: Firmware, blocked: bool) -> None:
    """Every beam blocked (or cleared) at once, from interrupt context."""
    machine, pinmap = fw.module("machine"), fw.module("pinmap")
    level = 1 if blocked == pinmap.BEAM_BLOCKED_HIGH else 0
    machine.burst([(n, level) for n in (*pinmap.ENTRY_PINS, *pinmap.EXIT_PINS)])


def wait(fw: Firmware, ms: int) -> None:
    """``ms`` pass with no pass of the main loop (it stalls)."""
    assert isinstance(fw.ticks, FakeTicks)
    fw.ticks.advance(ms)


def test_boot_disables_ctrl_c_and_feeds_the_watchdog(fw: Firmware) -> None:
    assert fw.module("micropython").kbd_intr_char == -1
    before = fw.board.wdt.feeds
    run(fw, 10)
    assert fw.board.wdt.feeds == before + 10
    assert fw.board.wdt.timeout <= 8388


def test_maintenance_mode_gives_ctrl_c_back(fw: Firmware) -> None:
    fw.wires.button(True)  # held at power-up
    fw.module("main").start()
    assert fw.module("micropython").kbd_intr_char == 3


def test_chattering_beam_counts_one_drop(fw: Firmware) -> None:
    for _ in range(3):  # 3 ms of chatter at the disc's leading edge
        fw.wires.beam(Beam.ENTRY, 2, True)
        fw.step()
        fw.wires.beam(Beam.ENTRY, 2, False)
        fw.step()
    fw.wires.beam(Beam.ENTRY, 2, True)
    run(fw, 30)
    for _ in range(2):
        fw.wires.beam(Beam.ENTRY, 2, False)
        fw.step()
        fw.wires.beam(Beam.ENTRY, 2, True)
    fw.wires.beam(Beam.ENTRY, 2, False)
    run(fw, 30)
    assert fw.board.drops == [0, 1, 0, 0, 0, 0, 0]


def test_exit_beam_counts_pops_and_bounce_below_settle_is_ignored(fw: Firmware) -> None:
    fw.wires.beam(Beam.EXIT, 7, True)
    fw.step(2)
    fw.wires.beam(Beam.EXIT, 7, False)  # a 2 ms blip: noise, not a disc
    run(fw, 20)
    assert fw.board.pops[6] == 0
    fw.wires.beam(Beam.EXIT, 7, True)
    run(fw, 40)
    fw.wires.beam(Beam.EXIT, 7, False)
    run(fw, 20)
    assert fw.board.pops[6] == 1


def test_button_press_and_hold(fw: Firmware) -> None:
    fw.wires.button(True)
    run(fw, 300)
    fw.wires.button(False)
    run(fw, 50)
    assert (fw.board.button.presses, fw.board.button.holds) == (1, 0)
    fw.wires.button(True)
    run(fw, 2100)
    assert (fw.board.button.presses, fw.board.button.holds) == (1, 1)
    fw.wires.button(False)
    run(fw, 50)
    assert (fw.board.button.presses, fw.board.button.holds) == (1, 1)


def test_a_beam_blocked_for_seconds_is_a_fault_bit(fw: Firmware) -> None:
    fw.wires.beam(Beam.EXIT, 3, True)
    run(fw, 3100)
    assert fw.board._faults == (0, 0b100)
    fw.wires.beam(Beam.EXIT, 3, False)
    run(fw, 20)
    assert fw.board._faults == (0, 0)
    assert fw.board.pops == [0] * 7  # a jam, not a disc


def test_a_disc_counts_when_the_beam_clears_not_when_it_is_blocked(fw: Firmware) -> None:
    fw.wires.beam(Beam.ENTRY, 4, True)
    run(fw, 100)
    assert fw.board.drops[3] == 0  # still in the beam: maybe a jam
    fw.wires.beam(Beam.ENTRY, 4, False)
    run(fw, timing.BEAM_SETTLE_MS - 1)
    assert fw.board.drops[3] == 0  # not settled yet
    run(fw, 1)
    assert fw.board.drops[3] == 1


def test_a_jammed_entry_beam_is_a_fault_and_never_a_drop(fw: Firmware) -> None:
    fw.wires.beam(Beam.ENTRY, 3, True)
    run(fw, 2990)
    assert fw.board._faults == (0, 0)
    run(fw, 20)
    assert fw.board._faults == (0b100, 0)
    run(fw, 2000)
    fw.wires.beam(Beam.ENTRY, 3, False)
    run(fw, 20)
    assert fw.board._faults == (0, 0)
    assert fw.board.drops == [0] * 7
    fw.wires.beam(Beam.ENTRY, 3, True)  # a real disc afterwards counts as usual
    run(fw, 30)
    fw.wires.beam(Beam.ENTRY, 3, False)
    run(fw, 20)
    assert fw.board.drops == [0, 0, 1, 0, 0, 0, 0]


def test_a_beam_blocked_at_boot_was_not_seen_entering(fw: Firmware) -> None:
    fw.wires.beam(Beam.ENTRY, 2, True)
    fw.reset(boot_id=0xB00)  # the board boots with the beam already blocked
    run(fw, 50)
    fw.wires.beam(Beam.ENTRY, 2, False)
    run(fw, 20)
    assert fw.board.drops == [0] * 7 and fw.board._faults == (0, 0)


def show_something(fw: Firmware) -> Any:
    wire = fw.module("wire")
    show = wire.Show(5, wire.COLOUR_RED, 3, 4, wire.ALERT_NONE,
                     [wire.LAMP_DROP] * 7, [wire.COLOUR_RED] * 7, [0] * 7)  # fmt: skip
    fw.board.link.decoder.feed(wire.encode(1, wire.SHOW, wire.pack_show(show)))
    return wire


def test_silent_host_sends_the_outputs_to_safe_idle(fw: Firmware) -> None:
    wire = show_something(fw)
    run(fw, 100)
    shown = fw.lights.shown()
    assert shown.columns == ("red",) * 7
    assert shown.turn_red and shown.scores == (3, 4)
    assert fw.board.dials[0].pulse_us == 1300  # 3 of 10 points on 1000-2000 us
    run(fw, 2000)  # two seconds without a frame from the host
    assert fw.board.idle and fw.board.shown == wire.NO_DISPLAY
    run(fw, 1000)
    dark = fw.lights.shown()
    assert dark.columns == (None,) * 7 and not dark.turn_red and dark.scores is None
    assert [d.pulse_us for d in fw.board.dials] == [1500, 1500]  # pinmap's rest
    assert all(d.pwm.duty_u16() == 0 for d in fw.board.dials)  # detached after moving


def test_pop_lamps_blink_and_servos_detach(fw: Firmware) -> None:
    wire = fw.module("wire")
    show = wire.Show(9, wire.COLOUR_YELLOW, wire.NO_SCORE, wire.NO_SCORE, wire.ALERT_ERROR,
                     [wire.LAMP_POP] + [wire.LAMP_OFF] * 6, [wire.COLOUR_YELLOW] + [0] * 6,
                     [0] * 7)  # fmt: skip
    fw.board.link.decoder.feed(wire.encode(1, wire.SHOW, wire.pack_show(show)))
    fw.step()
    assert fw.lights.shown().buzzer
    for _ in range(6):
        run(fw, 100)
        fw.board.host_seen = fw.ticks.now  # keep the host "present"
    shown = fw.lights.shown()
    assert shown.columns == ("yellow",) + (None,) * 6
    assert shown.blinking == frozenset({1})
    assert shown.turn_yellow and not shown.turn_red
    assert not shown.buzzer  # the error pattern played once and stopped


def test_a_reset_restarts_counters_with_a_new_boot_id(fw: Firmware) -> None:
    fw.wires.beam(Beam.ENTRY, 1, True)
    run(fw, 30)
    fw.wires.beam(Beam.ENTRY, 1, False)
    run(fw, 10)
    assert fw.board.drops[0] == 1
    fw.reset(boot_id=0xBEEF)
    assert fw.board.drops == [0] * 7 and fw.board.boot_id == 0xBEEF


def test_pop_and_chosen_blink_at_different_rates(fw: Firmware) -> None:
    wire = fw.module("wire")
    lamps = [wire.LAMP_POP, wire.LAMP_CHOSEN, wire.LAMP_DROP, wire.LAMP_ERROR] + [0] * 3
    show = wire.Show(4, wire.COLOUR_RED, wire.NO_SCORE, wire.NO_SCORE, wire.ALERT_NONE,
                     lamps, [wire.COLOUR_RED] * 3 + [0] * 4, [0] * 7)  # fmt: skip
    fw.board.link.decoder.feed(wire.encode(1, wire.SHOW, wire.pack_show(show)))
    for _ in range(6):
        run(fw, 100)
        fw.board.host_seen = fw.ticks.now  # keep the host "present"
    shown = fw.lights.shown()
    assert shown.columns[:4] == ("red", "red", "red", "blue")
    assert shown.blinking == frozenset({1, 2, 4})
    assert fw.lights.fast_blinking() == frozenset({2, 4})  # CHOSEN and ERROR; POP is slow
    # Without a fast lamp the strip is redrawn at the slow rate only.
    lamps[1] = wire.LAMP_POP
    lamps[3] = wire.LAMP_OFF
    slow = wire.Show(5, wire.COLOUR_RED, wire.NO_SCORE, wire.NO_SCORE, wire.ALERT_NONE,
                     lamps, show.colours, show.winning)  # fmt: skip
    fw.board.link.decoder.feed(wire.encode(2, wire.SHOW, wire.pack_show(slow)))
    fw.step()
    strip = fw.board.lights.strip
    before = len(strip.writes)
    for _ in range(10):
        run(fw, 100)
        fw.board.host_seen = fw.ticks.now
    assert len(strip.writes) - before == 4  # a write every 250 ms
    assert fw.lights.fast_blinking() == frozenset()
    assert fw.lights.shown().blinking == frozenset({1, 2})


def test_a_false_sync_then_silence_holds_the_host_back_one_frame_gap(fw: Firmware) -> None:
    wire = fw.module("wire")
    host = os.open(fw.port, os.O_RDWR | os.O_NOCTTY)  # the host's end of the line
    try:
        tty.setraw(host)
        show = wire.Show(7, wire.COLOUR_RED, wire.NO_SCORE, wire.NO_SCORE, wire.ALERT_NONE,
                         [wire.LAMP_DROP] * 7, [wire.COLOUR_RED] * 7, [0] * 7)  # fmt: skip
        # Line noise that looks like the start of a 150-byte frame, then a real
        # display, then nothing: at idle the host sends only a short ping
        # every 0.5 s, so waiting for 150 bytes would take seconds.
        os.write(host, bytes([wire.SYNC, 150]) + wire.encode(1, wire.SHOW, wire.pack_show(show)))
        assert fw.stream.wait_readable(5.0)
        fw.step()
        assert fw.board.shown == wire.NO_DISPLAY
        assert fw.board.link.due_in(fw.ticks.now) == wire.FRAME_GAP_MS
        assert fw.board.due_in(fw.ticks.now) <= wire.FRAME_GAP_MS  # the loop wakes for it
        run(fw, wire.FRAME_GAP_MS - 1)
        assert fw.board.shown == wire.NO_DISPLAY
        fw.step()
        assert fw.board.shown == 7
        assert fw.board.link.decoder.waiting == 0
    finally:
        os.close(host)


def test_a_burst_of_every_beam_loses_no_disc(fw: Firmware) -> None:
    """All 14 beams change at once, faster than soft IRQs are serviced (the
    RP2040's scheduler queue holds 8): hard IRQs and the level backstop keep
    every disc."""
    run(fw, 10)
    for _ in range(3):
        every_beam(fw, blocked=True)
        run(fw, 30)
        every_beam(fw, blocked=False)
        run(fw, 30)
    assert (fw.board.drops, fw.board.pops) == ([3] * 7, [3] * 7)


def test_the_stand_in_drops_soft_irqs_beyond_the_rp2040_queue(fw: Firmware) -> None:
    machine = fw.module("machine")
    seen: list[int] = []
    for n in range(300, 314):
        machine.Pin(n, machine.Pin.IN).irq(lambda pin: seen.append(pin.id), 12)
    machine.burst([(n, 1) for n in range(300, 314)])
    assert len(seen) == fw.module("micropython").DEPTH == 8
    assert machine.dropped == 6


def test_every_input_pin_has_a_hard_irq(fw: Firmware) -> None:
    pinmap = fw.module("pinmap")
    pins = (*pinmap.ENTRY_PINS, *pinmap.EXIT_PINS, pinmap.SLIDER_PIN, pinmap.BUTTON_PIN)
    assert all(fw.pin(n).hard for n in pins)
    assert fw.module("micropython").emergency_buf >= 100


def test_uptime_stays_right_past_the_ticks_period(fw: Firmware) -> None:
    """Ticks wrap every 2**30 ms (12.4 days) and ticks_diff is wrong beyond
    half of that; the heartbeat's uptime is 32 bits of milliseconds."""
    start = fw.board.uptime_ms
    fw.step(0)
    for _ in range(12):
        fw.step(100_000_000)  # 1.16 days a pass: a heartbeat each time
    assert fw.board.uptime_ms - start == 1_200_000_000  # 13.9 days


def test_servos_rest_mid_travel_from_boot(fw: Firmware) -> None:
    pinmap = fw.module("pinmap")
    rest = pinmap.SERVO_REST_US
    assert pinmap.SERVO_MIN_US < rest < pinmap.SERVO_MAX_US
    for dial in fw.board.dials:
        assert dial.pulse_us == rest
        assert dial.pwm.history[-1] == rest * 65535 // 20000  # at 50 Hz
        assert min(dial.pwm.history[1:]) >= pinmap.SERVO_MIN_US * 65535 // 20000


@pytest.mark.parametrize("stall_ms", [25, 30, 100])
def test_discs_through_every_beam_while_the_loop_stalls_all_count(
    fw: Firmware, stall_ms: int
) -> None:
    """Issue 19: the main loop stalls (a garbage collection, a long strip
    write) while all 14 beams pass a disc, blocked for 20 ms each: the IRQs
    count every disc, whatever the stall."""
    run(fw, 10)
    for _ in range(2):
        every_beam(fw, blocked=True)
        wait(fw, 20)
        every_beam(fw, blocked=False)
        fw.step(stall_ms - 20)  # the first pass since the discs came in
        run(fw, 30)
    assert (fw.board.drops, fw.board.pops) == ([2] * 7, [2] * 7)


def test_two_discs_through_one_beam_in_one_stall_count_twice(fw: Firmware) -> None:
    run(fw, 10)
    for _ in range(2):
        fw.wires.beam(Beam.ENTRY, 5, True)
        wait(fw, 20)
        fw.wires.beam(Beam.ENTRY, 5, False)
        wait(fw, 20)
    fw.step(1)
    run(fw, 20)
    assert fw.board.drops == [0, 0, 0, 0, 2, 0, 0]


@pytest.fixture(scope="module")
def one_board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Firmware]:
    """One board for many examples: each starts with a reset."""
    with Firmware(tmp_path_factory.mktemp("fw")) as firmware:
        yield firmware


def settled_discs(levels: list[int]) -> int:
    """The discs in a beam's timeline: ``levels`` are the milliseconds it
    stays blocked, clear, blocked, ... from a clear beam, ending blocked
    (then clear for good); a level counts once it lasts the settle time, and
    a disc is a counted block followed by a counted clearing."""
    settled_blocked, discs = False, 0
    for i, ms in enumerate([*levels, math.inf]):
        blocked = i % 2 == 0
        if ms >= timing.BEAM_SETTLE_MS and blocked != settled_blocked:
            settled_blocked = blocked
            discs += not blocked
    return discs


@settings(max_examples=100, derandomize=True, deadline=None)
@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=15).map(
        lambda ms: ms if len(ms) % 2 else ms[:-1]
    ),
    st.lists(st.integers(1, 80), min_size=1, max_size=30),
)
def test_a_beam_counts_every_settled_disc_however_the_loop_stalls(
    one_board: Firmware, levels: list[int], passes: list[int]
) -> None:
    """Any train of blocks and gaps (chatter, blips, discs), with the main
    loop's passes at any gaps: the board counts exactly the discs whose
    block and clearing both lasted the settle time."""
    fw = one_board
    fw.reset(boot_id=len(levels))
    start = fw.ticks.now
    edges = list(itertools.accumulate(levels, initial=start + 10))
    stalls = list(itertools.accumulate(passes, initial=start + 10))
    now = start
    for at, kind in sorted([(t, 0) for t in edges] + [(t, 1) for t in stalls]):
        wait(fw, at - now)
        now = at
        if kind == 1:
            fw.step_now()
        else:
            fw.wires.beam(Beam.EXIT, 2, edges.index(at) % 2 == 0)
    run(fw, 3 * timing.BEAM_SETTLE_MS)
    assert fw.board.pops == [0, settled_discs(levels), 0, 0, 0, 0, 0]
