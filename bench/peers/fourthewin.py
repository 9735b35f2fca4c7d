"""Four the Win! (github.com/TheTrustedComputer/Four-The-Win, MIT) as a peer.

A Connect Four solver in C for Classic and Pop Out (its Pop 10 deals a random
grid and its 5-in-a-Row is a stub, so neither is the 2009 sheet's). It has no
time limit of its own: with ``-B`` it deepens until it proves a result,
printing ``Current best: M (DEPTH)`` after each depth, then a final line
(``WIN M nodes n/s seconds (DEPTH)``). So each move is a fresh process, told
the game's moves on one line of standard input (a forced move is played
for it without asking) (drops as column digits, pops
as capital letters, ``A`` for column 1); when its CPU time since it read them
reaches the budget it is killed and its last completed depth's move is its
answer, as full strength's last completed iteration is popref's. Its CPU time
comes from its own counters (``cputime``), so the niceness it gives itself
(10, which the bench gives back to its own where it may) and the load of
the machine cost it wall time, never depth. It prints
through stdio, hence ``stdbuf -oL``. A move the engine does not allow, an
answer that is no move, or no answer within the wall deadline is a
``PeerFault``.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.peers.cputime import process_cpu
from engine import Game, Move, Rules
from engine.move import MoveKind

VARIANTS = {"classic": "normal", "popout": "popout"}
MAX_COLUMNS = 9  # its drops are the digits 1-9
POLL = 0.002  # seconds between looks at its CPU time: the most it overruns by
BEST = re.compile(r"Current best: (.) \((\d+)\)")
FINAL = re.compile(r"(?:WIN|LOSS|DRAW)\S* (\S) \d+ \d+ [\d.]+ \((\d+)\)")
READY = "Hash table of"  # its last line before it reads the moves
ESCAPES = re.compile(r"\x1b\[[0-9;]*m|\a")


class PeerFault(Exception):
    """The peer's answer ended the game: one line saying what it did."""


@dataclass
class Answer:
    move: Move
    depth: int
    cpu: float


@dataclass
class Reading:
    """What the peer has said so far about one position."""

    ready: bool = False
    best: tuple[str, int] | None = None
    final: bool = False
    said: list[str] = field(default_factory=list)

    def hear(self, segment: str) -> None:
        text = ESCAPES.sub("", segment).strip()
        if not text:
            return
        self.said.append(text)
        if text.startswith(READY):
            self.ready = True
        elif found := BEST.search(text):
            self.best = (found[1], int(found[2]))
        elif found := FINAL.search(text):
            self.best, self.final = (found[1], int(found[2])), True
        elif text.startswith("Terminal position"):
            raise PeerFault("it holds the position over (its rules differ here)")


def to_peer(move: Move) -> str:
    """The peer's letter for ``move``.

    >>> to_peer(Move.drop(4)), to_peer(Move.pop(1))
    ('4', 'A')
    """
    if move.kind is MoveKind.DROP:
        return str(move.column)
    return chr(ord("A") + move.column - 1)


def from_peer(letter: str, game: Game) -> Move:
    """The move the peer means by ``letter``, if the engine allows it in ``game``."""
    if letter.isdigit() and letter != "0":
        move = Move.drop(int(letter))
    elif "A" <= letter <= "Z":
        move = Move.pop(ord(letter) - ord("A") + 1)
    else:
        raise PeerFault(f"answered {letter!r}, which is no move")
    if move not in game.legal_moves():
        raise PeerFault(f"answered {move}, which the rules do not allow here")
    return move


def share_priority(pid: int) -> None:
    """Give the peer the bench's own niceness back where allowed (root).

    Its budget is CPU time, so niceness never changes its moves; at nice 10
    on a loaded machine its second of CPU takes a minute of wall time.
    """
    with contextlib.suppress(PermissionError):  # without root it only waits longer
        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, 0))


def check_rules(rules: Rules) -> str:
    """The peer's name for ``rules``; ValueError, one line, where it has none."""
    if rules.name not in VARIANTS:
        raise ValueError(f"Four the Win! plays {' and '.join(VARIANTS)} only, not {rules.name}")
    if rules.width > MAX_COLUMNS or not 4 <= rules.height <= 16:
        raise ValueError(f"Four the Win! plays at most {MAX_COLUMNS} columns of 4 to 16 rows")
    return VARIANTS[rules.name]


class FourTheWin:
    """The peer at ``program`` (a built FourTheWin), ``budget`` CPU seconds a move."""

    def __init__(self, program: str, rules: Rules, budget: float, deadline: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.command = [
            "stdbuf", "-oL", program, "-B", "-t", "1",
            "-v", check_rules(rules), "-s", f"{rules.width}x{rules.height}",
        ]  # fmt: skip
        self.budget, self.deadline, self.clock = budget, deadline, clock
        self.answers: list[Answer] = []

    def move(self, game: Game) -> Move:
        legal = list(game.legal_moves())
        if len(legal) == 1:
            # Its first iteration (depth 0) names no move, so with one cell left
            # it would answer its initial centre column, full by then: a forced
            # move is no question of strength.
            return legal[0]
        moves = "".join(to_peer(move) for move in game.moves)
        with subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        ) as process:  # fmt: skip
            try:
                reading, cpu = self.listen(process, moves)
            finally:
                process.kill()
        if reading.best is None:
            heard = reading.said[-1] if reading.said else "nothing"
            raise PeerFault(f"gave no move (its last words: {heard[:60]!r})")
        letter, depth = reading.best
        answer = Answer(from_peer(letter, game), depth, cpu)
        self.answers.append(answer)
        return answer.move

    def listen(self, process: subprocess.Popen[bytes], moves: str) -> tuple[Reading, float]:
        """Hear the peer until its answer, its budget, or its end; its CPU time used."""
        assert process.stdin is not None and process.stdout is not None
        reading, pending, started = Reading(), "", self.clock()
        out = process.stdout.fileno()
        begun: float | None = None
        used = 0.0
        while not reading.final:
            if self.clock() - started > self.deadline:
                raise PeerFault(f"no answer within {self.deadline:g} s: killed")
            if select.select([out], [], [], POLL)[0]:
                chunk = os.read(out, 65536)
                if not chunk:
                    break
                pending += chunk.decode("utf-8", "replace")
                *segments, pending = re.split(r"[\r\n]", pending)
                for segment in segments:
                    reading.hear(segment)
            if begun is None and reading.ready:
                share_priority(process.pid)
                begun = process_cpu(process.pid)  # its start-up is not its thinking
                try:
                    process.stdin.write(moves.encode() + b"\n")
                    process.stdin.flush()
                except BrokenPipeError:
                    raise PeerFault("closed its input before reading the moves") from None
            elif begun is not None:
                try:
                    used = process_cpu(process.pid) - begun
                except ProcessLookupError:
                    break  # it ended: what it said is all there is
                if used >= self.budget:
                    break
        return reading, used
