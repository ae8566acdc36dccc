"""Vertical layout of the timeline: which row sits at which y, card → process → lane (no Qt).

Order is the producer's: cards as loaded, processes and lanes in the store's display order. Each
card starts with its derived lanes (Computing, Communication, …, Steps), then its processes; a
process holds its slice lanes and counter series. Collapsed groups keep only their header row,
which then shows a summary strip of their busy time.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

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
COVERAGE = "coverage"  # a row's covered share per pixel, from its card's window source (a summarised card)
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
    source_row: int = -1  # coverage rows: the row of the card's window source
    levels: int = 0  # slice lanes: nesting rows in the index
    collapsed: bool = False
    tooltip: str = ""
    legend: tuple[tuple[str, str], ...] = ()  # (colour key, short label) of what the row's colours mean
    # rows its title names, from this one down: 2 for a base card's row with the new run's row of the same
    # card under it (lane filter, both runs), 0 for that new-run row (named by the row above)
    label_span: int = 1

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


class RowSource(Protocol):
    """One kind of lane as the layout sees it (``views.timeline.tracks.registry`` lists them)."""

    kind: str
    group: str  # CARD (right under the card header), OVERVIEW or PROCESS: the group its rows sit under

    def rows(self, card: CardView, process: int) -> list[Row]:
        """The rows of this kind a card contributes (to ``process``; -1 under the overview)."""
        ...


# lanes whose slices a collapsed group row sums up as a busy strip
_GROUP_LANES = {
    CARD: lambda card, row: np.arange(len(card.store.lanes)),
    PROCESS: lambda card, row: np.asarray(card.store.lanes_of_process(row.process)),
}


def summarised_lanes(card: CardView, row: Row) -> np.ndarray | None:
    """Lanes under a collapsed card or process row (its summary strip shows their union);
    None for any other row."""
    lanes = _GROUP_LANES.get(row.kind) if row.collapsed else None
    return None if lanes is None else lanes(card, row)


def group_rows(card: CardView, sources: Sequence[RowSource], group: str, process: int = -1) -> list[Row]:
    """The rows every source of ``group`` contributes for one card, in registry order."""
    return [row for src in sources if src.group == group for row in src.rows(card, process)]


class _Stack:
    """Places rows top to bottom."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.y = 0

    def add(self, row: Row, indent: int) -> None:
        row.y, row.indent = self.y, indent
        self.rows.append(row)
        self.y += row.height

    def layout(self) -> LaneLayout:
        return LaneLayout(rows=self.rows, height=self.y)


def build_layout(cards: list[CardView], collapsed: set[tuple], sources: Sequence[RowSource]) -> LaneLayout:
    """Rows of every card in order; ``collapsed`` holds the keys of collapsed groups."""
    out = _Stack()
    for c in cards:
        st = c.store
        key = ("card", c.number)
        shut = key in collapsed
        n = len(st.slices)
        tip = f"{c.title}: {n:,} slices, {len(st.lanes)} lanes".replace(",", " ")
        if c.coverage_source is not None:
            tip = f"{c.title}: {c.coverage_source.kind.lower()}, {len(c.coverage_source.rows)} rows"
        if c.offset_ns:
            tip += f"; clock offset {c.offset_ns / 1000:+.3f} µs applied (aligned to the first card)"
        out.add(Row(CARD, c.number, 0, CARD_H, 0, f"{c.title}", key, collapsed=shut, tooltip=tip), 0)
        if shut:
            continue
        for row in group_rows(c, sources, CARD):
            out.add(row, 1)
        overview = group_rows(c, sources, OVERVIEW)
        if overview:
            okey = ("overview", c.number)
            oshut = okey in collapsed
            out.add(Row(OVERVIEW, c.number, 0, GROUP_H, 1, "Overview (derived)", okey, collapsed=oshut,
                        tooltip="lanes computed from the hardware tasks and communication operators"), 1)
            if not oshut:
                for row in overview:
                    out.add(row, 2)
        for p in range(len(st.processes)):
            inside = group_rows(c, sources, PROCESS, p)
            if not inside:
                continue
            pkey = ("process", c.number, p)
            pshut = pkey in collapsed
            name = st.processes.name[p] or f"pid {st.processes.pid[p]}"
            label = st.processes.label[p]
            title = f"{name} ({label})" if label and label != name else name
            n_lanes = sum(1 for r in inside if r.lane >= 0)
            out.add(Row(PROCESS, c.number, 0, GROUP_H, 1, title, pkey, process=p, collapsed=pshut,
                        tooltip=f"{title} — pid {st.processes.pid[p]}, {n_lanes} lanes"), 1)
            if pshut:
                continue
            for row in inside:
                out.add(row, 2)
    return out.layout()
