"""The soak: the whole daemon on the simulated grid, game after game, for
every rules preset, with people's mistakes, sensor faults, serial-link faults
(over the simulated sensor board), a friend playing through a broker, and
``kill -9``.

Prints the table issue 6 asks for and exits 0 only when nothing diverged,
crashed, went unnoticed or went missing. Run from the repository root::

    .venv/bin/python bench/soak.py --games 4 --seed 1
    .venv/bin/python bench/soak.py --games 2 --seed 7 --minutes 30 --kills 20
    .venv/bin/python bench/soak.py --seeds 1-200 --games 1 --kills 1   # a sweep

See docs/soak.md for what is injected and what each column means.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's directory comes first on sys.path, where
# bench/serial.py would hide pyserial: put the project root there instead.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.soaklib.argtypes import whole_number
from bench.soaklib.kills import POPREF
from bench.soaklib.run import ALL_FAULTS, SoakPlan, run_soak
from bench.soaklib.tally import Tally
from engine import RULES_NAMES
from tests.broker import MISSING, MOSQUITTO


def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("minutes must be more than 0")
    return value


def _seeds(text: str) -> range:
    first, _, last = text.partition("-")
    try:
        seeds = range(int(first), int(last or first) + 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed range like 1-200") from None
    if not seeds or seeds.start < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is empty or negative; write FIRST-LAST")
    return seeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=whole_number,
        default=2,
        help="games per rules preset (per round with --minutes); default 2",
    )
    parser.add_argument("--seed", type=whole_number, default=0, help="random seed; default 0")
    parser.add_argument(
        "--seeds",
        type=_seeds,
        metavar="FIRST-LAST",
        help="a sweep: one soak per seed in this range, one line each, then the totals",
    )
    parser.add_argument(
        "--minutes", type=_minutes, help="keep playing rounds until this much wall time has passed"
    )
    parser.add_argument(
        "--kills", type=whole_number, default=6, help="kill -9 and restart scenarios; default 6"
    )
    parser.add_argument(
        "--rules",
        action="append",
        choices=RULES_NAMES,
        help="only these presets (repeatable); default all",
    )
    parser.add_argument(
        "--no-missed-edges",
        action="store_true",
        help="leave out missed pin edges (see docs/soak.md)",
    )
    parser.add_argument(
        "--no-serial",
        action="store_true",
        help="leave out the tables over the simulated sensor board's serial link",
    )
    parser.add_argument(
        "--no-remote",
        action="store_true",
        help="leave out the games with a friend on the broker (they need Mosquitto)",
    )
    parser.add_argument(
        "--remote-games",
        type=whole_number,
        default=2,
        help="games with a friend on the broker per round, presets in turn; default 2",
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        help="keep the journals and archives here (default: a temporary directory)",
    )
    args = parser.parse_args(argv)
    faults = tuple(f for f in ALL_FAULTS if not (args.no_missed_edges and f == "missed-edge"))
    plan = SoakPlan(
        games=args.games,
        seed=args.seed,
        minutes=args.minutes,
        kills=args.kills,
        presets=tuple(args.rules or RULES_NAMES),
        faults=faults,
        serial=not args.no_serial,
        remote=not args.no_remote,
        remote_games=args.remote_games,
        # a kill of the daemon while the friend's request waits, when there are kills
        remote_kills=min(args.kills, 1),
    )
    if plan.remote and MOSQUITTO is None:
        print(f"soak: {MISSING}; or pass --no-remote", file=sys.stderr)
        return 2
    if plan.kills and not POPREF.exists():
        print(
            f"soak: {POPREF} not found; install popref into this venv (pip install -e .) "
            "or pass --kills 0",
            file=sys.stderr,
        )
        return 2
    if args.state_dir is not None and args.state_dir.exists() and any(args.state_dir.iterdir()):
        print(
            f"soak: {args.state_dir} is not empty; pass an empty or new --state-dir",
            file=sys.stderr,
        )
        return 2
    started = time.monotonic()
    failed: list[int] = []
    with tempfile.TemporaryDirectory(prefix="popref-soak-") as scratch:
        workdir = args.state_dir or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        if args.seeds is not None:
            tally, failed = _sweep(plan, args.seeds, workdir, keep=args.state_dir is not None)
        else:
            tally = run_soak(plan, workdir, progress=lambda line: print(line, file=sys.stderr))
    elapsed = time.monotonic() - started
    seeds = f"seed {plan.seed}"
    if args.seeds is not None:
        seeds = f"seeds {args.seeds.start}-{args.seeds.stop - 1} ({len(args.seeds)} seeds)"
    print(
        f"popref soak: {seeds}, {plan.games} games per preset per round, "
        f"{plan.kills} kills"
        + (f" and {plan.remote_kills} with a friend's request waiting" if plan.remote else "")
        + f", {elapsed:.0f} s wall time"
    )
    if args.seeds is not None:
        print(f"failing seeds: {' '.join(map(str, failed)) or 'none'}")
    print(tally.table())
    print("PASS" if tally.clean else "FAIL")
    return 0 if tally.clean else 1


def _sweep(plan: SoakPlan, seeds: range, workdir: Path, keep: bool) -> tuple[Tally, list[int]]:
    """One soak per seed, each in its own directory (removed after it unless
    ``keep``); a line per seed as it ends, with its problems, so a long sweep
    shows a failure at once."""
    total = Tally()
    failed: list[int] = []
    for seed in seeds:
        started = time.monotonic()
        seed_dir = workdir / f"seed-{seed}"
        tally = run_soak(dataclasses.replace(plan, seed=seed), seed_dir)
        if not keep:
            shutil.rmtree(seed_dir, ignore_errors=True)
        tally.problems = [f"seed {seed}: {p}" for p in tally.problems]
        total.merge(tally)
        if not tally.clean:
            failed.append(seed)
        print(
            f"seed {seed}: {sum(tally.games.values())} games, {tally.actions} actions, "
            f"{tally.moves} moves, {time.monotonic() - started:.0f} s, "
            + ("PASS" if tally.clean else "FAIL"),
            flush=True,
        )
        for problem in tally.problems:
            print(f"  ! {problem}", flush=True)
    return total, failed


if __name__ == "__main__":
    sys.exit(main())
