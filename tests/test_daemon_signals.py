"""SIGTERM stops ``popref run`` wherever it lands: before the loop first
waits, while it is busy, or while it waits.

A signal is raised at every line the loop runs (its own, and the threading
and wake-up code it calls on the main thread: a trace function raises it as
that line is about to run), each time in a fresh ``popref run`` on the
simulated grid, all inside one child process. A lost stop is found by a
second signal three seconds later; a stuck one by the child's timeout. This
reproduces the flaky hang of ``test_a_restart_resumes_the_journal``
deterministically: the old handler called ``threading.Event.set`` on the
event the loop was clearing or waiting on, and a signal landing while the
loop held that event's lock deadlocked the process for good.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHILD = r"""
import argparse, signal, sys, threading, types
from pathlib import Path

from controller.daemon import loop as daemon_module, wakeup
from controller.cli import run as run_cmd

work = Path(sys.argv[1])
config = work / "config.toml"
config.write_text('[board]\nbackend = "sim"\n')
RUN = daemon_module.Daemon.run.__code__
# where a signal can land while the loop runs: its own lines, and the
# threading and wake-up code it calls on the main thread
FILES = (threading.__file__, RUN.co_filename, wakeup.__file__)


def serve(on_line: types.FunctionType) -> int:
    inside = [0]

    def tracer(frame: types.FrameType, event: str, arg: object) -> object:
        if frame.f_code is RUN:
            inside[0] += 1
        elif not inside[0] or frame.f_code.co_filename not in FILES:
            return None

        def local(frame: types.FrameType, event: str, arg: object) -> object:
            if event == "line":
                on_line((frame.f_code.co_filename, frame.f_lineno))
            elif event == "return" and frame.f_code is RUN:
                inside[0] -= 1
            return local

        return local

    args = argparse.Namespace(config=config, rules=None, state_dir=work / "state")
    sys.settrace(tracer)
    try:
        return run_cmd.run(args)
    finally:
        sys.settrace(None)


# a survey: every line the loop runs before it is asked to stop
seen = set()
surveyed = threading.Event()


def survey(where: tuple[str, int]) -> None:
    if not surveyed.is_set():
        if not seen:
            # the loop runs, so its handler is in place (a start-up slower than
            # a fixed second on a loaded machine must not meet the signal first)
            threading.Timer(1.0, end_survey).start()
        seen.add(where)


def end_survey() -> None:
    surveyed.set()
    signal.raise_signal(signal.SIGTERM)


serve(survey)
print(f"{len(seen)} lines", flush=True)

for target in sorted(seen):
    fired = threading.Event()
    late = threading.Event()

    def land(where: tuple[str, int]) -> None:
        if where == target and not (fired.is_set() or late.is_set()):
            fired.set()
            signal.raise_signal(signal.SIGTERM)

    def rescue() -> None:
        # the first signal was lost: a second one ends this run (if it can)
        late.set()
        signal.raise_signal(signal.SIGTERM)

    print(f"{target}: ...", flush=True)
    timer = threading.Timer(3.0, rescue)
    timer.start()
    status = serve(land)
    timer.cancel()
    if not fired.is_set():
        print(f"{target}: not reached", flush=True)
    elif late.is_set():
        print(f"{target}: LOST (status {status})", flush=True)
    else:
        print(f"{target}: stopped (status {status})", flush=True)
"""


def test_sigterm_anywhere_in_the_loop_stops_it(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    with out.open("w") as report_file:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(tmp_path)],
            stdout=report_file,
            stderr=subprocess.DEVNULL,
        )
        try:
            child.wait(timeout=180)  # a hang, not a slow machine: each line is a fresh run
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    report = out.read_text().splitlines()
    assert child.returncode == 0, f"stuck after a signal at {report[-1:]}"
    results = [line for line in report if not line.endswith(": ...")]
    stopped = [line for line in results if line.endswith("stopped (status 0)")]
    assert len(stopped) >= 10, report  # the loop's lines were really exercised
    lost = [
        line for line in results[1:] if not line.endswith(("stopped (status 0)", "not reached"))
    ]
    assert not lost, lost
