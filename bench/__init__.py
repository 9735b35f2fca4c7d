"""Benchmarks: plain scripts, run as ``python bench/NAME.py``; a package only
so that type checking sees ``bench.engine`` apart from the ``engine`` package."""
