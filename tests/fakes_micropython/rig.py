"""Re-exports of :mod:`hardware.simboard` under the rig's old name."""

from hardware.simboard import Firmware, FirmwareLights, FirmwareWires, Pair, PtyStream

__all__ = ["Firmware", "FirmwareLights", "FirmwareWires", "Pair", "PtyStream"]
