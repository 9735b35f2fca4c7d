"""The interactive terminal with a remote seat (``popref simulate --remote
yellow`` without ``--script``): the friend's move appears while nobody
types, as a command from the page does."""

from __future__ import annotations

import io
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from controller.daemon.config import parse_config
from controller.referee.commands import RulesChosen
from controller.remote.client import RemoteClient
from controller.remote.link import parse_link
from controller.simulator.simulation import Simulation
from controller.simulator.terminal import interact
from engine.colour import Colour
from hardware.clock import FakeClock
from tests.broker import Mosquitto
from tests.test_remote_linked import grid_a, grid_b
from tests.test_remote_seat import WAIT, act

SHOWN = "Your friend's move: drop a Yellow disc into column 5; make it on the grid."
COPY = "Your friend's move: drop a Red disc into column 4; make it on the grid."


class Still:
    """Typed lines while real time stands still: a wait for the daemon's next
    deadline never runs out (the terminal's own deadlines, a blinking light's,
    cannot redraw the picture), only a line or a wake ends it."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()

    def type(self, line: str) -> None:
        self.lines.put(line)

    def get(self, timeout: float | None) -> str | None:
        try:
            # longer than any test waits for the picture: only a wake redraws it
            return self.lines.get(timeout=2 * WAIT)
        except queue.Empty:
            return None

    def wake(self) -> None:
        self.lines.put(None)


def prompt(simulation: Simulation, typed: Still, out: io.StringIO) -> threading.Thread:
    """The terminal's prompt on its own thread, in real time that stands still."""
    session = threading.Thread(
        target=interact,
        args=(simulation, io.StringIO(), out),
        kwargs={"typed": typed, "clock": FakeClock(100.0)},
    )
    session.start()
    return session


def test_the_friends_move_shows_without_anyone_typing(mosquitto: Mosquitto, tmp_path: Path) -> None:
    config = parse_config({"remote": {"broker": mosquitto.url}}, "test.toml")
    simulation = Simulation(config, tmp_path / "state", remote=Colour.YELLOW)
    typed, out = Still(), io.StringIO()
    session = prompt(simulation, typed, out)
    friend = RemoteClient(parse_link(simulation.links[-1]), name="friend")
    friend.start()
    try:
        typed.type("4\n")  # Red, at the grid
        assert friend.wait(lambda: (friend.state or {}).get("ply") == 1, WAIT)
        seq = friend.request("5", 1)
        assert friend.wait(lambda: seq in friend.replies, WAIT)
        # nobody types: the prompt wakes for the friend's request and draws it
        end = time.monotonic() + WAIT
        while SHOWN not in out.getvalue() and time.monotonic() < end:
            session.join(0.05)
        assert SHOWN in out.getvalue()
    finally:
        friend.close()
        typed.type("q\n")
        session.join(WAIT)
        simulation.close()


def test_the_other_grid_s_move_shows_on_a_joining_terminal_without_anyone_typing(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(a.links[-1], tmp_path / "b")
    typed, out = Still(), io.StringIO()
    session = prompt(b, typed, out)
    try:
        act(a, "drop 4")  # Red, on grid A
        # nobody types at B: its prompt wakes for A's move and draws it
        end = time.monotonic() + WAIT
        while COPY not in out.getvalue() and time.monotonic() < end:
            a.wait_real(0.05)  # A answers B's hello and presence
        assert COPY in out.getvalue()
    finally:
        typed.type("q\n")
        session.join(WAIT)
        b.close()
        a.close()


DOWN = "The link to the other side is down"


class Watched(io.StringIO):
    """Standard output whose reader waits for what is written, not for time."""

    def __init__(self) -> None:
        super().__init__()
        self.written = threading.Condition()

    def write(self, text: str) -> int:
        with self.written:
            count = super().write(text)
            self.written.notify_all()
        return count

    def last_picture(self) -> str:
        """The last picture drawn: from its last column numbers to its end."""
        said = self.getvalue()
        return said[said.rfind("  1 2 3 4 5 6 7") :]

    def shows(self, done: Callable[[str], bool]) -> bool:
        """Whether the last picture drawn satisfies ``done`` within WAIT
        seconds (nobody types: only a wake can draw it)."""
        with self.written:
            return self.written.wait_for(lambda: done(self.last_picture()), WAIT)


def test_both_terminals_redraw_when_the_link_goes_down_and_comes_back(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    a = grid_a(mosquitto, tmp_path / "a")
    b = grid_b(a.links[-1], tmp_path / "b")
    (typed_a, out_a), (typed_b, out_b) = (Still(), Watched()), (Still(), Watched())
    sessions = [prompt(a, typed_a, out_a), prompt(b, typed_b, out_b)]
    try:
        assert out_a.shows(lambda picture: DOWN not in picture)
        assert out_b.shows(lambda picture: DOWN not in picture)
        # a game with a remote seat: the link matters to the picture
        typed_a.type("4\n")
        assert out_b.shows(lambda picture: COPY in picture)
        mosquitto.stop()
        # nobody types: each prompt wakes for its link's change and draws it
        assert out_a.shows(lambda picture: DOWN in picture), out_a.getvalue()
        assert out_b.shows(lambda picture: DOWN in picture), out_b.getvalue()
        mosquitto.start()
        assert out_a.shows(lambda picture: DOWN not in picture), out_a.getvalue()
        assert out_b.shows(lambda picture: DOWN not in picture), out_b.getvalue()
    finally:
        for typed in (typed_a, typed_b):
            typed.type("q\n")
        for session in sessions:
            session.join(WAIT)
        b.close()
        a.close()


def test_what_came_before_the_prompt_listened_is_drawn_at_once(tmp_path: Path) -> None:
    simulation = Simulation(parse_config({}, "test"), tmp_path)
    # an input from another thread (the other grid's hello, the broker's
    # connection coming up) waits for the loop, its wake gone to nobody
    simulation.daemon.submit(RulesChosen("popout"))
    typed, out = Still(), Watched()
    session = threading.Thread(
        target=interact,
        args=(simulation, io.StringIO(), out),
        kwargs={"typed": typed, "clock": FakeClock(100.0)},
    )
    session.start()
    try:
        # nobody types, and real time stands still: only taking it at once draws it
        assert out.shows(lambda picture: "Red to move, Pop Out." in picture)
    finally:
        typed.type("q\n")
        session.join(WAIT)
        simulation.close()
