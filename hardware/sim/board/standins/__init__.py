"""Stand-ins for MicroPython's built-in modules ``machine``, ``neopixel`` and
``micropython``, so the firmware's own code runs under CPython.

They are imported as top-level ``machine`` etc. only by
:class:`hardware.simboard.firmware.Firmware`, while it loads one board's
modules, with this directory on ``sys.path`` for that moment alone; every
board gets fresh copies. Nothing else should import them by those names.
"""
