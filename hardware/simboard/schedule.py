"""When the simulated board's main loop next has something to do.

A real board runs its loop every millisecond; in simulated time that would be
a thousand passes a second, nearly all of them idle. Every pass that can
change anything is due to a timer in the firmware: a debounce settling, a
heartbeat, a blink phase, a hold or blocked-beam threshold, the host falling
silent, a dial detaching, a buzzer pattern step, or bytes from the host.
:func:`due_in` reads those timers from the firmware's own objects, so a board
stepped only then sends exactly the bytes, and draws exactly the strip, that a
board stepped every millisecond does (``tests/test_serial_sim.py`` checks it).

Example::

    wait = due_in(firmware, at=firmware.ticks.now)   # milliseconds, >= 1
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hardware.simboard.firmware import Firmware

IDLE_MS = 1000  # nothing due at all (cannot happen while heartbeats run): look again


def due_in(firmware: Firmware, at: int) -> int:
    """Milliseconds after tick ``at`` (the last pass) at which the next pass
    can change something; at least 1, as the loop runs at most once a ms."""
    board: Any = firmware.board
    diff = firmware.ticks.ticks_diff
    board_module = firmware.module("board")
    if not board._hello_sent:
        return 1
    waits = [board_module.HEARTBEAT_MS - diff(at, board._last_beat), IDLE_MS]
    beams = [*board.entries, *board.exits]
    for source in [*beams, board.slider, board.button.source]:
        if source._dirty[0]:
            waits.append(source._settle - diff(at, source._edge[0]))
    for beam in beams:
        held = beam.held_for(at)
        if beam.active and held < board_module.BLOCKED_MS:
            waits.append(board_module.BLOCKED_MS - held)
    button = board.button
    if button.source.active and not button._held:
        waits.append(button._hold - button.source.held_for(at))
    if not board.idle:
        waits.append(board_module.HOST_SILENT_MS - diff(at, board.host_seen))
    blink = firmware.module("lights").BLINK_MS
    waits.append(blink - diff(at, 0) % blink)
    for dial in board.dials:
        if dial._until is not None:
            waits.append(diff(dial._until, at))
    waits += _buzzer(board.buzzer, at, diff)
    return max(1, int(min(waits)))


def _buzzer(buzzer: Any, at: int, diff: Any) -> list[int]:
    if buzzer is None or buzzer._step >= len(buzzer._steps):
        return []
    on_ms, off_ms = buzzer._steps[buzzer._step]
    elapsed = diff(at, buzzer._at)
    if elapsed < on_ms:
        return [on_ms - elapsed]
    return [on_ms + off_ms - elapsed]  # at or past it: the next pass moves on
