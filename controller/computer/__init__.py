"""The computer's searches beside the daemon's loop: where a search runs
(:mod:`~controller.computer.thinker`: what every thinker does, and the two in
the daemon's own process, on a worker thread or inline;
:mod:`~controller.computer.process`: in a process of its own), and which
search the daemon dispatches to it now (:mod:`~controller.computer.dispatch`),
and the Classic solver's helper thread on machines with cores to spare
(:mod:`~controller.computer.helper`).
Who the computer plays, and the move it chose, are the referee's
(:mod:`controller.referee.computer_seat`)."""
