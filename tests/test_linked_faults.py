"""Two linked grids (issue 23), each reaching a real Mosquitto only through a
fault proxy of its own (bench/soaklib/mqttproxy.py) that duplicates, delays
and reorders their messages, and cuts each path once mid-game: both
journals must end with the same game, every move once, no hand needed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from bench.soaklib.mqttproxy import MqttProxy
from controller.daemon.config import parse_config
from controller.simulator.simulation import Simulation
from engine.colour import Colour
from tests.broker import Mosquitto
from tests.test_remote_faults import CUT, NOISY
from tests.test_remote_linked import both, grid_b, linked, same_game, waits
from tests.test_remote_seat import act

pytestmark = pytest.mark.slow

# Classic, Red on A and Yellow on B; Red wins along the bottom row
GAME = ("1", "7", "1", "7", "2", "6", "2", "6", "3", "5", "4")
# before which move which path (0: A's, 1: B's) is cut: each time the grid cut
# off must hear the other's move once its connection is back
CUTS = {4: 0, 7: 1}


@pytest.fixture
def proxies(mosquitto: Mosquitto) -> Iterator[tuple[MqttProxy, MqttProxy]]:
    upstream = ("127.0.0.1", mosquitto.port)
    pair = (MqttProxy(upstream, seed=23), MqttProxy(upstream, seed=24))
    for proxy in pair:
        proxy.start()
        proxy.mix(NOISY)
    try:
        yield pair
    finally:
        for proxy in pair:
            proxy.close()


def test_linked_grids_through_a_noisy_network_and_two_cuts_keep_one_game(
    proxies: tuple[MqttProxy, MqttProxy], tmp_path: Path
) -> None:
    path_a, path_b = proxies
    config = parse_config({"remote": {"broker": path_a.url}}, "test.toml")
    a = Simulation(config, tmp_path / "a", "classic", remote=Colour.YELLOW)
    # the same link, but B reaches the broker through its own path
    link = a.links[-1].replace(quote(path_a.url, safe=""), quote(path_b.url, safe=""))
    assert link != a.links[-1]
    b = grid_b(link, tmp_path / "b")
    try:
        assert both(a, b, lambda: linked(a, b))
        for ply, move in enumerate(GAME, start=1):
            if ply in CUTS:
                proxies[CUTS[ply]].cut(CUT)  # a path reset and refused a while
            owner, copier = (a, b) if ply % 2 else (b, a)
            act(owner, f"drop {move}")
            assert both(a, b, waits(copier, move)), (ply, copier.daemon.state())
            act(copier, f"drop {move}")
            assert len(a.daemon.referee.game.moves) == len(b.daemon.referee.game.moves) == ply
        assert both(a, b, lambda: linked(a, b))
        same_game(a, b)
        assert [str(m) for m in b.daemon.referee.game.moves] == list(GAME)
        assert a.daemon.state()["result"] == b.daemon.state()["result"] == "red"
    finally:
        b.close()
        a.close()
    assert path_a.counts["cut"] == path_b.counts["cut"] == 1
    for kind in ("duplicate", "delay", "reorder"):
        assert path_a.counts[kind] + path_b.counts[kind], (path_a.counts, path_b.counts)
