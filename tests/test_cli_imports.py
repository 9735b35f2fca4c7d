"""``popref replay`` is the engine alone: the command table imports each
command lazily, so neither importing it nor replaying loads the simulator,
gpiozero or pyserial."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from controller.cli import COMMANDS, build_parser

HEAVY = ("gpiozero", "serial", "hardware.sim")

CHILD = """
import contextlib, io, json, sys
import controller.cli
after_import = sorted(sys.modules)
with contextlib.redirect_stdout(io.StringIO()) as out:
    status = controller.cli.main(sys.argv[1:])
print(json.dumps({"import": after_import, "run": sorted(sys.modules), "status": status,
                  "out": out.getvalue()}))
"""


def loaded(argv: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *argv], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def heavy(modules: object) -> list[str]:
    assert isinstance(modules, list)
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_importing_the_command_table_and_replaying_load_no_hardware_library() -> None:
    result = loaded(["replay", "--rules", "popout", "4 4 p4"])
    assert result["status"] == 0 and "Pop Out" in str(result["out"])
    assert heavy(result["import"]) == []
    assert heavy(result["run"]) == []


def test_the_simulate_command_still_brings_the_simulator() -> None:
    # the check above can fail: this is what it would see
    result = loaded(["simulate", "--script", "/dev/null", "--json"])
    assert result["status"] == 0
    assert {"gpiozero", "serial", "hardware.sim"} <= set(heavy(result["run"]))


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_chosen_alone_has_all_its_arguments(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    def help_of(parser: argparse.ArgumentParser) -> str:
        with pytest.raises(SystemExit) as exit:
            parser.parse_args([name, "--help"])
        assert exit.value.code == 0
        return capsys.readouterr().out

    alone = help_of(build_parser([name, "--help"]))
    assert alone == help_of(build_parser())  # the table with every command's arguments
    assert alone.count("--") > 1  # options besides --help


BOARD_CHILD = """
import json, sys, time
from controller.daemon.assembly import build_backend
from controller.daemon.config import parse_config
table = {"board": {"backend": "gpio"}, "gpio": {"pin_factory": "mock"}}
backend, simulated = build_backend(parse_config(table, "config.toml"), time.monotonic)
backend.open(lambda: None)
backend.close()
print(json.dumps({"simulated": simulated is not None, "modules": sorted(sys.modules)}))
"""


def test_a_gpio_board_on_mock_pins_is_no_simulated_grid() -> None:
    """``[gpio] pin_factory = "mock"`` asks for gpiozero's mock pins, not
    for the simulator: the product imports hardware.sim only for a simulated
    board (docs/architecture.md)."""
    done = subprocess.run(
        [sys.executable, "-c", BOARD_CHILD], capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    assert result["simulated"] is False and "gpiozero" in result["modules"]
    assert [m for m in result["modules"] if m.startswith("hardware.sim")] == []
