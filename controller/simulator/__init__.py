"""The simulated grid as people and scripts play it: the daemon in simulated
time, the terminal's picture and prompt, and scripts of physical actions."""
