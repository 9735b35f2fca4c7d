"""The simulated sensor board as a device of its own, for ``bench/daemon.py``.

The firmware runs in a separate process (a Pico is a separate computer: it
must not share the daemon's interpreter lock), on the real monotonic clock,
its main loop every millisecond like ``SensorBoard.run()``. The bench sends
commands over a pipe; the board answers with times from the same system-wide
monotonic clock the daemon uses.

- ``("drop", column)``: block that entry beam for 30 ms, and answer
  ``(blocked_at, shown_at)``: when the beam was blocked and when the strip was
  first drawn with a new display after it (``None`` if none came in 1 s).
- ``("slider", None)``: open the slider for 50 ms (a new game); answer
  half a second later.
- ``("stop", None)``.

Example::

    parent, child = multiprocessing.get_context("spawn").Pipe()
    process = context.Process(target=serve_board, args=(str(directory), child))
"""

from __future__ import annotations

import select
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from hardware.clock import monotonic
from hardware.sim.board import Firmware
from hardware.sim.seam import Beam

BEAM_BLOCKED = 0.030  # how long the bench's disc stays in the beam
WAIT = 1.0  # seconds to wait for the display to change


def serve_board(directory: str, pipe: Connection) -> None:
    """Run a board at ``directory``'s port until told to stop."""
    fw = Firmware(Path(directory), clock=monotonic)
    fw.start()
    fw.stream.connected = True  # USB CDC: DTR is the host's business here
    drawn: list[tuple[float, int]] = []  # (time, display id) of each strip write
    board: Any = fw.board
    board.lights.strip.on_write = lambda: drawn.append((monotonic(), board.shown))
    pipe.send(("ready", fw.port))
    job: list[Any] = []  # the command in progress: kind, started, shown before
    while True:
        fw.step_now()
        now = monotonic()
        if not job and pipe.poll(0):
            kind, column = pipe.recv()
            if kind == "stop":
                break
            drawn.clear()
            before = board.shown
            if kind == "drop":
                fw.wires.beam(Beam.ENTRY, column, True)
                job = ["drop", monotonic(), before, column]
            else:
                fw.wires.slider(True)
                job = ["slider", monotonic(), before, 0]
        elif job:
            kind, started, before, column = job
            if kind == "drop" and now - started >= BEAM_BLOCKED:
                fw.wires.beam(Beam.ENTRY, column, False)
                job[0] = "dropped"
                job[1] = started = monotonic()  # the board counts the disc from here
            if kind == "slider" and now - started >= 0.05:
                fw.wires.slider(False)
                job[0] = "closed"
            if job[0] == "dropped":
                shown = [t for t, display in drawn if display not in (before, 0xFFFF)]
                if shown or now - started > WAIT:
                    pipe.send((started, shown[0] if shown else None))
                    job = []
            elif job[0] == "closed" and now - started > 0.5:
                pipe.send((started, None))
                job = []
        # the firmware's own loop: poll() until its next timer or the host's bytes
        wait = min(board.due_in(fw.ticks.ticks_ms()), fw.module("board").MAX_WAIT_MS) / 1000
        if job and job[0] in ("drop", "slider"):
            wait = min(wait, max(0.0, job[1] + BEAM_BLOCKED - monotonic()))
        board_fd = fw.stream.fd
        assert board_fd is not None
        select.select([board_fd, pipe.fileno()], [], [], wait)
    fw.close()
