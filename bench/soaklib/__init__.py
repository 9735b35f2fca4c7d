"""Helpers for ``bench/soak.py`` and ``bench/daemon.py``: players that read the
lights, a friend who plays through a broker, fault injectors, the checks
after every settled moment and the tally.

>>> from bench.soaklib.tally import Tally
>>> Tally().divergences
0
"""
