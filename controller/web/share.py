"""A finished game's share link (docs/remote.md, "Share links"): the remote
page replays the game from the link's fragment alone, without the board or
any server state. The fragment carries what the engine knows and the page
must not work out itself: the start position (5-in-a-Row's edge strips), who
made each move and which Pop 10 pops scored, the result and the winning line.

>>> from controller.web.replay import replay
>>> data = replay("Rules: classic\\nSize: 4x4\\nResult: red\\n\\n1 2 1 2 1 2 1\\n")
>>> share_fragment(data, 3)
'share=1&n=3&r=classic&z=4x4&m=1+2+1+2+1+2+1&b=ryryryr&e=red&x=1.1%2C1.2%2C1.3%2C1.4'
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

VERSION = "1"
# The most moves of a share link the remote page replays (GET /api/rules gives
# it to the page): far more than any game, and few enough that the page, which
# keeps every position, replays a forged link's in a moment.
MOST_MOVES = 10_000


def share_fragment(data: dict[str, Any], number: int) -> str:
    """The fragment of game ``number``'s share link, from its replay
    (:func:`controller.web.replay.replay`)."""
    start = data["positions"][0]
    scores = data["scores"]
    movers = []
    for ply, colour in enumerate(data["by"]):
        side = 0 if colour == "red" else 1
        scored = scores[ply + 1][side] > scores[ply][side]
        letter = colour[0]
        movers.append(letter.upper() if scored else letter)
    pairs = [
        ("share", VERSION),
        ("n", str(number)),
        ("r", data["rules"]),
        ("z", f"{len(start[0])}x{len(start)}"),
        ("m", " ".join(data["moves"])),
        ("b", "".join(movers)),
    ]
    if any(cell != "." for row in start for cell in row):
        pairs.append(("i", "/".join(start)))
    if data["result"] in ("red", "yellow", "draw"):
        pairs.append(("e", data["result"]))
    if data["winning"]:
        pairs.append(("x", ",".join(f"{column}.{row}" for column, row in data["winning"])))
    return urlencode(pairs)
