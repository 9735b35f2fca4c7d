"""The searches' tables: bytearrays the compiled cores read and write.

>>> table = bytearray(b"abc")
>>> clear(table)
>>> table
bytearray(b'\\x00\\x00\\x00')
"""

from __future__ import annotations

import ctypes


def clear(table: bytearray) -> None:
    """Set every byte of ``table`` to zero (an empty slot), in place.

    ``table[:] = bytes(len(table))`` built a second table of zeros to copy
    from: 29 ms and a page fault every 4 KB for the solver's 34 MB here,
    against 2 ms for this. A book build clears a table before each position
    it counts, and the fast search under the repetition rule before each
    search.
    """
    if table:
        ctypes.memset((ctypes.c_char * len(table)).from_buffer(table), 0, len(table))


__all__ = ["clear"]
