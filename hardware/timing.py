"""How long sensor levels must last: the one table for the host's debouncers
(``hardware/debounce.py``) and the sensor board (copied to it as
``timing.py``, beside ``wire.py``).

It runs unchanged under CPython and MicroPython, like ``wire.py``. All times
are in milliseconds.

- A beam's level counts once it has lasted ``BEAM_SETTLE_MS``: longer than IR
  chatter and contact bounce (up to about 5 ms), shorter than the gap
  between two discs dropped 50 ms apart (about 10-30 ms).
- ``BEAM_MIN_BLOCKED_MS``: a passage blocked for less in total is noise. The
  host adds up the blocked time of a passage whose short clear gaps it
  merges; the board keeps a level only once it has lasted the settle time,
  so on the board a blocked level shorter than ``BEAM_SETTLE_MS`` never
  happens, which is stricter than this minimum (the two agree on every real
  disc: a disc blocks a beam for 20 ms or more).
- A beam blocked for ``BEAM_STUCK_MS`` is a fault, not a disc.
- Switches (slider, button) settle in ``SWITCH_SETTLE_MS``; a button held for
  ``BUTTON_HOLD_MS`` is a hold, not a press.

>>> BEAM_MIN_BLOCKED_MS <= BEAM_SETTLE_MS < BEAM_STUCK_MS
True
"""

BEAM_SETTLE_MS = 8
BEAM_MIN_BLOCKED_MS = 3
BEAM_STUCK_MS = 3000
SWITCH_SETTLE_MS = 10
BUTTON_HOLD_MS = 2000
