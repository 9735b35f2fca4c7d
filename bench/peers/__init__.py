"""Other programs as the other side of ``bench/matches.py`` (``--peer PATH``): each
is built by whoever runs the bench, from its own public source, outside this
repository; only the adapter to its protocol lives here."""
