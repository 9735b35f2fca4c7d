"""The computer opponent: an exact Classic solver and a search for every game.

Pure like the rest of ``engine``: no I/O, no clocks, no threads. A caller
bounds a search with :class:`Limits` (a ``should_stop`` callable it may set
from another thread, a node budget) and gets a :class:`Choice`: the move,
per-move scores, where the move came from.

>>> from engine import new_game
>>> game = new_game("popout")
>>> choice = Opponent(game.rules, level=4, seed=1).choose(game)
>>> game.is_legal(choice.move), choice.source
(True, 'search')
"""

from engine.solver.classic import ClassicSolver
from engine.solver.cores import COMPILED
from engine.solver.fastsearch import FastSearch
from engine.solver.limits import Limits, SearchStopped
from engine.solver.opponent import MAX_LEVEL, MIN_LEVEL, Choice, Opponent
from engine.solver.position import Position
from engine.solver.search import GameSearch, SearchResult

__all__ = [
    "COMPILED",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "Choice",
    "ClassicSolver",
    "FastSearch",
    "GameSearch",
    "Limits",
    "Opponent",
    "Position",
    "SearchResult",
    "SearchStopped",
]
