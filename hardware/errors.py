"""Errors the hardware layer and the configuration raise.

Each message is one plain line that names what is wrong (file, key, pin) and
how to fix it; the command line prints it and exits with status 2.
"""


class ConfigError(ValueError):
    """The configuration is wrong: a bad key, value, pin or combination."""


class HardwareError(RuntimeError):
    """The hardware cannot be used: no pin factory, no permission, no port."""
