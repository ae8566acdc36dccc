"""Vertical layout of the timeline: which row sits at which y, card → process → lane (no Qt).

Order is the producer's: cards as loaded, processes and lanes in the store's display order. Each
card starts with its derived lanes (Computing, Communication, …, Steps), then its processes; a
process holds its slice lanes and counter series. Collapsed groups keep only their header row,
which then shows a summary strip of their busy time.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from timelineview.viewstate.card_view import CardView

CARD_H = 24
GROUP_H = 20
SLICE_ROW_H = 18  # one nesting level
LANE_PAD = 3  # space above and below the levels of a lane
DERIVED_H = 16
COUNTER_H = 36

CARD, OVERVIEW, PROCESS, LANE, DERIVED, STEPS, COUNTER = (
    "card", "overview", "process", "lane", "derived", "steps", "counter")
GROUP_KINDS = (CARD, OVERVIEW, PROCESS)


@dataclass
class Row:
    """One row of the timeline (and of the lane tree next to it)."""

    kind: str
    card: int
    y: int
    height: int
    indent: int
    title: str
    key: tuple
    lane: int = -1
    process: int = -1
    derived: int = -1
    series: int = -1
    levels: int = 0  # slice lanes: nesting rows in the index
    collapsed: bool = False
    tooltip: str = ""

    @property
    def is_group(self) -> bool:
        return self.kind in GROUP_KINDS

    @property
    def bottom(self) -> int:
        return self.y + self.height


@dataclass
class LaneLayout:
    """Rows top to bottom; rebuild with :func:`build_layout` when cards or collapse state change."""

    rows: list[Row] = field(default_factory=list)
    height: int = 0
    _tops: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._tops = [r.y for r in self.rows]

    def row_at(self, y: float) -> Row | None:
        """The row under layout coordinate ``y``."""
        i = bisect.bisect_right(self._tops, y) - 1
        if 0 <= i < len(self.rows) and y < self.rows[i].bottom:
            return self.rows[i]
        return None

    def index_at(self, y: float) -> int:
        i = bisect.bisect_right(self._tops, y) - 1
        return i if 0 <= i < len(self.rows) and y < self.rows[i].bottom else -1

    def visible(self, y0: float, y1: float) -> list[Row]:
        """Rows intersecting [y0, y1)."""
        lo = max(bisect.bisect_right(self._tops, y0) - 1, 0)
        hi = bisect.bisect_left(self._tops, y1)
        return [r for r in self.rows[lo:hi] if r.bottom > y0]

    def rows_of_card(self, card: int) -> list[Row]:
        return [r for r in self.rows if r.card == card]

    def find(self, kind: str, card: int, lane: int = -1) -> Row | None:
        for r in self.rows:
            if r.kind == kind and r.card == card and (lane < 0 or r.lane == lane):
                return r
        return None


def lane_height(levels: int) -> int:
    return max(levels, 1) * SLICE_ROW_H + 2 * LANE_PAD


def build_layout(cards: list[CardView], collapsed: set[tuple]) -> LaneLayout:
    """Rows of every card in order; ``collapsed`` holds the keys of collapsed groups."""
    rows: list[Row] = []
    y = 0

    def add(row: Row) -> None:
        nonlocal y
        row.y = y
        rows.append(row)
        y += row.height

    for c in cards:
        st = c.store
        key = ("card", c.number)
        shut = key in collapsed
        n = len(st.slices)
        tip = f"{c.title}: {n:,} slices, {len(st.lanes)} lanes".replace(",", " ")
        if c.offset_ns:
            tip += f"; clock offset {c.offset_ns / 1000:+.3f} µs applied (aligned to the first card)"
        add(Row(CARD, c.number, 0, CARD_H, 0, f"{c.title}", key, collapsed=shut, tooltip=tip))
        if shut:
            continue
        if c.derived_lanes or c.steps is not None:
            okey = ("overview", c.number)
            oshut = okey in collapsed
            add(Row(OVERVIEW, c.number, 0, GROUP_H, 1, "Overview (derived)", okey, collapsed=oshut,
                    tooltip="lanes computed from the hardware tasks and communication operators"))
            if not oshut:
                for i, d in enumerate(c.derived_lanes):
                    add(Row(DERIVED, c.number, 0, DERIVED_H, 2, d.title, ("derived", c.number, i),
                            derived=i, tooltip=d.tooltip))
                if c.steps is not None:
                    add(Row(STEPS, c.number, 0, SLICE_ROW_H + 2, 2, "Steps", ("steps", c.number),
                            tooltip="step interval (wait for data) | forward-backward | tail"))
        shown = c.lanes_with_slices() | c.lanes_with_instants()
        counters = st.counters
        series_proc = np.asarray(counters.series_process) if len(counters) else np.zeros(0, np.int32)
        for p in range(len(st.processes)):
            lanes = [int(ln) for ln in st.lanes_of_process(p) if shown[ln]]
            series = [int(s) for s in np.flatnonzero(series_proc == p)]
            if not lanes and not series:
                continue
            pkey = ("process", c.number, p)
            pshut = pkey in collapsed
            name = st.processes.name[p] or f"pid {st.processes.pid[p]}"
            label = st.processes.label[p]
            title = f"{name} ({label})" if label and label != name else name
            add(Row(PROCESS, c.number, 0, GROUP_H, 1, title, pkey, process=p, collapsed=pshut,
                    tooltip=f"{title} — pid {st.processes.pid[p]}, {len(lanes)} lanes"))
            if pshut:
                continue
            for ln in lanes:
                levels = int(st.index.lane_row_count[ln]) if st.index is not None else 1
                lname = st.lanes.name[ln] or f"tid {st.lanes.tid[ln]}"
                add(Row(LANE, c.number, 0, lane_height(levels), 2, lname, ("lane", c.number, ln),
                        lane=ln, process=p, levels=levels,
                        tooltip=f"{st.lane_full_name(ln)} (tid {st.lanes.tid[ln]})"))
            for s in series:
                add(Row(COUNTER, c.number, 0, COUNTER_H, 2, counters.series_name[s], ("counter", c.number, s),
                        series=s, process=p, tooltip=f"counter {counters.series_name[s]}"))
    return LaneLayout(rows=rows, height=y)
