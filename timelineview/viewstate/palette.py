"""Stable colours by name: a string hash picks one of a fixed set of calm hues.

The hash is CRC-32 of the UTF-8 name, so a name has the same colour in every trace, card and run.
"""

from __future__ import annotations

import zlib

import numpy as np

# Calm, distinguishable hues (RGB); the views derive borders, text and dark-theme variants.
SLICE_COLOURS: list[tuple[int, int, int]] = [
    (91, 143, 249), (97, 205, 160), (101, 120, 155), (238, 183, 40), (114, 98, 253),
    (108, 196, 236), (150, 97, 188), (240, 140, 70), (30, 148, 147), (236, 128, 170),
    (93, 112, 146), (150, 176, 40), (214, 120, 80), (80, 170, 210), (170, 130, 220),
    (70, 175, 120), (200, 150, 90), (120, 150, 220), (220, 110, 120), (120, 180, 180),
]

# Derived lanes: fixed colours that mean the same thing everywhere in the app.
DERIVED_COLOURS: dict[str, tuple[int, int, int]] = {
    "compute": (70, 150, 230),
    "communication": (240, 150, 60),
    "overlapped": (150, 120, 210),
    "pure_communication": (225, 85, 70),
    "free": (150, 160, 170),
    "idle_gap_communication": (235, 120, 60),
    "idle_gap_free": (200, 60, 90),
    "step": (120, 170, 120),
    "step_interval": (230, 190, 80),
    "fp_bp": (90, 160, 110),
    "tail": (180, 130, 200),
}


def name_colour(name: str) -> int:
    """Palette index of one name."""
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) % len(SLICE_COLOURS)


def name_colours(strings: list[str]) -> np.ndarray:
    """Palette index (uint8) of every interned string, plus one trailing entry for id -1."""
    out = np.fromiter((name_colour(s) for s in strings), dtype=np.uint8, count=len(strings))
    return np.append(out, np.uint8(0))


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """Perceived brightness in [0, 1] (Rec. 709 weights, no gamma: enough to pick the text colour)."""
    r, g, b = rgb
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255.0


def text_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """Readable text colour on a fill."""
    return (25, 25, 30) if relative_luminance(rgb) > 0.55 else (255, 255, 255)
