"""Where a coverage lane gets what it draws: "window [t0, t1) at r ns per pixel" answered by a source (no Qt).

A coverage lane (a summarised card's rows, ``track_rows.pyramid_rows``) draws, per pixel column, the share of
the time its row's intervals cover. It does not read the data itself: it asks its card's
:class:`WindowSource` for the visible window at the resolution it needs, then paints what comes back
(Perfetto's split of a track and its data source). Two sources answer today:

- :class:`PyramidSource`: a summary's level-of-detail pyramid, from the coarsest level with at least one
  bucket per pixel (``pyramid_frame``), down to its finest bucket;
- :class:`TraceSliceSource`: a loaded trace's slices, exact at any zoom, through the timeline's LOD code
  (``lod.coverage_fraction`` over each lane's top nesting row).

:func:`finest_holding` picks, of several sources of one card (coarse to fine), the first that resolves a
window, so a finer source answers where a coarser one runs out. Times are absolute ns of the card's clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

from timelineview.analysis.summaries.pyramid import FULL, Pyramid
from timelineview.model.store.trace_store import TraceStore
from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.lod import coverage_fraction, prefix_lengths
from timelineview.viewstate.timeline.pyramid_frame import (
    MAX_BUCKET_PX,
    bucket_at,
    finest_bucket_ns,
    frame_for,
    pixel_occupancy,
)

EXACT = "exact slices"  # what one sample of a trace's slices stands for


class WindowCoverage(NamedTuple):
    """A source's answer for one window: per row and pixel column the covered share, 0 .. ``FULL``."""

    share: np.ndarray  # uint8 (rows asked, width_px)
    sample_ns: float  # the time one sample of the answer stands for (0: exact)
    resolution: str  # what one sample stands for, said on the card's header ("1 bucket = 39 µs")


class Sample(NamedTuple):
    """The sample of one row under a time: its span (absolute ns) and how much of it is covered."""

    row: str
    t0: int
    t1: int
    share: float  # 0 .. 1


class WindowSource(Protocol):
    """Rows of one card that answer a window at a resolution."""

    rows: list[str]  # the rows' titles, top to bottom
    t0: int  # the span the source covers (absolute ns)
    t1: int
    finest_ns: float  # the finest time one sample stands for (0: exact at any zoom)
    kind: str  # what the card's header says the rows are drawn from

    def coverage(self, t0: int, t1: int, width_px: int, rows: slice) -> WindowCoverage:
        """The covered share per pixel of ``rows`` over [t0, t1) across ``width_px`` columns."""
        ...

    def sample_at(self, row: int, t: int, t0: int, t1: int, width_px: int) -> Sample | None:
        """The sample of ``row`` under ``t`` as a window [t0, t1) over ``width_px`` columns draws it."""
        ...


def resolves(source: WindowSource, t0: int, t1: int, width_px: int) -> bool:
    """Whether ``source`` holds the window at a pixel's resolution: its finest sample is at most
    :data:`MAX_BUCKET_PX` pixels wide there."""
    ns_per_px = max(int(t1) - int(t0), 1) / max(int(width_px), 1)
    return source.finest_ns / ns_per_px <= MAX_BUCKET_PX


def finest_holding(sources: Sequence[WindowSource], t0: int, t1: int, width_px: int) -> WindowSource:
    """Of one card's sources, coarse to fine, the first that resolves the window (else the finest)."""
    for source in sources:
        if resolves(source, t0, t1, width_px):
            return source
    return sources[-1]


class PyramidSource:
    """A summarised card's rows from its pyramid (metrics.md §10): derived sets, then every lane with slices."""

    kind = "Overview from the summary, not slices"

    def __init__(self, pyramid: Pyramid) -> None:
        self.pyramid = pyramid
        self.rows = list(pyramid.rows)
        self.t0, self.t1 = int(pyramid.t0), int(pyramid.t1)
        self.finest_ns = finest_bucket_ns(pyramid)

    def coverage(self, t0: int, t1: int, width_px: int, rows: slice) -> WindowCoverage:
        a, b = int(t0) - self.t0, int(t1) - self.t0
        frame = frame_for(self.pyramid, a, b, width_px)
        share = pixel_occupancy(self.pyramid, frame, a, b, width_px, rows)
        return WindowCoverage(share, frame.bucket_ns, frame.resolution)

    def sample_at(self, row: int, t: int, t0: int, t1: int, width_px: int) -> Sample | None:
        frame = frame_for(self.pyramid, int(t0) - self.t0, int(t1) - self.t0, width_px)
        k = bucket_at(self.pyramid, frame, int(t) - self.t0)
        if k is None or not 0 <= row < len(self.rows):
            return None
        start = self.t0 + round(k * frame.bucket_ns)
        end = self.t0 + round((k + 1) * frame.bucket_ns)
        return Sample(self.rows[row], start, end, int(self.pyramid.levels[frame.level][row, k]) / FULL)


class TraceSliceSource:
    """A loaded card's lanes with slices, exact: the share of each pixel its top-level slices cover (nested
    slices lie inside their parents, so the top row is the lane's busy time)."""

    kind = "Busy time of the trace's lanes"

    def __init__(self, store: TraceStore) -> None:
        index = store.index
        n = len(store.lanes)
        has = index.lane_row_count[:n] > 0 if index is not None else np.zeros(n, bool)
        self.lanes = np.flatnonzero(has)
        self.rows = [store.lane_full_name(int(ln)) for ln in self.lanes]
        self.t0, self.t1 = store.t_origin, max(store.t_end, store.t_origin + 1)
        self.finest_ns = 0.0
        self._tops: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for ln in self.lanes.tolist():
            row = int(index.lane_first_row[ln])
            a, b = int(index.row_ptr[row]), int(index.row_ptr[row + 1])
            starts, ends = index.starts[a:b], index.ends[a:b]
            self._tops.append((starts, ends, prefix_lengths(starts, ends)))

    def coverage(self, t0: int, t1: int, width_px: int, rows: slice) -> WindowCoverage:
        width_px = max(int(width_px), 1)
        tops = self._tops[rows]
        share = np.zeros((len(tops), width_px), np.uint8)
        for i, (starts, ends, cum) in enumerate(tops):
            frac = coverage_fraction(starts, ends, cum, int(t0), int(t1), width_px)
            share[i] = np.minimum(np.ceil(frac * FULL), FULL).astype(np.uint8)  # covered time never reads empty
        return WindowCoverage(share, 0.0, EXACT)

    def sample_at(self, row: int, t: int, t0: int, t1: int, width_px: int) -> Sample | None:
        if not 0 <= row < len(self.rows):
            return None
        ns_per_px = max(int(t1) - int(t0), 1) / max(int(width_px), 1)
        x = int((int(t) - int(t0)) // ns_per_px)
        a, b = int(t0) + round(x * ns_per_px), int(t0) + round((x + 1) * ns_per_px)
        starts, ends, cum = self._tops[row]
        frac = coverage_fraction(starts, ends, cum, a, max(b, a + 1), 1)
        return Sample(self.rows[row], a, max(b, a + 1), float(frac[0]) if len(frac) else 0.0)


def depth_text(source: WindowSource) -> str:
    """How deep ``source`` goes ("39 µs"), or that it is exact."""
    return format_duration(source.finest_ns, 2) if source.finest_ns else EXACT
