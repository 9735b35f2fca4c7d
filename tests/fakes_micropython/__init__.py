"""Stand-ins for MicroPython's built-in modules, so the firmware's own code runs
under CPython in the tests. Only :mod:`rig` is imported as part of ``tests``;
the other modules are imported by the firmware as ``machine``, ``neopixel`` and
``micropython`` while a :class:`rig.Firmware` has this directory on sys.path.
"""
