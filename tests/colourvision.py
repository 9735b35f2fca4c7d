"""Colours as people with the three kinds of dichromacy see them, and how far
apart two colours are, for the colour-blindness tests (tests/test_looks.py
for the lamps, tests/test_web_colourblind.py for the page).

The simulation is Machado, Oliveira and Fernandes (2009), "A Physiologically-
based Model for Simulation of Color Vision Deficiency", IEEE TVCG 15(6): their
published matrices for severity 1.0 (full protanopia, deuteranopia and
tritanopia), applied to linear sRGB. Distances:

- the WCAG 2.1 contrast ratio (relative luminance), whose thresholds are
  published for this use: 3:1 for a graphical object a reader needs to
  understand the content (SC 1.4.11), 4.5:1 for text (SC 1.4.3);
- CIELAB's Delta E*ab (CIE 1976) for two colours that stand for different
  things: 2.3 is one just-noticeable difference for large patches side by
  side (Sharma 2003), small marks need several times more to be told apart
  (Szafir 2017), so :data:`APART` asks for 20, about nine of them.

>>> round(contrast((0, 0, 0), (255, 255, 255)), 1)
21.0
>>> red, yellow = simulate([[220, 38, 38], [250, 204, 21]], "deuteranopia")
>>> delta_e(red, yellow) > APART
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

Image = Any  # a NumPy array of sRGB colours, 0-255, colour in the last axis

KINDS = ("protanopia", "deuteranopia", "tritanopia")
# fmt: off
MACHADO: dict[str, np.ndarray] = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
# fmt: on
SRGB_TO_XYZ = np.array(
    [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
)
GRAPHIC = 3.0  # WCAG 2.1 SC 1.4.11: a mark a reader needs, against what it sits on
TEXT = 4.5  # WCAG 2.1 SC 1.4.3
APART = 20.0  # Delta E*ab for two colours that mean different things


def linear(srgb: Image) -> np.ndarray:
    c = np.asarray(srgb, dtype=float)[..., :3] / 255
    result: np.ndarray = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return result


def encoded(lin: np.ndarray) -> np.ndarray:
    c = np.clip(lin, 0, 1)
    result: np.ndarray = 255 * np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
    return result


def simulate(srgb: Image, kind: str | None) -> np.ndarray:
    """``srgb`` as a person with ``kind`` of dichromacy sees it (None: as it is)."""
    if kind is None:
        return np.asarray(srgb, dtype=float)[..., :3]
    return encoded(linear(srgb) @ MACHADO[kind].T)


def luminance(srgb: Image) -> np.ndarray:
    result: np.ndarray = linear(srgb) @ np.array([0.2126, 0.7152, 0.0722])
    return result


def contrast(a: Image, b: Image) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21."""
    la, lb = float(luminance(a)), float(luminance(b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def lab(srgb: Image) -> np.ndarray:
    """CIELAB (D65 white) of sRGB colours."""
    xyz = linear(srgb) @ SRGB_TO_XYZ.T
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])],
        axis=-1,
    )


def delta_e(a: Image, b: Image) -> float:
    """Delta E*ab (CIE 1976) between two colours."""
    return float(np.linalg.norm(lab(a) - lab(b)))


def contrasts(pixels: Image, colour: Image) -> np.ndarray:
    """The contrast ratio of every pixel against one colour."""
    lp, lc = luminance(pixels), float(luminance(colour))
    result: np.ndarray = (np.maximum(lp, lc) + 0.05) / (np.minimum(lp, lc) + 0.05)
    return result


def differences(a: Image, b: Image) -> np.ndarray:
    """Delta E*ab pixel by pixel between two images of one size."""
    result: np.ndarray = np.linalg.norm(lab(a) - lab(b), axis=-1)
    return result
