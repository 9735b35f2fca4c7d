"""The remote page's files (docs/remote.md): what popref's own server serves
at ``/remote`` and beside it, and what ``popref remote-page DIR`` writes for
a broker's static server (Mosquitto's ``http_dir``), which cannot send
headers: there the page carries its policy in a ``<meta>`` element.

>>> policy("ws://pi.local:9001").split("; ")[4]
"connect-src 'self' ws://pi.local:9001"
>>> policy(None) == policy()
True
"""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
from typing import Any

from controller.i18n.text import LANGUAGES
from controller.remote.address import BROWSER, broker_address
from controller.web.page_text import page_catalog

PAGE = "/remote"  # where popref's own server serves the remote page
HTML = "text/html; charset=utf-8"
SCRIPT = "text/javascript; charset=utf-8"
# the remote page's files beside the main page's: address -> (file, type)
FILES: dict[str, tuple[str, str]] = {
    PAGE: ("remote.html", HTML),
    "/remote.js": ("remote.js", SCRIPT),
    "/protocol.js": ("protocol.js", SCRIPT),
    "/board.js": ("board.js", SCRIPT),
    "/remote.css": ("remote.css", "text/css; charset=utf-8"),
    "/vendor/mqtt/mqtt.min.js": ("vendor/mqtt/mqtt.min.js", SCRIPT),
    **{
        f"/vendor/noble-hashes/{name}": (f"vendor/noble-hashes/{name}", SCRIPT)
        for name in ("hmac.js", "sha2.js", "_md.js", "_u64.js", "utils.js")
    },
}
# the main page's files the remote page shares (the table in server.py)
SHARED = ("strings.js", "app.css", "icon.svg")
# where a page from a static server finds what popref's own serves at /api/
STRINGS_DIR = "strings"
RULES_FILE = "rules.json"
LICENCES = ("vendor/mqtt/LICENSE.md", "vendor/noble-hashes/LICENSE", "vendor/vendor.json")
# the one place the policy's connect-src is made: 'self', and the browsers' broker
_META = '<meta name="referrer" content="no-referrer">'


def policy(web_broker: str | None = None) -> str:
    """The pages' Content-Security-Policy; the remote page's also lets it
    reach the browsers' broker (``[remote] web_broker``), that one origin."""
    connect = "'self'"
    if web_broker:
        address = broker_address(web_broker, BROWSER)
        host = f"[{address.host}]" if ":" in address.host else address.host
        connect += f" {address.scheme}://{host}:{address.port}"
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        f"connect-src {connect}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def static(name: str) -> bytes:
    return (importlib.resources.files("controller.web") / "static" / name).read_bytes()


def write_page(directory: Path, web_broker: str, rules: dict[str, Any]) -> list[Path]:
    """Write the remote page into ``directory`` for a static server: the page
    as ``index.html`` with its policy in a ``<meta>`` element (a meta policy
    cannot say ``frame-ancestors``; browsers ignore that part there), its
    scripts, styles, the vendored libraries and their licences, the
    sentences of every language (``strings/<code>.json``) and the lamp table
    (``rules.json``). The files written, in order."""
    written: list[Path] = []

    def put(name: str, data: bytes) -> None:
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)

    meta = policy(web_broker).replace("; frame-ancestors 'none'", "")
    page = static("remote.html").decode("utf-8")
    page = page.replace(
        _META, f'{_META}\n<meta http-equiv="Content-Security-Policy" content="{meta}">', 1
    )
    put("index.html", page.encode("utf-8"))
    for name, _ in FILES.values():
        if name != "remote.html":
            put(name, static(name))
    for name in (*SHARED, *LICENCES):
        put(name, static(name))
    put(f"{STRINGS_DIR}/index.json", _json({"languages": LANGUAGES}))
    for code in LANGUAGES:
        put(f"{STRINGS_DIR}/{code}.json", _json(page_catalog(code, with_messages=True)))
    put(RULES_FILE, _json(rules))
    return written


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
