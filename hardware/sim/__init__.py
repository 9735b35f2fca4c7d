"""The simulated grid: the physical board, in software, beside the real drivers.

Nothing here is imported when popref runs on real hardware. The simulation
drives the same seams real sensors do, never the daemon:

- :mod:`hardware.sim.seam`: what the simulated grid drives (``SensorWires``)
  and what the players would see (``LightReader``/``ShownLights``).
- :mod:`hardware.sim.grid`: :class:`~hardware.sim.grid.SimGrid`, discs,
  gravity, beams, the slider and the button, on a seeded timeline.
- :mod:`hardware.sim.gpio`: the seam on gpiozero's mock pins;
  :mod:`hardware.sim.mockpins`: mock pins that remember when they changed.
- :mod:`hardware.sim.board`: the real firmware under CPython on a pty, with
  the seam on its stand-in pins and LED strip, in lock step with the host.
- :mod:`hardware.sim.backend`: the whole simulated table, and the one
  backend the daemon sees (the real backend, with the simulation's timeline
  run before each poll).
"""
