"""The Four the Win! adapter of bench/matches.py against a fake peer in Python
that speaks its protocol, for the edge cases; the real program is not in the
repository (POPREF_FOURTHEWIN=PATH runs one real move too)."""

from __future__ import annotations

import itertools
import os
import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.matches import Tally, lost_at_once, play_game
from bench.peers.cputime import process_cpu
from bench.peers.fourthewin import FourTheWin, PeerFault, check_rules, from_peer, to_peer
from engine import Colour, Game, Move, new_game, parse_move, rules_named
from engine.solver.opponent import Opponent

pytestmark = pytest.mark.skipif(
    shutil.which("stdbuf") is None or not Path("/proc/self/task").is_dir(),
    reason="the adapter needs stdbuf and /proc (Linux)",
)

FAKE = """\
import os, sys
mode, answer = os.environ["FAKE_MODE"], os.environ.get("FAKE_ANSWER", "4")
os.setpriority(os.PRIO_PROCESS, 0, 10)  # as the real one does
print("Four the Win! by TheTrustedComputer")
print("Using board size 7x6 under Normal ruleset")
if mode == "silent":
    sys.stdin.readline()
print("Hash table of 67108859 entries", flush=True)
heard = sys.stdin.readline()
with open(os.environ["FAKE_HEARD"], "w") as out:
    out.write(heard + str(os.getpriority(os.PRIO_PROCESS, 0)))
if mode == "deepen":  # as -B does, for ever: the adapter must stop it
    for depth in range(10**9):
        print(f"\\rCurrent best: {answer} ({depth})  \\r", end="", flush=True)
elif mode == "final":
    print(f"\\a\\x1b[1;32mWIN\\x1b[0m {answer} 1234 5678 0.001 (7)", flush=True)
elif mode == "terminal":
    print("Terminal position (drawn or won).", flush=True)
elif mode == "crash":
    print("Segmentation fault", flush=True)
    sys.exit(139)
sys.stdin.readline()
"""


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    program = tmp_path / "FourTheWin"
    program.write_text(f"#!{sys.executable}\n{FAKE}")
    program.chmod(0o755)
    heard = tmp_path / "heard"
    monkeypatch.setenv("FAKE_HEARD", str(heard))

    def make(mode: str, answer: str = "4") -> Path:
        monkeypatch.setenv("FAKE_MODE", mode)
        monkeypatch.setenv("FAKE_ANSWER", answer)
        return program

    make.heard = heard  # type: ignore[attr-defined]
    return make


def played(rules: str, moves: str) -> Game:
    game = new_game(rules_named(rules))
    for token in moves.split():
        game.play(parse_move(token))
    return game


def ticking(step: float) -> Callable[[], float]:
    """A wall clock that moves ``step`` seconds each time it is read."""
    counter = itertools.count()
    return lambda: next(counter) * step


def test_it_is_told_the_moves_in_its_letters_and_stopped_at_its_budget(
    fake: Callable[..., Path],
) -> None:
    game = played("popout", "4 4 1 3 p4")  # Yellow to move, owning the bottom of column 3
    peer = FourTheWin(str(fake("deepen", "C")), game.rules, budget=0.05)
    assert peer.move(game) == Move.pop(3)
    moves, niceness = fake.heard.read_text().split("\n")  # type: ignore[attr-defined]
    assert moves == "4413D"
    if os.geteuid() == 0:  # only root may lower a niceness
        assert int(niceness) == os.getpriority(os.PRIO_PROCESS, 0)
    (answer,) = peer.answers
    assert answer.cpu >= 0.05 and answer.depth > 0


def test_a_pop_it_may_make_comes_back_as_a_pop(fake: Callable[..., Path]) -> None:
    game = played("popout", "4 1 3")  # Yellow to move, owning the bottom of column 1
    peer = FourTheWin(str(fake("final", "A")), game.rules, budget=10.0)
    assert peer.move(game) == Move.pop(1)
    assert peer.answers[0].depth == 7


