"""What is kept on disk: the journal of the game in progress, its records and
their codec, the referee's snapshot, and the archive of finished games."""
