"""The daemon: the referee in a loop over a board, put together from the
configuration, with the journal, systemd and the log around it."""
