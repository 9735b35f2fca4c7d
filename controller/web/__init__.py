"""The live web view: the board on every phone at the table, and control from
a paired one (docs/web.md).

- :mod:`controller.web.server`: the HTTP server beside the daemon's loop;
- :mod:`controller.web.api`: the page's calls;
- :mod:`controller.web.exchange`: one request checked (host, origin, size,
  time, pairing) and answered (headers, errors in every language);
- :mod:`controller.web.hub`: the latest state for the event streams;
- :mod:`controller.web.pairing`: pairing requests and tokens;
- :mod:`controller.web.replay`: archived games position by position;
- ``static/``: the page (plain HTML, CSS and JavaScript; no CDN).
"""
