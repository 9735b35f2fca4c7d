"""Full strength against a simple opponent and against its own lower levels.

The simple opponent wins when it can, else blocks an immediate win of the
other side, else plays a random move that does not hand over a win at once
(seeded, so games vary but repeat). Every game, both colours: the win rate
of full strength, how deep it looked and its time per move. Goals: at least
95% won against the simple opponent in every game, and no Classic game lost
as Red.

``--clock cpu`` (the default) puts full strength's deadline on the
process's CPU time, so a loaded machine (waiting for a core) does not
weaken it and the figures mean the same under load; ``--clock wall`` puts
it on the wall clock, as the daemon does. Both times are printed either
way. ``--opening 2`` begins each game with two random moves, the same for
both colours, so that games against a nearly deterministic level differ
(without it a few lines repeat and decide the figures). ``--each`` prints
a line per game (result, plies, depth, time, and with ``--records`` the
moves, to replay with ``popref replay``). ``--level N`` puts a lower level
in full strength's seat (seeded per game), to measure the levels themselves
against the simple opponent and each other. ``--against CHECKOUT`` plays full
strength of another checkout instead (say ``git worktree add /tmp/old REV``
with the compiled cores of that revision copied into its ``engine/solver``;
without them it warns and plays with the pure ones): the same budget, on
its own process's CPU clock. ``--peer PATH`` plays another program instead,
in the games it knows (Four the Win!, ``bench/peers/fourthewin.py``: Classic and
Pop Out), on the same budget of its own CPU time; the games it does not know
keep their lines against the simple opponent and the levels. A peer's move
the engine does not allow, or none within ``--peer-deadline`` seconds, ends
the game as a fault: one line, counted apart from W/D/L. Points count a draw
as half. Run from the repository root::

    .venv/bin/python bench/matches.py [--games 10] [--movetime 250] [--levels 1,5,9]
        [--rules popout,pop10] [--size 6x5] [--clock cpu|wall] [--colour red|yellow]
        [--no-simple] [--opening PLIES] [--level N] [--against CHECKOUT] [--each] [--records]
        [--peer PATH [--peer-deadline S]]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.peers.fourthewin import VARIANTS, FourTheWin, PeerFault, check_rules
from engine import (
    RULES_NAMES,
    Colour,
    Game,
    Move,
    Rules,
    new_game,
    parse_move,
    parse_size,
    rules_named,
)
from engine.solver.limits import Limits
from engine.solver.opponent import MAX_LEVEL, Opponent

MAX_PLIES = 300  # Pop Out and Pop 10 can go on; a capped game counts as a draw


def wins_at_once(game: Game, move: Move) -> bool:
    mover = game.to_move
    after = game.after(move)
    return after.result == mover


def lost_at_once(game: Game) -> bool:
    """Whether every move of the side to move lets the other side connect at once."""
    for move in game.legal_moves():
        after = game.after(move)
        if after.result in (None, "draw", game.to_move) and not any(
            wins_at_once(after, reply) for reply in after.legal_moves()
        ):
            return False
    return True


def simple_move(game: Game, rng: random.Random) -> Move:
    """Win, else block, else a random move that does not lose at once."""
    moves = list(game.legal_moves())
    for move in moves:
        if wins_at_once(game, move):
            return move
    safe = []
    for move in moves:
        after = game.after(move)
        if after.is_over() or not any(wins_at_once(after, m) for m in after.legal_moves()):
            safe.append(move)
    return rng.choice(safe or moves)


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def percentile(values: list[float], fraction: float) -> float:
    """The value at ``fraction`` of the sorted ``values`` (nearest rank)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


@dataclass
class Played:
    """What one game tells: its result for full strength, and its moves' figures."""

    outcome: str  # won, drawn, lost, capped (a draw at MAX_PLIES), fault (the peer's)
    plies: int
    depths: list[int] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    record: str = ""

    def line(self, number: int, records: bool) -> str:
        depth = sum(self.depths) / len(self.depths) if self.depths else 0.0
        text = (
            f"  game {number:2}: {self.outcome:6} in {self.plies:3} plies, depth mean "
            f"{depth:4.1f} min {min(self.depths, default=0):2}, CPU max "
            f"{max(self.cpu, default=0.0) * 1e3:5.1f} ms, wall max "
            f"{max(self.wall, default=0.0) * 1e3:6.1f} ms"
        )
        return text + (f"\n    {self.record}" if records else "")


