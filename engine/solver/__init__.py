"""Computer opponents: exact solvers and searches over the rules engine."""
