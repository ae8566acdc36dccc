"""Geometry of a plot drawn as 1-px columns, shared by the counter and memory tracks: values to pixel
rows, and runs of equal columns merged into rects."""

from __future__ import annotations

import numpy as np

from timelineview.views.painting import rect_array


def value_y(v: np.ndarray, base: int, lo: float, hi: float, h: int) -> np.ndarray:
    """Pixel y of values on a row whose baseline is ``base`` and height ``h``."""
    return base - np.round((v - lo) / (hi - lo) * h).astype(np.int64)


def merged_columns(x: np.ndarray, top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """1-px column rects, with runs of adjacent columns of equal extent merged into one rect
    (a step-function counter then costs a few rects per step, not one per pixel)."""
    if len(x) == 0:
        return np.zeros((0, 4), np.int32)
    new = np.ones(len(x), dtype=bool)
    new[1:] = (x[1:] != x[:-1] + 1) | (top[1:] != top[:-1]) | (bottom[1:] != bottom[:-1])
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(x)) - 1
    return rect_array(x[first], top[first], x[last] + 1, bottom[first])
