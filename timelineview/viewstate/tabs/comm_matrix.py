"""The rank × rank communication matrix as numbers (no Qt): cells, aggregation by node, colours, text.

A cell (row = sender, column = receiver) sums the links between its ranks (one transport, or all):
bytes, transit time, transfer count; its bandwidth is Σ bytes / Σ transit (metrics.md §6). When
the ranks do not fit, ranks are grouped by node of :data:`NODE_SIZE` (rank // 8) and a cell sums
every link from one node to the other; it is outlined when any of its links is slow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.communication.links import Links
from timelineview.viewstate.time_format import format_duration

NODE_SIZE = 8  # NPUs per node: the usual Ascend server
MIN_CELL_PX = 6  # below this a cell is unreadable: group ranks by node
BANDWIDTH, BYTES, TIME = "bandwidth", "bytes", "time"
METRICS = (BANDWIDTH, BYTES, TIME)
METRIC_TITLES = {BANDWIDTH: "bandwidth (GB/s)", BYTES: "bytes", TIME: "transit time"}
ALL_TRANSPORTS = ""
# The colour scale, from the smallest value to the largest (a short perceptual ramp, dark to light).
SCALE_STOPS = np.array([(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)], np.float64)
EMPTY_RGB = (235, 235, 238)


@dataclass
class CommMatrix:
    """Cells of the matrix: (n, n) arrays, row = sender group, column = receiver group."""

    groups: np.ndarray  # int64: the rank (or node) of each row / column, ascending
    by_node: bool
    bytes: np.ndarray  # int64
    transit: np.ndarray  # int64 ns
    count: np.ndarray  # int64 transfers
    slow: np.ndarray  # bool: a slow link in the cell
    transports: dict[int, list[str]]  # per cell with links (key: row * n + column), distinct transports
    link_types: dict[int, list[str]]
    n_links: np.ndarray  # int64 links summed in the cell

    def __len__(self) -> int:
        return len(self.groups)

    @property
    def present(self) -> np.ndarray:
        return self.n_links > 0

    @property
    def bandwidth_gbps(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.present & (self.transit > 0), self.bytes / np.maximum(self.transit, 1), np.nan)

    def values(self, metric: str) -> np.ndarray:
        """float64 (n, n): the metric per cell (GB/s, bytes or ns), NaN where no link."""
        if metric == BANDWIDTH:
            return self.bandwidth_gbps
        raw = self.bytes if metric == BYTES else self.transit
        return np.where(self.present, raw.astype(np.float64), np.nan)

    def label(self, i: int) -> str:
        """Axis label of row / column ``i``: the rank, or ``N<k>`` for node k."""
        return f"N{int(self.groups[i])}" if self.by_node else str(int(self.groups[i]))

    def group_text(self, i: int) -> str:
        g = int(self.groups[i])
        return f"node {g} (ranks {g * NODE_SIZE}–{g * NODE_SIZE + NODE_SIZE - 1})" if self.by_node else f"rank {g}"

    def ranks_of(self, i: int) -> np.ndarray:
        """The ranks grouped in row / column ``i``."""
        g = int(self.groups[i])
        return np.arange(g * NODE_SIZE, (g + 1) * NODE_SIZE) if self.by_node else np.array([g])


def transports_of(links: Links) -> list[str]:
    """The transport types of ``links``, sorted."""
    return sorted(set(links.transport))


def needs_nodes(n_ranks: int, pixels: float) -> bool:
    """True when ``n_ranks`` cells of at least :data:`MIN_CELL_PX` do not fit in ``pixels``."""
    return n_ranks > NODE_SIZE and n_ranks * MIN_CELL_PX > pixels


def link_ranks(links: Links) -> np.ndarray:
    """Every rank that sends or receives, ascending."""
    return np.unique(np.concatenate((links.src, links.dst))) if len(links) else np.zeros(0, np.int64)


def build_matrix(links: Links, slow: np.ndarray, transport: str = ALL_TRANSPORTS, by_node: bool = False,
                 ranks: np.ndarray | None = None) -> CommMatrix:
    """The matrix of ``links`` (``slow``: bool per link) over one ``transport`` (or all), per rank or
    per node; ``ranks``: the axis (default: the ranks of the links)."""
    keep = np.ones(len(links), dtype=bool)
    if transport != ALL_TRANSPORTS:
        keep = np.array([t == transport for t in links.transport], dtype=bool)
    axis_ranks = link_ranks(links) if ranks is None else np.asarray(ranks, np.int64)
    groups = np.unique(axis_ranks // NODE_SIZE) if by_node else np.unique(axis_ranks)
    n = len(groups)
    rows = np.flatnonzero(keep)
    src = links.src[rows] // NODE_SIZE if by_node else links.src[rows]
    dst = links.dst[rows] // NODE_SIZE if by_node else links.dst[rows]
    si, di = np.searchsorted(groups, src), np.searchsorted(groups, dst)
    on_axis = (si < n) & (di < n)
    on_axis[on_axis] &= (groups[si[on_axis]] == src[on_axis]) & (groups[di[on_axis]] == dst[on_axis])
    rows, si, di = rows[on_axis], si[on_axis], di[on_axis]
    flat = si * n + di
    size = n * n

    def summed(col: np.ndarray) -> np.ndarray:
        return np.bincount(flat, weights=col[rows], minlength=size).round().astype(np.int64).reshape(n, n)

    slow_cells = np.zeros(size, dtype=bool)
    slow_cells[flat[np.asarray(slow, bool)[rows]]] = True
    transports: dict[int, list[str]] = {}
    link_types: dict[int, list[str]] = {}
    for cell, r in zip(flat.tolist(), rows.tolist(), strict=True):
        for table, text in ((transports, links.transport[r]), (link_types, links.link_type[r])):
            known = table.setdefault(cell, [])
            if text not in known:
                known.append(text)
    return CommMatrix(groups=groups.astype(np.int64), by_node=by_node, bytes=summed(links.bytes),
                      transit=summed(links.transit), count=summed(links.count), slow=slow_cells.reshape(n, n),
                      transports=transports, link_types=link_types,
                      n_links=np.bincount(flat, minlength=size).astype(np.int64).reshape(n, n))


def scale_range(values: np.ndarray) -> tuple[float, float]:
    """(0, the largest finite value): colours proportional to the value, so links that differ by a few
    per cent look alike and a slow one stands out (1 when there are none)."""
    finite = values[np.isfinite(values)]
    return (0.0, float(finite.max()) if len(finite) and finite.max() > 0 else 1.0)


def colours(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """uint8 RGB (…, 3) of each value on the scale low → high; NaN cells get :data:`EMPTY_RGB`."""
    finite = np.isfinite(values)
    span = high - low
    t = np.where(finite, (np.where(finite, values, low) - low) / span if span > 0 else 1.0, 0.0)
    pos = np.clip(t, 0.0, 1.0) * (len(SCALE_STOPS) - 1)
    k = np.minimum(pos.astype(np.int64), len(SCALE_STOPS) - 2)
    frac = (pos - k)[..., None]
    rgb = SCALE_STOPS[k] * (1 - frac) + SCALE_STOPS[k + 1] * frac
    rgb[~finite] = EMPTY_RGB
    return rgb.round().astype(np.uint8)


def format_bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} B"


def format_value(metric: str, value: float) -> str:
    if not np.isfinite(value):
        return "—"
    if metric == BANDWIDTH:
        return f"{value:.3g} GB/s"
    return format_bytes(value) if metric == BYTES else format_duration(value)


def cell_text(m: CommMatrix, i: int, j: int) -> str:
    """What hovering cell (i, j) says: src → dst, transport, link type, bytes, time, GB/s."""
    head = f"{m.group_text(i)} → {m.group_text(j)}"
    if not m.present[i, j]:
        return f"{head}\nno transfer"
    k = i * len(m) + j
    bw = m.bandwidth_gbps[i, j]
    lines = [head, f"transport: {', '.join(m.transports[k])}", f"link type: {', '.join(m.link_types[k])}",
             f"bytes: {format_bytes(float(m.bytes[i, j]))} ({int(m.bytes[i, j])} B)",
             f"time: {format_duration(float(m.transit[i, j]))} over {int(m.count[i, j])} transfers",
             f"bandwidth: {bw:.3g} GB/s" if np.isfinite(bw) else "bandwidth: — (no transit time)"]
    if m.n_links[i, j] > 1:
        lines.append(f"{int(m.n_links[i, j])} links summed")
    if m.slow[i, j]:
        lines.append("SLOW LINK: far slower than the other links of its transport")
    return "\n".join(lines)
