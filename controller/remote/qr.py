"""The invitation link as a QR code (segno): text for a terminal, SVG for the page.

>>> qr_code("http://pi.local:8080/remote#v=1").designator  # version 3, correction level Q
'3-Q'
>>> text = qr_text("http://pi.local:8080/remote#v=1")  # 29 modules and the border, 2 rows a line
>>> len(text.splitlines()), len(text.splitlines()[0])
(17, 33)
"""

from __future__ import annotations

import io

import segno

BORDER = 2  # quiet-zone modules around the code: enough for phone cameras


def qr_code(link: str) -> segno.QRCode:
    """The link's QR code, error correction level M (segno may raise it
    where the size allows)."""
    return segno.make_qr(link, error="m")


def qr_text(link: str) -> str:
    """The QR code as text a terminal shows, two modules a character."""
    out = io.StringIO()
    qr_code(link).terminal(out=out, compact=True, border=BORDER)
    return out.getvalue().rstrip("\n")


def qr_svg(link: str) -> str:
    """The QR code as an SVG document (for the page)."""
    out = io.BytesIO()
    qr_code(link).save(out, kind="svg", border=BORDER, scale=4, xmldecl=False)
    return out.getvalue().decode("utf-8")