@dataclass
class Tally:
    games: list[Played] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(game.outcome == outcome for game in self.games)

    def line(self) -> str:
        won, lost, faults = self.count("won"), self.count("lost"), self.count("fault")
        drawn = len(self.games) - won - lost - faults
        scored = won + drawn + lost
        rate = 100 * won / scored if scored else 0.0
        points = won + drawn / 2
        wall = [t for game in self.games for t in game.wall]
        cpu = [t for game in self.games for t in game.cpu]
        depths = [d for game in self.games for d in game.depths]
        depth = sum(depths) / len(depths) if depths else 0.0
        cpu_mean = sum(cpu) / max(len(cpu), 1)
        wall_mean = sum(wall) / max(len(wall), 1)
        return (
            f"{won:3}/{drawn:2}/{lost:2} won {rate:5.1f}% points {points:4.1f}"
            + (f" faults {faults}" if faults else "")
            + f"  depth {depth:4.1f}  "
            f"CPU mean {cpu_mean * 1e3:5.1f} p99 {percentile(cpu, 0.99) * 1e3:5.1f} "
            f"max {max(cpu, default=0.0) * 1e3:5.1f} ms  "
            f"wall mean {wall_mean * 1e3:5.1f} max {max(wall, default=0.0) * 1e3:6.1f} ms"
        )


def past(deadline: float, clock: Callable[[], float] = time.perf_counter) -> Callable[[], bool]:
    """A stop check that turns true when ``clock`` reaches ``deadline``."""
    return lambda: clock() >= deadline


def opening(rules: Rules, plies: int, number: int) -> Game:
    """A game begun by ``plies`` random moves, the same for both colours of game ``number``."""
    rng = random.Random(f"opening/{number}")
    game = new_game(rules)
    while len(game.moves) < plies:
        game.play(rng.choice(list(game.legal_moves())))
        if game.is_over():
            game = new_game(rules)  # a line in the opening: begin again
    return game


