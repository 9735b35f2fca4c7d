"""Random small Classic positions for property tests of the exact solver:
a 5x4 board, solved in full in milliseconds by the pure-Python core."""

from __future__ import annotations

from hypothesis import strategies as st

from engine.solver.position import Position


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """A 5x4 Classic position after a few random drops, not over."""
    position = Position.empty(5, 4)
    for _ in range(draw(st.integers(0, 12))):
        playable = [c for c in range(1, 6) if position.can_play(c)]
        column = draw(st.sampled_from(playable))
        if position.wins_with(column) or position.moves + 1 == 20:
            break
        position = position.play(column)
    return position
