"""Stand-ins for MicroPython's built-in modules ``machine``, ``neopixel`` and
``micropython``, so the firmware's own code runs under CPython.

They are imported as top-level ``machine`` etc. only by
:class:`hardware.sim.board.firmware.Firmware`, while it loads one board's
modules, with this directory on ``sys.path`` for that moment alone; every
board gets fresh copies. Nothing else should import them by those names,
except ``tests/micropython/`` and ``bench/firmware.py``, which put this
directory on a real MicroPython's path: ``machine`` and ``neopixel`` run
there too (MicroPython's own ``micropython`` module wins over the stand-in).
"""
