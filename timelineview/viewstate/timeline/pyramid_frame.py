"""What a window of a summarised card shows from its level-of-detail pyramid (metrics.md §10).

Times are ns relative to the pyramid's ``t0`` (the card's first slice), as the :class:`Viewport`
keeps them. Per window the coarsest level with at least one bucket per pixel is read, and of it
only the buckets inside the window, so the cost of a frame depends on the screen, not on the card.
No Qt.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from timelineview.analysis.summaries.pyramid import FULL, Pyramid
from timelineview.viewstate.time_format import format_duration

MAX_BUCKET_PX = 2.0  # a finest bucket wider than this on screen: the summary no longer holds what the user zooms to
# (``window_source.resolves`` asks it of any window source)


class PyramidFrame(NamedTuple):
    """The pyramid level a window is drawn from and its visible buckets [first, stop)."""

    level: int  # index in ``Pyramid.levels``
    buckets: int  # of that level over the card's span
    bucket_ns: float
    first: int
    stop: int

    @property
    def resolution(self) -> str:
        """What one bucket stands for, e.g. ``1 bucket = 2.4 ms``."""
        return f"1 bucket = {format_duration(self.bucket_ns, 2)}"


def span_ns(pyramid: Pyramid) -> int:
    """The card's span that the pyramid covers."""
    return max(pyramid.t1 - pyramid.t0, 1)


def frame_for(pyramid: Pyramid, t0: int, t1: int, width_px: int) -> PyramidFrame:
    """The level with at least one bucket per pixel for window [t0, t1) across ``width_px``, and the
    buckets of it that the window overlaps."""
    width_px = max(int(width_px), 1)
    window = max(int(t1) - int(t0), 1)
    wanted = math.ceil(width_px * span_ns(pyramid) / window)
    level = pyramid.level_index(wanted)
    buckets = pyramid.levels[level].shape[1]
    first, stop = pyramid.bucket_range(level, pyramid.t0 + t0, pyramid.t0 + t1)
    return PyramidFrame(level, buckets, span_ns(pyramid) / buckets, first, stop)


def finest_bucket_ns(pyramid: Pyramid) -> float:
    """How much time the finest level's bucket holds: the deepest the summary goes."""
    return span_ns(pyramid) / max(lv.shape[1] for lv in pyramid.levels)


def pixel_occupancy(pyramid: Pyramid, frame: PyramidFrame, t0: int, t1: int, width_px: int,
                    rows: slice = slice(None)) -> np.ndarray:
    """uint8 (rows, width_px) of the pyramid's ``rows``: per pixel column, the mean occupancy of the
    buckets it overlaps, rounded up (a pixel over any covered time never reads empty); 0 outside the
    card's span."""
    width_px = max(int(width_px), 1)
    level = pyramid.levels[frame.level][rows]
    n_rows = level.shape[0]
    out = np.zeros((n_rows, width_px), np.uint8)
    if frame.stop <= frame.first or n_rows == 0:
        return out
    visible = np.asarray(level[:, frame.first:frame.stop], dtype=np.int64)
    cum = np.zeros((n_rows, visible.shape[1] + 1), np.int64)
    np.cumsum(visible, axis=1, out=cum[:, 1:])
    # pixel x covers [t0 + x·w, t0 + (x+1)·w) ns; in bucket units (bucket k is [k, k+1)) that is u .. u'
    per_bucket = frame.buckets / span_ns(pyramid)
    edges = (int(t0) + np.arange(width_px + 1, dtype=np.float64) * ((int(t1) - int(t0)) / width_px)) * per_bucket
    lo = np.floor(edges[:-1]).astype(np.int64)
    hi = np.maximum(np.ceil(edges[1:]).astype(np.int64), lo + 1)
    inside = (hi > frame.first) & (lo < frame.stop)
    lo = np.clip(lo, frame.first, frame.stop) - frame.first
    hi = np.clip(hi, frame.first, frame.stop) - frame.first
    count = np.maximum(hi - lo, 1)
    total = cum[:, hi] - cum[:, lo]
    mean = -(-total // count)  # ceiling division: rounded up, as the pyramid rounds its buckets
    out[:, inside] = np.minimum(mean[:, inside], FULL).astype(np.uint8)
    return out


def bucket_at(pyramid: Pyramid, frame: PyramidFrame, t: int) -> int | None:
    """The bucket of the frame's level under relative time ``t`` (None outside the card's span)."""
    k = math.floor(int(t) * frame.buckets / span_ns(pyramid))
    return k if 0 <= k < frame.buckets else None
