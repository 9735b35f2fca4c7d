"""``popref check-wiring``: a guided check of a freshly built board.

Lights each output in turn and asks whether it came on, then asks the person
to trigger each sensor and checks that the right event (or level) arrived.
Prints what worked and what is missing. Exit status: 0 all worked, 1 something
is missing, 2 configuration or hardware error.

``--sim`` runs the same check against the simulated grid: a simulated person
does what each prompt asks on the grid and answers light questions from what
the mock output pins show (:mod:`controller.cli.wiring_sim`); with ``--by-hand``
the person at the terminal does it instead, to learn the check before the
real board is built; ``--sim-fault`` breaks a part first.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from controller.cli.argtypes import config_file
from controller.cli.wiring_check import Person, StreamPerson, WiringCheck

if TYPE_CHECKING:
    from hardware.clock import Clock


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=config_file,
        metavar="FILE",
        help="TOML configuration with [board] and [gpio] (default: /etc/popref/config.toml "
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
        help='with --sim: break a part first, e.g. "entry 3" (cut wire) or '
        '"light 2" (dead lamp); may be repeated',
    )


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from controller.cli.argtypes import lenient_stdin
    from controller.daemon.config import load_config
    from hardware.clock import FakeClock, monotonic
    from hardware.errors import ConfigError, HardwareError
    from hardware.gpio_backend import GpioBackend

    out = stdout or sys.stdout
    try:
        config = load_config(args.config)
        pins = config.pin_map()
        columns, rows = config.board.columns, config.board.rows
        person: Person
        clock: Clock
        wait: Callable[[float], None]
        if args.by_hand and not args.sim:
            raise ConfigError("--by-hand: only with --sim (on a real board it is all by hand)")
        if args.sim:
            from controller.cli.wiring_sim import HandSimPerson, SimPerson
            from hardware.sim.grid import Physics, build_simulated_gpio

            clock = FakeClock()
            backend, grid, reader = build_simulated_gpio(
                columns,
                rows,
                clock,
                pinmap=pins,
                physics=Physics.clean(),
                dead=_faults(args.sim_fault, pins.inputs()),
            )
            for part in args.sim_fault:
                if part in pins.inputs():
                    grid.wires.cut.add(part)  # type: ignore[attr-defined]
            if args.by_hand:
                typed = stdin or lenient_stdin()
                person = HandSimPerson(StreamPerson(typed, out), grid, reader, clock.advance)
            else:
                person = SimPerson(grid, reader, out)
            wait = clock.advance
        else:
            from hardware.factory import make_pin_factory

            clock = monotonic
            factory = make_pin_factory(pins.pin_factory, revision=pins.board_revision)
            backend = GpioBackend(pins, factory, clock, rows=rows)
            person = StreamPerson(stdin or lenient_stdin(), out)
            wait = time.sleep
        report = WiringCheck(backend, person, clock, wait).run()
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


def _faults(parts: Sequence[str], inputs: dict[str, str]) -> tuple[str, ...]:
    """Outputs among the ``--sim-fault`` parts (inputs are cut wires instead)."""
    from hardware.errors import ConfigError

    known_outputs = ("light ", "turn red", "turn yellow", "buzzer")
    for part in parts:
        if part not in inputs and not part.startswith(known_outputs):
            raise ConfigError(
                f"--sim-fault: {part!r} is not a part of this board; name a "
                'sensor such as "entry 3" or an output such as "light 2"'
            )
    return tuple(p for p in parts if p not in inputs)