class Former:
    """Full strength of another popref checkout, in its own process (``bench/fullstrength.py``)."""

    def __init__(self, checkout: str, rules: Rules, movetime: int) -> None:
        script = Path(__file__).resolve().parent / "fullstrength.py"
        self.process = subprocess.Popen(
            [sys.executable, str(script), checkout],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.prefix = f"{rules.name} {rules.width}x{rules.height} {movetime}"

    def ask(self, words: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{self.prefix} {words}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if not answer:
            raise SystemExit(f"matches.py: --against: {self.prefix}: no answer (see above)")
        return answer

    def new_game(self) -> None:
        self.ask("new")

    def move(self, game: Game) -> Move:
        return parse_move(self.ask(" ".join(str(move) for move in game.moves)))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        self.process.wait()


def outcome(game: Game, strong_colour: Colour) -> str:
    """The finished (or capped) ``game`` for the side playing ``strong_colour``."""
    if game.result == strong_colour:
        return "won"
    if game.result == "draw":
        return "drawn"
    return "capped" if game.result is None else "lost"


def play_game(rules: Rules, strong_colour: Colour, other: Callable[[Game], Move], seed: str,
              movetime: float, clock: Callable[[], float], game: Game,
              strong: Opponent) -> Played:  # fmt: skip
    figures = Played("", 0)
    while not game.is_over() and len(game.moves) < MAX_PLIES:
        if game.to_move == strong_colour:
            wall, cpu = time.perf_counter(), time.process_time()
            limits = Limits(should_stop=past(clock() + movetime, clock))
            choice = strong.choose(game, limits)
            move = choice.move
            figures.wall.append(time.perf_counter() - wall)
            figures.cpu.append(time.process_time() - cpu)
            figures.depths.append(choice.depth)
        else:
            try:
                move = other(game)
            except PeerFault as fault:
                figures.outcome = "fault"
                lost = "; every move there lost at once" if lost_at_once(game) else ""
                print(f"  {seed}: the peer's fault after {len(game.moves)} plies: {fault}{lost}")
                break
        game.play(move)
    figures.plies = len(game.moves)
    figures.record = " ".join(str(move) for move in game.moves)
    figures.outcome = figures.outcome or outcome(game, strong_colour)
    return figures


def reply(rules: Rules, level: int | None, number: int, rng: random.Random,
          other: Former | FourTheWin | None) -> Callable[[Game], Move]:  # fmt: skip
    """How the other side of game ``number`` chooses its moves."""
    if isinstance(other, Former):
        other.new_game()
    if other is not None:
        return other.move
    if level is None:
        return lambda game: simple_move(game, rng)
    lower = Opponent(rules, level, number)
    return lambda game: lower.choose(game).move


def peer_line(peer: FourTheWin) -> str:
    """The peer's own figures: how deep it looked and the CPU time it used."""
    depths = [answer.depth for answer in peer.answers]
    cpu = [answer.cpu for answer in peer.answers]
    return (
        f"{'':19}the peer: depth {sum(depths) / max(len(depths), 1):4.1f}  CPU mean "
        f"{sum(cpu) / max(len(cpu), 1) * 1e3:5.1f} max {max(cpu, default=0.0) * 1e3:5.1f} ms"
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per colour and opponent")
    parser.add_argument("--movetime", type=int, default=250, help="full strength's ms per move")
    parser.add_argument("--levels", default="1,5,9", help="lower levels to play against")
    parser.add_argument("--rules", default=",".join(RULES_NAMES))
    parser.add_argument("--size", type=parse_size, help="WxH, edge strips included")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="the clock of full strength's deadline (default cpu)")  # fmt: skip
    parser.add_argument("--no-simple", action="store_true", help="skip the simple opponent")
    parser.add_argument(
        "--colour", choices=["red", "yellow"], help="full strength's (default both)"
    )
    parser.add_argument("--opening", type=int, default=0, metavar="PLIES",
                        help="begin each game with PLIES random moves (varied lines)")  # fmt: skip
    parser.add_argument("--against", metavar="CHECKOUT",
                        help="play full strength of another popref checkout (compiled cores "
                        "built in place) instead of the simple opponent and levels")  # fmt: skip
    parser.add_argument("--peer", metavar="PATH",
                        help="play a built Four the Win! in Classic and Pop Out, on the same "
                        "CPU time a move (docs/opponent.md)")  # fmt: skip
    parser.add_argument("--peer-deadline", type=float, default=60.0, metavar="S",
                        help="wall seconds a peer's move may take before it is killed")  # fmt: skip
    parser.add_argument(
        "--level", type=int, default=MAX_LEVEL, help="the measured side's level (default: full)"
    )
    parser.add_argument("--each", action="store_true", help="a line per game")
    parser.add_argument("--records", action="store_true", help="with --each: the moves too")
    args = parser.parse_args()
    if args.peer is not None:
        if args.against or args.clock != "cpu":
            parser.error("--peer: plays on CPU time (--clock cpu) and not with --against")
        if not (os.path.isfile(args.peer) and os.access(args.peer, os.X_OK)):
            parser.error(f"--peer: {args.peer} is no executable file: give a built FourTheWin")
        for name in args.rules.split(","):
            if name in VARIANTS:
                try:
                    check_rules(rules_named(name, args.size))
                except ValueError as error:
                    parser.error(f"--peer: {error}")
    return args


def main() -> None:
    args = parse_args()
    levels = [int(level) for level in args.levels.split(",") if level]
    opponents: list[tuple[str, int | None]] = [] if args.no_simple else [("simple", None)]
    opponents += [(f"level {n}", n) for n in levels]
    if args.against:
        opponents = [("former", None)]
    side = "full strength" if args.level == MAX_LEVEL else f"level {args.level}"
    print(
        f"{side}, {args.movetime} ms of {args.clock} time a move; "
        f"W/D/L from {side}'s side (a game capped at "
        f"{MAX_PLIES} plies counts as drawn); depth: the mean depth of its searches",
        flush=True,
    )
    for name in args.rules.split(","):
        rules = rules_named(name, args.size)
        title = f"{name} {rules.width}x{rules.height}"
        former = Former(args.against, rules, args.movetime) if args.against else None
        peering = args.peer is not None and name in VARIANTS
        for label, level in [("peer", None)] if peering else opponents:
            for colour in Colour:
                if args.colour not in (None, colour.value):
                    continue
                peer = None
                if peering:
                    peer = FourTheWin(args.peer, rules, args.movetime / 1000, args.peer_deadline)
                tally = Tally()
                for number in range(args.games):
                    seed = f"{name}/{label}/{colour.value}/{number}"
                    other = reply(rules, level, number, random.Random(seed), former or peer)
                    begun = opening(rules, args.opening, number)
                    strong = Opponent(rules, args.level, number)
                    one = play_game(rules, colour, other, seed, args.movetime / 1000,
                                    CLOCKS[args.clock], begun, strong)  # fmt: skip
                    tally.games.append(one)
                    if args.each:
                        print(one.line(number, args.records), flush=True)
                print(f"{title:16} vs {label:8} as {colour.title:6}: {tally.line()}", flush=True)
                if peer is not None:
                    print(peer_line(peer), flush=True)
        if former is not None:
            former.close()


if __name__ == "__main__":
    main()