@pytest.mark.parametrize(
    ("mode", "answer", "moves", "says"),
    [
        ("final", "4", "4 4 4 4 4 4", "the rules do not allow"),  # column 4 is full
        ("final", "B", "4", "the rules do not allow"),  # column 2 is empty
        ("final", "?", "", "no move"),
        ("terminal", "4", "", "its rules differ"),
        ("crash", "4", "", "gave no move (its last words: 'Segmentation fault')"),
    ],
)
def test_a_wrong_answer_is_the_peers_fault_in_one_line(
    fake: Callable[..., Path], mode: str, answer: str, moves: str, says: str
) -> None:
    game = played("popout", moves)
    peer = FourTheWin(str(fake(mode, answer)), game.rules, budget=10.0)
    with pytest.raises(PeerFault) as caught:
        peer.move(game)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_forced_move_is_played_without_asking_it(fake: Callable[..., Path]) -> None:
    game = played("classic", " ".join("33454421444333355575522222666666111117777"))
    peer = FourTheWin(str(fake("final", "4")), game.rules, budget=10.0)  # 4 is full
    assert peer.move(game) == Move.drop(7)
    assert not fake.heard.exists()  # type: ignore[attr-defined]


def test_a_peer_that_never_answers_is_killed_at_the_deadline(fake: Callable[..., Path]) -> None:
    game = played("classic", "4")
    peer = FourTheWin(str(fake("silent")), game.rules, 10.0, deadline=30, clock=ticking(1.0))
    with pytest.raises(PeerFault, match="no answer within 30 s: killed"):
        peer.move(game)


def test_a_fault_ends_the_game_and_is_counted_apart(
    fake: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rules = rules_named("classic")
    peer = FourTheWin(str(fake("final", "9")), rules, budget=10.0)
    game = play_game(rules, Colour.RED, peer.move, "t", 0.01, ticking(0.001), new_game(rules),
                     Opponent(rules, 1, 0))  # fmt: skip
    assert (game.outcome, game.plies) == ("fault", 1)
    said = capsys.readouterr().out.splitlines()
    assert said == [
        "  t: the peer's fault after 1 plies: answered 9, which the rules do not allow here"
    ]
    tally = Tally([game])
    assert tally.line().startswith("  0/ 0/ 0 won   0.0% points  0.0 faults 1")


def test_a_fault_says_when_every_move_there_lost_at_once() -> None:
    assert lost_at_once(played("classic", "2 2 3 3 4"))  # 1 and 5 both win for Red
    assert not lost_at_once(played("classic", "2 2 3 3"))


def test_only_classic_and_pop_out_on_its_boards() -> None:
    assert check_rules(rules_named("popout")) == "popout"
    with pytest.raises(ValueError, match="classic and popout only, not pop10"):
        check_rules(rules_named("pop10"))
    with pytest.raises(ValueError, match="at most 9 columns"):
        check_rules(rules_named("classic", (10, 6)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40))
def test_every_legal_move_reads_back_as_itself(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    game = new_game(rules_named("popout", (9, 6)))
    while len(game.moves) < plies and not game.is_over():
        game.play(rng.choice(list(game.legal_moves())))
    for move in game.legal_moves():
        assert from_peer(to_peer(move), game) == move


def test_a_thread_that_ends_while_counted_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "7").mkdir()
    (tmp_path / "7" / "schedstat").write_text("0 0 0\n")
    for thread, line in (("7", "250000000 1 2\n"), ("8", None)):
        (tmp_path / "7" / "task" / thread).mkdir(parents=True)
        if line is not None:
            (tmp_path / "7" / "task" / thread / "schedstat").write_text(line)
    assert process_cpu(7, tmp_path) == 0.25
    with pytest.raises(ProcessLookupError):
        process_cpu(9, tmp_path)


def test_cpu_time_counts_the_other_process_only() -> None:
    assert process_cpu(os.getpid()) > 0
    with pytest.raises(ProcessLookupError):
        process_cpu(2**22 + 1)


@pytest.mark.skipif(
    "POPREF_FOURTHEWIN" not in os.environ, reason="POPREF_FOURTHEWIN=PATH: a built Four the Win!"
)
def test_the_real_peer_answers_a_legal_move() -> None:
    game = played("popout", "4 4 3")
    peer = FourTheWin(os.environ["POPREF_FOURTHEWIN"], game.rules, budget=0.1)
    assert peer.move(game) in game.legal_moves()
    assert peer.answers[0].depth > 0
