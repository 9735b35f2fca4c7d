"""``popref check-wiring``: a guided check of a freshly built board.

Lights each output in turn and asks whether it came on, then asks the person
to trigger each sensor and checks that the right event (or level) arrived.
Prints what worked and what is missing. Exit status: 0 all worked, 1 something
is missing, 2 configuration or hardware error. A board wired to the Pi's GPIO
pins, or with ``[board] backend = "serial"`` the sensor board: its strip's
lights, and its sensors by the counts it reports.

``--sim`` runs the same check against the simulated grid: a simulated person
does what each prompt asks on the grid and answers light questions from what
the lights show (:mod:`controller.cli.wiring_sim`), on mock pins or on the
simulated sensor board's strip; with ``--by-hand``
the person at the terminal does it instead, to learn the check before the
real board is built; ``--sim-fault`` breaks a part first.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from controller.cli.argtypes import config_file
from controller.cli.wiring_check import Parts, Person, StreamPerson, WiringCheck

if TYPE_CHECKING:
    from controller.daemon.config import Config
    from hardware.backend import Backend


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=config_file,
        metavar="FILE",
        help="TOML configuration with [board] and [gpio] or [serial] (default: "
        "/etc/popref/config.toml "
        "as for popref run, else a 7 x 6 grid on the default pin map)",
    )
    parser.add_argument(
        "--sim", action="store_true", help="check the simulated grid instead of a real board"
    )
    parser.add_argument(
        "--by-hand",
        action="store_true",
        help="with --sim: you do what each prompt asks on the simulated grid (r3 drops a "
        "red disc into column 3, p3 pops, o/c the slider, b the button) and answer "
        "what its lights show",
    )
    parser.add_argument(
        "--sim-fault",
        action="append",
        default=[],
        metavar="PART",
        help='with --sim: break a part first, any the report names, e.g. "entry 3" '
        '(cut wire) or "light 2" (dead lamp); may be repeated',
    )


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from controller.daemon.config import load_config
    from hardware.errors import ConfigError, HardwareError

    out = stdout or sys.stdout
    try:
        config = load_config(args.config)
        if args.by_hand and not args.sim:
            raise ConfigError("--by-hand: only with --sim (on a real board it is all by hand)")
        if args.sim_fault and not args.sim:
            raise ConfigError(
                "--sim-fault: only with --sim (it breaks a part of the simulated board)"
            )
        if args.sim:
            check = _simulated(config, args, stdin, out)
        elif config.board.backend == "serial":
            check = _sensor_board(config, stdin, out)
        else:
            check = _gpio(config, stdin, out)
        report = check.run()
    except ConfigError as error:
        print(f"popref check-wiring: {error}", file=sys.stderr)
        return 2
    except HardwareError as error:
        print(f"popref check-wiring: {error}", file=sys.stderr)
        return 2
    except EOFError:
        print("popref check-wiring: input ended before the check was done", file=sys.stderr)
        return 1
    for line in report.lines():
        out.write(line + "\n")
    return 1 if report.missing else 0


def _gpio(config: Config, stdin: TextIO | None, out: TextIO) -> WiringCheck:
    """The check of a board wired to the Pi's GPIO pins."""
    from controller.cli.argtypes import lenient_stdin
    from hardware.clock import monotonic
    from hardware.factory import make_pin_factory
    from hardware.gpio_backend import GpioBackend

    pins = config.pin_map()
    factory = make_pin_factory(pins.pin_factory, revision=pins.board_revision)
    backend = GpioBackend(pins, factory, monotonic, rows=config.board.rows)
    person = StreamPerson(stdin or lenient_stdin(), out)
    return WiringCheck(backend, person, monotonic, time.sleep)


def _sensor_board(config: Config, stdin: TextIO | None, out: TextIO) -> WiringCheck:
    """The check of the sensor board at ``[serial] port``: the same prompts,
    answered from the counts it reports; its strip's lights are asked about,
    and it is polled while the person thinks (it goes dark after 2 s
    without hearing from the host)."""
    from controller.cli.argtypes import lenient_stdin
    from hardware.clock import monotonic
    from hardware.errors import HardwareError
    from hardware.serial_backend import SerialBackend

    assert config.serial is not None  # the configuration requires [serial] for this backend
    port = config.serial.port
    if "://" not in port and not os.path.exists(port):
        # popref run waits for a board to be plugged in; a check has nothing to wait for
        raise HardwareError(
            f"[serial] port {port}: no such device; plug the sensor board in "
            "(ls /dev/serial/by-id/ shows its name)"
        )
    board = config.board
    backend = SerialBackend(config.serial, board.columns, board.rows)
    out.write(f"Waiting for the sensor board on {port}...\n")
    return WiringCheck(
        backend,
        StreamPerson(stdin or lenient_stdin(), out),
        monotonic,
        time.sleep,
        parts=Parts.sensor_board(board.columns),
        ready=lambda: backend.connected,
        tend=True,
    )


