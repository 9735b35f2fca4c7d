"""The referee: the game followed from physical events, what the board shows
for it and what it says, with no I/O and no clock. Everything else in the
controller is a shell around this room (docs/architecture.md)."""
