"""Moved to :mod:`hardware.simboard`, so the installed package can run a
simulated sensor board; :mod:`tests.fakes_micropython.rig` re-exports it for
scripts that still import it from here (``bench/serial.py``)."""
