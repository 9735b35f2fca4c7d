"""Reading positions for ``popref solve`` and ``popref bestmove``, one a line.

A line holds one position: its moves separated by spaces or commas, as
``popref replay``, ``popref games`` and the page print them (``4 4 p4``,
``4,4,p4``); in Classic on a board at most 9 wide also a digit run, as the
Connect Four test sets write it (``4453``). ``-`` is the start position,
and ``#`` begins a comment; a line with nothing else (blank, or only a
comment) holds no position and is skipped, though line numbers count it. A
test-set line, a digit run and its score (``4453 -1``), reads as the
position alone; so do two Classic moves written with a space between them
(``4 3``): write them ``43`` or ``4,3``. A line is at most
:data:`MAX_LINE` characters, and an error quotes at most :data:`QUOTED` of
them.

>>> from engine import rules_named
>>> text, game = read_position("4,4 p4  # a comment", rules_named("popout"), 1)
>>> text, [str(m) for m in game.moves]
('4,4 p4', ['4', '4', 'p4'])
>>> read_position("4453 -1", rules_named("classic"), 2)[0]
'4453'
>>> try:
...     read_position("4 4 4 4 4 4 4", rules_named("classic"), 7)
... except PositionInputError as error:
...     print(error)
line 7 (4 4 4 4 4 4 4): move 7 (4): column 4 is full
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import TextIO

from engine import Game, MoveError, NotAMoveError, Rules, new_game, parse_move
from engine.move import digit_runs_allowed, split_moves

MAX_LINE = 100_000  # characters: thousands of moves, far more than any game
QUOTED = 40  # characters of the input an error line quotes
SCORE = re.compile(r"[+-]?[0-9]+")
RUN = re.compile(r"[0-9]+")


class PositionInputError(Exception):
    """A line that is not a playable position; the message names the line."""


def quoted(text: str) -> str:
    """``text`` as an error line quotes it: cut short when it is long.

    >>> quoted("4" * 1_000_000)
    '4444444444444444444444444444444444444444... (1,000,000 characters)'
    """
    if len(text) <= QUOTED:
        return text
    return f"{text[:QUOTED]}... ({len(text):,} characters)"


def lines(stream: TextIO) -> Iterator[tuple[int, str]]:
    """The lines of ``stream`` that hold a position, with their numbers (a
    blank line and a comment-only one are skipped, and counted); a line too
    long to be a position, or not UTF-8 text, is a :class:`PositionInputError`.

    Where the stream has bytes underneath (standard input), each line is
    decoded on its own, so an error names the line it is in.

    >>> import io
    >>> list(lines(io.StringIO("\\n  # a comment\\n-\\n4 # four\\n")))
    [(3, '-\\n'), (4, '4 # four\\n')]
    """
    raw = getattr(stream, "buffer", None)
    for number in itertools.count(1):
        if raw is None:
            line = stream.readline(MAX_LINE + 1)
        else:
            data = raw.readline(MAX_LINE + 1)
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError:
                raise PositionInputError(f"line {number}: not UTF-8 text") from None
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith("\n"):
            raise PositionInputError(
                f"line {number}: over {MAX_LINE:,} characters: give one position a line"
            )
        if line.split("#", 1)[0].strip():
            yield number, line


def read_position(line: str, rules: Rules, number: int) -> tuple[str, Game]:
    """The position of ``line``: its text as given (without a comment or a
    test-set score) and the game after its moves, which must go on. A line
    without moves reads as ``-``, the start position (:func:`lines` skips
    such a line unless it is ``-``)."""
    fields = line.split("#", 1)[0].split()
    test_set = len(fields) == 2 and RUN.fullmatch(fields[0]) and SCORE.fullmatch(fields[1])
    if test_set and digit_runs_allowed(rules):
        fields = fields[:1]  # the test set's score: the position is the run
    text = " ".join(fields) or "-"
    game = new_game(rules)
    if text != "-":
        # split_moves: the engine's reading of move text, digit runs included
        tokens = split_moves(text.replace(",", " "), rules)
        for index, (token, _line) in enumerate(tokens, start=1):
            try:
                game.play(parse_move(token))
            except MoveError as error:
                reason = error.reason if isinstance(error, NotAMoveError) else str(error)
                raise PositionInputError(
                    f"line {number} ({quoted(text)}): move {index} ({quoted(token)}): {reason}"
                ) from None
    if game.is_over():
        raise PositionInputError(
            f"line {number} ({quoted(text)}): the game is over; give a position with a move to play"
        )
    return text, game
