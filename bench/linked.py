"""Linked games through a misbehaving network (issue 23), in the soak's style:
game after game, every rules preset, grid A's people copying the other
side's moves (sometimes wrongly, then repairing), both sides' paths to a
local Mosquitto through fault proxies (duplicates, delays, reordering) and
one event a game: broker restart, the connection cut for 10 s and 2 min,
``kill -9`` of either side, both restarted. After each game both sides must
hold the same moves, each once, with no manual step; the latency of a move
on A to B beside the broker's raw round trip in the same run.

Side B is a grid that joined with A's link (``[remote] join``, as
``popref simulate --join``); ``--side client`` makes it the remote seat's
reference client on a soak table instead, with the soak's people on A
(docs/soak.md, "Linked games"). Exits 0 only when nothing diverged, was
lost or needed a hand. From the repository root::

    .venv/bin/python bench/linked.py --games 42 --seed 1
    .venv/bin/python bench/linked.py --quick      # cuts of 1 s and 10 s, 14 games
    .venv/bin/python bench/linked.py --processes --quick

By default both grids run in the bench's process, stepped in turn: a kill
is a close and reopen, and the latency ends when B's network thread takes
A's message. ``--processes`` makes each grid a real ``popref simulate
--script - --json`` process: a kill is ``SIGKILL``, and the latency ends at
B's light (its JSON object). The default stays in-process: it runs about
twice as many games in the same time on a shared machine, a profiler sees
both daemons at once, and the figures recorded so far are its own;
``--processes`` is the check end to end.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's directory comes first on sys.path, where
# bench/serial.py would hide pyserial: put the project root there instead.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.remote import raw_round_trips, report
from bench.soaklib.argtypes import whole_number
from bench.soaklib.linkedgame import EVENTS, LinkedGame, LinkedSides, plans
from bench.soaklib.linkedgrids import LinkedGrids
from bench.soaklib.linkedprocs import LinkedProcesses
from bench.soaklib.linkedtally import Latency, LinkedTally
from bench.soaklib.mqttproxy import MqttProxy
from tests.broker import MISSING, MOSQUITTO, Mosquitto

QUICK_CUTS = 1 / 12  # --quick: 10 s -> 0.8 s, 2 min -> 10 s
RAW_SAMPLES = 200


def proxied_round_trips(broker: Mosquitto, samples: int) -> list[float]:
    """The raw round trip over the grids' own path: the sender through one
    quiet fault proxy, the receiver through another, as A and B reach the
    broker in a quiet game. The proxies are Python threads in this process,
    so they take their share of the latency; what the grids add is beyond it."""
    proxies = [MqttProxy(("127.0.0.1", broker.port), seed) for seed in (0, 1)]
    for proxy in proxies:
        proxy.start()
    try:
        return raw_round_trips(broker, samples, (proxies[0].url, proxies[1].url))
    finally:
        for proxy in proxies:
            proxy.close()


LATENCY = {  # what is timed, by --processes
    False: "a move journalled on A -> B has it",
    True: "a move's line written to A -> B's light (its JSON object)",
}


def side(args: argparse.Namespace) -> type[LinkedSides]:
    """The kind of game the arguments ask for."""
    if args.processes:
        return LinkedProcesses
    return LinkedGrids if args.side == "grid" else LinkedGame


def _failures(tally: LinkedTally) -> str:
    kinds = ("journal_divergences", "divergences", "manual", "lost", "crashes", "unplayed")
    failed = ", ".join(f"{kind} {getattr(tally, kind)}" for kind in kinds)
    return f"{tally.moves_compared} moves compared; {failed}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", type=whole_number, help="games to play; default 42 (14 with --quick)"
    )
    parser.add_argument("--seed", type=whole_number, default=0, help="random seed; default 0")
    parser.add_argument(
        "--quick", action="store_true", help="cuts shortened twelvefold, 14 games by default"
    )
    parser.add_argument(
        "--side",
        choices=("grid", "client"),
        default="grid",
        help="B: a joined grid (default), or the remote seat's client on a soak table",
    )
    parser.add_argument(
        "--processes",
        action="store_true",
        help="each grid a real 'popref simulate --script -' process (kills are SIGKILL)",
    )
    parser.add_argument(
        "--state-dir", type=Path, help="keep the journals here (default: a temporary directory)"
    )
    args = parser.parse_args(argv)
    if args.processes and args.side != "grid":
        parser.error("--processes: B is a grid's process; leave out --side client")
    if MOSQUITTO is None:
        print(f"bench/linked.py: {MISSING}", file=sys.stderr)
        return 2
    games = args.games if args.games is not None else (14 if args.quick else 42)
    scale = QUICK_CUTS if args.quick else 1.0
    workdir = args.state_dir or Path(tempfile.mkdtemp(prefix="popref-linked-"))
    workdir.mkdir(parents=True, exist_ok=True)
    tally, latency = LinkedTally(), Latency()
    broker = Mosquitto(workdir)
    broker.start()
    began = time.monotonic()
    try:
        raw = raw_round_trips(broker, RAW_SAMPLES)
        proxied = proxied_round_trips(broker, RAW_SAMPLES)
        for plan in plans(games, args.seed, scale):
            print(f"game {plan.number}: {plan.preset}, {plan.event}", flush=True)
            side(args)(plan, broker, workdir, tally, latency).play()
            print(f"  so far: {_failures(tally)}", flush=True)
    finally:
        broker.stop()
        if args.state_dir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    minutes = (time.monotonic() - began) / 60
    print(f"{games} linked games, seed {args.seed}, {minutes:.1f} min; events: {', '.join(EVENTS)}")
    print(tally.table())
    report("raw: the broker's own publish -> receive", raw, raw)
    report("raw through the two grids' quiet proxies", proxied, proxied)
    measured, lights = LATENCY[args.processes], "A's light (its JSON object) -> B's light"
    for what, name, times in (
        (measured, "quiet", latency.quiet),
        (measured, "noisy", latency.noisy_times),
        (lights, "quiet", latency.lights_quiet),
        (lights, "noisy", latency.lights_noisy),
    ):
        if times:
            report(f"{what}, {name} network, against the raw", times, raw)
            report(f"{what}, {name} network, against the proxied raw", times, proxied)
    return 0 if tally.clean else 1


if __name__ == "__main__":
    sys.exit(main())
