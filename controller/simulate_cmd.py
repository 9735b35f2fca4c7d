"""``popref simulate``: the daemon on a simulated grid, by hand or by script."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from controller.argtypes import lenient_stdin, rules_name
from controller.assembly import StartupError
from controller.config import Config, load_config, parse_config
from controller.logs import setup_logging
from controller.places import simulate_state_dir
from controller.script import Action, ScriptError, excerpt, read_script
from controller.simulation import Simulation
from engine import RULES_NAMES
from hardware.errors import ConfigError
from hardware.sim.grid import SimGridError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--script", type=Path, help="a file of actions ('-' for standard input)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per action")
    parser.add_argument(
        "--rules",
        type=rules_name,
        metavar="NAME",
        help=f"the rules of a new game: {', '.join(RULES_NAMES)}",
    )
    parser.add_argument("--state-dir", type=Path, help="keep the game here between runs")
    parser.add_argument("--config", type=Path, help="TOML configuration (board size, house rules)")
    parser.add_argument(
        "--opponent",
        choices=("red", "yellow", "none"),
        help="the colour the computer plays (none: two players), from the next game",
    )
    parser.add_argument(
        "--level", type=int, choices=range(1, 11), metavar="N", help="the computer's level, 1-10"
    )


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config) if args.config else parse_config({}, "defaults")
        if config.board.backend != "sim":
            config = _as_simulated(config)
        if args.level is not None:
            config = replace(config, opponent=replace(config.opponent, level=args.level))
        actions = _read_script(args.script, config) if args.script is not None else None
    except (ConfigError, ScriptError) as error:
        print(f"popref simulate: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="popref-sim-") as scratch:
        # by hand, the game is kept for next time; a script starts afresh
        state_dir = args.state_dir or (
            Path(scratch) if actions is not None else simulate_state_dir()
        )
        try:
            return _simulate(config, state_dir, args, actions)
        except StartupError as error:
            print(f"popref simulate: {error}", file=sys.stderr)
            return 2


def _as_simulated(config: Config) -> Config:
    """The same table on the simulated grid (simulate never drives hardware)."""
    return replace(config, board=replace(config.board, backend="sim"))


def _read_script(path: Path, config: Config) -> list[Action]:
    return read_script(path, config.board.columns)


def _simulate(
    config: Config, state_dir: Path, args: argparse.Namespace, actions: list[Action] | None
) -> int:
    if not args.json:
        setup_logging()
    simulation = Simulation(config, state_dir, args.rules, opponent=args.opponent)
    try:
        if actions is None:
            from controller.terminal import interact

            return interact(simulation, lenient_stdin(), sys.stdout)
        for action in actions:
            try:
                simulation.act(action)
            except SimGridError as error:
                where = f"{args.script}: line {action.line} ({excerpt(action.text)})"
                print(f"popref simulate: {where}: {error}", file=sys.stderr)
                return 2
            _report(simulation, action.text, args.json, sys.stdout)
    finally:
        simulation.close()
    return 0


def _report(simulation: Simulation, action: str, as_json: bool, out: TextIO) -> None:
    from controller.terminal import render

    if as_json:
        out.write(json.dumps(simulation.state(action)) + "\n")
    else:
        out.write(f"> {action}\n{render(simulation)}\n")
    out.flush()
