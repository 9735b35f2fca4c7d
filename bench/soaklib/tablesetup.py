"""How one soak table is set up and how careless its players are."""

from __future__ import annotations

from dataclasses import dataclass

from hardware.sim.grid import Physics


@dataclass(frozen=True, slots=True)
class TableSetup:
    """How one table is set up and how careless its players are.

    ``rough``: 5 ms contact bounce and IR chatter on every edge. ``link``:
    what the simulated grid drives, ``"gpio"`` or ``"serial"``.
    ``friend_fault_rate``: how often a friend on the broker (a table with
    a remote seat) or the network misbehaves on the friend's turn.
    """

    preset: str
    colour_sensing: bool = False
    rough: bool = False
    columns: int = 7
    rows: int = 6
    mistake_rate: float = 0.12
    fault_rate: float = 0.06
    abandon_rate: float = 0.25
    friend_fault_rate: float = 0.3
    seed: int = 0
    faults: tuple[str, ...] = ("stuck-beam", "glitch", "missed-edge")
    link: str = "gpio"

    def physics(self) -> Physics:
        return Physics.rough() if self.rough else Physics()
