"""When the simulated board's main loop next has something to do.

A real board's loop sleeps in ``select.poll`` on its USB line until its next
timer or the host's bytes, and wakes at least every ``MAX_WAIT_MS`` to look
at pin edges; in simulated time most of those wake-ups would be idle. Every
pass that can change anything is due to a timer in the firmware: a debounce
settling, a heartbeat, a blink phase, a hold or stuck-beam threshold, a
partial frame expiring, the host falling silent, a dial detaching, a buzzer
pattern step, or bytes from the host. The firmware computes that itself
(``SensorBoard.due_in``), so a board stepped only then sends exactly the
bytes, and draws exactly the strip, that a board stepped every millisecond
does (``tests/test_serial_sim.py`` checks it).

Example::

    wait = due_in(firmware, at=firmware.ticks.now)   # milliseconds, >= 1
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hardware.sim.board.firmware import Firmware


def due_in(firmware: Firmware, at: int) -> int:
    """Milliseconds after tick ``at`` (the last pass) at which the next pass
    can change something; at least 1."""
    wait: int = firmware.board.due_in(at)
    return wait