def _simulated(
    config: Config, args: argparse.Namespace, stdin: TextIO | None, out: TextIO
) -> WiringCheck:
    """The check of the simulated board the configuration describes: the
    simulated sensor board for ``[board] backend = "serial"`` (or ``[sim]
    link = "serial"``), else the GPIO board on mock pins; a simulated person
    does each step, or with ``--by-hand`` the person at the terminal."""
    from controller.cli.argtypes import lenient_stdin
    from controller.cli.wiring_sim import HandSimPerson, SimPerson
    from hardware.clock import FakeClock
    from hardware.sim.broken import BrokenLights, CutWires
    from hardware.sim.grid import Physics, build_simulated_gpio
    from hardware.sim.seam import LightReader

    board = config.board
    columns, rows = board.columns, board.rows
    clock = FakeClock()
    serial = board.backend == "serial" or (board.backend == "sim" and config.sim_link == "serial")
    pins = None if serial else config.pin_map()
    if pins is None:
        parts = Parts.sensor_board(columns)
    else:
        parts = Parts.of_pins(pins, columns, colour=bool(pins.colour))
    dead, cut = _faults(args.sim_fault, parts)
    reader: LightReader
    settle: Callable[[], None] | None = None
    wait: Callable[[float], None] = clock.advance
    ready: Callable[[], bool] | None = None  # a sensor board has reported
    if pins is None:
        from hardware.sim.backend import build_simulated

        table = build_simulated(
            columns, rows, clock, link="serial", physics=Physics.clean(), serial=config.serial
        )
        backend: Backend = table.backend
        grid, reader, timeline = table.grid, table.lights, table.board
        assert timeline is not None
        inner: Any = table.backend.inner

        def settle() -> None:  # the board's passes between the grid's changes
            while (t := grid.next_time()) is not None:
                timeline.run_until(t)

        def wait(seconds: float) -> None:  # the board runs meanwhile
            timeline.run_until(clock() + seconds)

        def ready() -> bool:
            return bool(inner.connected)
    else:
        backend, grid, reader = build_simulated_gpio(
            columns, rows, clock, pinmap=pins, physics=Physics.clean()
        )
    grid.wires = CutWires(grid.wires, cut)
    reader = BrokenLights(reader, dead)
    person: Person
    if args.by_hand:
        typed = stdin or lenient_stdin()
        person = HandSimPerson(StreamPerson(typed, out), grid, reader, wait, settle)
    else:
        # a sensor board draws what it is shown on its next pass
        person = SimPerson(grid, reader, out, settle, look=lambda: wait(GLANCE))
    levels = getattr(backend, "inputs", None)
    return WiringCheck(
        backend,
        person,
        clock,
        wait,
        parts=parts,
        levels=None if levels is None else levels.levels,
        ready=ready,
        typed=args.by_hand,
    )


GLANCE = 0.05  # seconds a simulated person takes to look at the lights


def _faults(names: Sequence[str], parts: Parts) -> tuple[set[str], set[str]]:
    """The outputs (dead lamps) and the sensors (cut wires) that the
    ``--sim-fault`` ``names`` break: any part the report names, and
    ``slider`` (both its steps)."""
    from hardware.errors import ConfigError

    outputs, sensors = parts.outputs(), parts.sensors()
    dead, cut = set(), set()
    for name in names:
        part = " ".join(name.lower().split())
        if part in outputs:
            dead.add(part)
        elif part in sensors or part == "slider":
            cut.add("slider" if part.startswith("slider") else part)
        else:
            raise ConfigError(
                f"--sim-fault: {name!r} is not a part of this board; name one the report "
                f"names: {_ranges([*outputs, *sensors])}"
            )
    return dead, cut


def _ranges(names: Sequence[str]) -> str:
    """Part names with numbered runs shortened.

    >>> _ranges(["light 1", "light 2", "light 3", "turn red", "entry 1", "button"])
    'light 1-3, turn red, entry 1, button'
    """
    runs: list[tuple[str, list[str]]] = []
    for name in names:
        kind, _, number = name.rpartition(" ")
        if number.isdigit() and runs and runs[-1][0] == kind:
            runs[-1][1].append(number)
        elif number.isdigit():
            runs.append((kind, [number]))
        else:
            runs.append((name, []))
    said = []
    for kind, numbers in runs:
        if not numbers:
            said.append(kind)
        elif len(numbers) == 1:
            said.append(f"{kind} {numbers[0]}")
        else:
            said.append(f"{kind} {numbers[0]}-{numbers[-1]}")
    return ", ".join(said)
