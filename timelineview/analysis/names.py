"""Per-name statistics of the slices in a window: the table of an area selection.

A slice counts when it intersects the window (a zero-length slice when it lies in
[t0, t1)), and its duration is clipped to the window, so totals never exceed what the
selection shows. Self time = clipped duration minus the clipped durations of its direct
children: slices one level deeper on the same lane that lie inside it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from timelineview.model.store.trace_store import TraceStore

COLUMNS = ("name", "count", "total_us", "self_us", "avg_us", "min_us", "max_us")


class NameRow(NamedTuple):
    """One row of a :class:`NameTable` as Python values; times in µs."""

    name: str
    count: int
    total_us: float
    self_us: float
    avg_us: float
    min_us: float
    max_us: float


@dataclass
class NameTable:
    """One row per operator name; times in µs. ``window`` is the [t0, t1) it covers (ns)."""

    name: list[str]
    count: np.ndarray  # int64
    total_us: np.ndarray  # float64
    self_us: np.ndarray
    avg_us: np.ndarray
    min_us: np.ndarray
    max_us: np.ndarray
    window: tuple[int, int]

    def __len__(self) -> int:
        return len(self.name)

    def column(self, key: str) -> np.ndarray | list[str]:
        if key not in COLUMNS:
            raise KeyError(f"unknown column {key!r}; columns are {', '.join(COLUMNS)}")
        return getattr(self, key)

    def sorted_by(self, key: str = "total_us", descending: bool = True) -> NameTable:
        """A copy sorted by one column (ties keep name order)."""
        values = self.column(key)
        if key == "name":
            ranked = sorted(range(len(self)), key=values.__getitem__, reverse=descending)
            order = np.array(ranked, dtype=np.int64)
        else:
            by_name = np.array(sorted(range(len(self)), key=self.name.__getitem__), dtype=np.int64)
            v = np.asarray(values)[by_name]
            order = by_name[np.argsort(-v if descending else v, kind="stable")]
        return self._take(order)

    def _take(self, order: np.ndarray) -> NameTable:
        return NameTable([self.name[i] for i in order], self.count[order], self.total_us[order],
                         self.self_us[order], self.avg_us[order], self.min_us[order],
                         self.max_us[order], self.window)

    def rows(self) -> list[NameRow]:
        """Rows as Python values."""
        return [NameRow(self.name[i], int(self.count[i]), float(self.total_us[i]), float(self.self_us[i]),
                        float(self.avg_us[i]), float(self.min_us[i]), float(self.max_us[i]))
                for i in range(len(self))]

    def to_csv(self) -> str:
        """CSV text with a header row; times with 3 decimals (ns precision)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for r in self.rows():
            times = (r.total_us, r.self_us, r.avg_us, r.min_us, r.max_us)
            writer.writerow([r.name, r.count, *(f"{t:.3f}" for t in times)])
        return out.getvalue()


def _parents(lane: np.ndarray, depth: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Position of each slice's direct parent among the given slices, or -1.

    The candidate is the last slice one level up on the same lane that starts at or before
    the child; it is the parent only if it contains the child (extra overlap rows are not).
    """
    n = len(lane)
    parent = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return parent
    group = lane.astype(np.int64) * (int(depth.max()) + 2) + depth
    uniq_starts, start_rank = np.unique(start, return_inverse=True)
    key = group * (len(uniq_starts) + 1) + start_rank.reshape(-1)
    order = np.lexsort((end, key))  # ties: the longest last, so it wins the search below
    sorted_key = key[order]
    child = np.flatnonzero(depth > 0)
    query = key[child] - (len(uniq_starts) + 1)  # same start rank, one level up
    pos = np.searchsorted(sorted_key, query, side="right") - 1
    ok = pos >= 0
    cand = order[np.maximum(pos, 0)]
    ok &= group[cand] == group[child] - 1
    ok &= (start[cand] <= start[child]) & (end[child] <= end[cand])
    parent[child[ok]] = cand[ok]
    return parent


def name_table(store: TraceStore, t0: int, t1: int, lanes: np.ndarray | list[int] | None = None) -> NameTable:
    """Count, total, self, average, min and max duration per name in [t0, t1) (µs)."""
    sl = store.slices
    start, end = sl.start, sl.end
    sel = ((start < t1) & (end > t0)) | ((sl.dur == 0) & (start >= t0) & (start < t1))
    if lanes is not None:
        lane_ok = np.zeros(len(store.lanes), dtype=bool)
        lane_ok[np.asarray(lanes, dtype=np.int64)] = True
        sel &= lane_ok[sl.lane]
    idx = np.flatnonzero(sel)
    s, e = start[idx], end[idx]
    clipped = (np.minimum(e, t1) - np.maximum(s, t0)).astype(np.float64)
    parent = _parents(sl.lane[idx], sl.depth[idx].astype(np.int64), s, e)
    has_parent = parent >= 0
    children = np.bincount(parent[has_parent], weights=clipped[has_parent], minlength=len(idx))
    self_ns = np.maximum(clipped - children, 0.0)

    names, inv = np.unique(sl.name[idx], return_inverse=True)
    inv = inv.reshape(-1)
    count = np.bincount(inv, minlength=len(names)).astype(np.int64)
    total = np.bincount(inv, weights=clipped, minlength=len(names))
    self_total = np.bincount(inv, weights=self_ns, minlength=len(names))
    if len(idx):
        order = np.argsort(inv, kind="stable")
        first = np.concatenate(([0], np.cumsum(count)[:-1]))
        lo = np.minimum.reduceat(clipped[order], first)
        hi = np.maximum.reduceat(clipped[order], first)
    else:
        lo = hi = np.zeros(0)
    table = NameTable(
        name=[store.strings[i] if i >= 0 else "" for i in names],
        count=count,
        total_us=total / 1000.0,
        self_us=self_total / 1000.0,
        avg_us=total / np.maximum(count, 1) / 1000.0,
        min_us=lo / 1000.0,
        max_us=hi / 1000.0,
        window=(int(t0), int(t1)),
    )
    return table.sorted_by("total_us")
