"""The computer's thinking beside the daemon: searches on a thread or in a
process of their own, and which search the daemon wants now. Who the computer
plays, and the move it chose, are the referee's (:mod:`controller.referee.computer_seat`)."""
