"""The invitation's QR code, decoded back to its link by zxing-cpp (a decoder
independent of segno, which made it): the terminal's text, read as a camera
would see it on a dark terminal, and the SVG's modules."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from controller.referee.invitation import Invitation, b64url
from controller.remote.link import Link
from controller.remote.qr import BORDER, qr_code, qr_svg, qr_text
from engine.colour import Colour
from tests.qrcodes import qr_texts

# each character of the terminal's text is two modules, top and bottom;
# the printed part (the terminal's light foreground) is a light module
HALVES = {" ": (0, 0), "▀": (1, 0), "▄": (0, 1), "█": (1, 1)}
PIXELS = 4  # a module's size in the picture the decoder reads


def link_for(game: bytes, key: bytes, colour: Colour) -> str:
    invitation = Invitation(b64url(game), key, colour, made_at=0.0)
    return Link.of(
        invitation,
        "http://raspberrypi.local:8080/remote",
        "five+pop10",
        broker="mqtt://raspberrypi.local:1883",
        web_broker="ws://raspberrypi.local:9001",
    ).url()


def decoded(light: list[list[int]]) -> list[str]:
    """The QR codes read in a picture of light (1) and dark (0) modules."""
    modules = np.array(light, dtype=np.uint8) * 255
    return qr_texts(np.kron(modules, np.ones((PIXELS, PIXELS), np.uint8)))


@settings(max_examples=20)
@example(  # its modules also read as an ITF barcode, '5898'
    b"$w~/g\xd46E\xf0\xa0\xee@v\t\xf2\x97",
    b"\x85\x04\x15X\x0b\x00\xf43\xcd\x89'\xd1\x93C\xe2\xb8\xb4)\t.dm\xc4-b\xa9\x9c\xb4\xf0o\x0e\xf7",
    Colour.RED,
)
@given(
    st.binary(min_size=16, max_size=16),
    st.binary(min_size=32, max_size=32),
    st.sampled_from(list(Colour)),
)
def test_the_terminals_qr_code_reads_back_as_the_link(
    game: bytes, key: bytes, colour: Colour
) -> None:
    link = link_for(game, key, colour)
    light: list[list[int]] = []
    for line in qr_text(link).splitlines():
        light += [[HALVES[c][0] for c in line], [HALVES[c][1] for c in line]]
    assert decoded(light) == [link]


def test_the_svg_draws_the_same_modules() -> None:
    link = link_for(bytes(16), bytes(range(32)), Colour.RED)
    code = qr_code(link)
    svg = ElementTree.fromstring(qr_svg(link))
    path = next(e for e in svg.iter() if e.tag.endswith("path"))
    # the path strokes each row in module units, scaled by its transform
    dark = _modules(path.get("d", ""), scale=1, size=len(code.matrix) + 2 * BORDER)
    assert decoded([[0 if cell else 1 for cell in row] for row in dark]) == [link]


def _modules(d: str, scale: int, size: int) -> list[list[int]]:
    """The dark modules an SVG path of horizontal strokes (segno's) draws."""
    grid = [[0] * size for _ in range(size)]
    x = y = 0.0
    for command, numbers in re.findall(r"([MmHhVv])\s*([-\d.\s]+)", d):
        values = [float(n) for n in numbers.split()]
        if command in "Mm":
            dx, dy = values[0], values[1]
            x, y = (x + dx, y + dy) if command == "m" else (dx, dy)
        elif command in "Hh":
            end = x + values[0] if command == "h" else values[0]
            row = int(y // scale)
            for column in range(int(min(x, end) // scale), int(max(x, end) // scale)):
                grid[row][column] = 1
            x = end
        else:
            y = y + values[0] if command == "v" else values[0]
    return grid


@pytest.mark.parametrize("colour", list(Colour))
def test_a_long_link_still_fits_a_phone_cameras_code(colour: Colour) -> None:
    link = link_for(bytes(16), bytes(32), colour)
    version = qr_code(link).version  # 12: 65 modules, read off a screen by any phone
    assert isinstance(version, int) and version <= 12
