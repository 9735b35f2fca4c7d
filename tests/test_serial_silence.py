"""Each fault of the sensor board in the daemon's log once."""

from __future__ import annotations

import logging
from pathlib import Path

from controller.daemon.config import parse_config
from controller.simulator.simulation import Simulation
from hardware.serial_backend import GONE
from hardware.sim.board import BoardTimeline


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.said.append(record.getMessage())


def test_a_fault_of_the_sensor_board_is_logged_once(tmp_path: Path) -> None:
    """The backend logged each fault and the referee logged it again."""
    logger = logging.getLogger("popref")
    kept = Kept()
    logger.addHandler(kept)
    level = logger.level
    logger.setLevel(logging.INFO)
    config = parse_config({"sim": {"link": "serial"}}, "test")
    sim = Simulation(config, tmp_path / "state")
    try:
        assert isinstance(sim.board, BoardTimeline)
        sim.board.firmware.stream.outgoing = lambda data: b""  # nothing reaches the host
        sim.advance(2.0)
        sim.board.firmware.stream.outgoing = None
        sim.advance(2.0)
    finally:
        sim.close()
        logger.removeHandler(kept)
        logger.setLevel(level)
    said = kept.said
    assert [s for s in said if "stopped answering" in s] == [
        f"Sensor fault on sensor board: {GONE}"
    ]
    assert [s for s in said if "sensor board" in s.lower() and "again" in s] == []
    assert said.count("The fault on sensor board has cleared.") == 1
