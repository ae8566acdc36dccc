"""Lane filters for cluster timelines: keep one kind of lane across all cards (no Qt).

With one kind per card (e.g. only Communication) every card is one row, titled by the card,
and rows shrink so that all cards fit in the visible height (down to :data:`MIN_ROW_H`): 64
cards fit on one screen and line up in time. "Derived lanes" keeps each card's analysis lanes
and Steps under its card header, without the processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from timelineview.producers.wording import ASCEND_WORDING, DeviceWording, reword
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.tabs.run_alignment import RunCardView
from timelineview.viewstate.timeline.lane_layout import (
    CARD,
    CARD_H,
    DERIVED_H,
    OVERVIEW,
    SLICE_ROW_H,
    LaneLayout,
    Row,
    RowSource,
    build_layout,
    group_rows,
)
from timelineview.viewstate.timeline.track_rows import STEPS_FILTER_KEY

ALL, DERIVED_ONLY, STEPS_ONLY = "all", "derived", STEPS_FILTER_KEY
# (key, menu title in the Ascend producers' words: ``lane_filters`` rewords them); single derived kinds are keyed by
# DerivedLane.key
LANE_FILTERS = (
    (ALL, "All lanes"),
    (DERIVED_ONLY, "Derived lanes of each card"),
    ("compute", "Computing only"),
    ("communication", "Communication only"),
    ("pure_communication", "Pure communication only"),
    ("idle_gaps", "Idle AI Core gaps only"),
    ("free", "Free only"),
    ("communication_wait", "Communication wait only"),  # viewstate.comm_wait_lane
    (STEPS_ONLY, "Steps only"),
)
MIN_ROW_H = 6  # below this a row is a hairline: scroll instead
MAX_DERIVED_ROW_H = DERIVED_H + 4
MAX_STEPS_ROW_H = SLICE_ROW_H + 2


def is_single_kind(choice: str) -> bool:
    """One row per card (the layout then depends on the visible height)."""
    return choice not in (ALL, DERIVED_ONLY)


def fitted_row_height(n_rows: int, visible_px: int, max_h: int) -> int:
    """Tallest row height ≤ ``max_h`` that fits ``n_rows`` in ``visible_px`` (never below MIN_ROW_H)."""
    if n_rows <= 0:
        return max_h
    return int(max(MIN_ROW_H, min(max_h, visible_px // n_rows)))


def lane_filters(wording: DeviceWording = ASCEND_WORDING) -> list[tuple[str, str]]:
    """The filters with their titles in ``wording`` (the shown cards' shared wording: ``shared_wording``)."""
    return [(key, reword(title, wording)) for key, title in LANE_FILTERS]


def filter_title(choice: str, wording: DeviceWording = ASCEND_WORDING) -> str:
    return dict(lane_filters(wording)).get(choice, choice)


class FilterSource(RowSource, Protocol):
    """A lane kind that can stand alone under a single-kind filter."""

    compact_h: int  # tallest row of this kind under a single-kind filter (0: the kind never stands alone)

    def filter_row(self, card: CardView, key: str) -> Row | None:
        """The one row of ``card`` for filter ``key``, titled by the card; None when it has none."""
        ...


def build_filtered_layout(cards: list[CardView], choice: str, collapsed: set[tuple], visible_px: int,
                          sources: Sequence[FilterSource]) -> LaneLayout:
    """The rows of ``cards`` keeping only lanes of ``choice`` (``ALL``: the normal layout)."""
    if choice == ALL:
        return build_layout(cards, collapsed, sources)
    if choice == DERIVED_ONLY:
        return _derived_layout(cards, collapsed, sources)
    found = []
    for c in cards:
        for src in sources:
            row = src.filter_row(c, choice) if src.compact_h else None
            if row is not None:
                found.append((c, row, src.compact_h))
                break
    if not found:
        return LaneLayout()
    h = fitted_row_height(len(found), visible_px, found[0][2])
    rows: list[Row] = []
    for y, (c, row, _) in enumerate(found):
        tip = f"{c.title} — {filter_title(choice, c.wording).removesuffix(' only')}"
        if c.offset_ns:
            tip += f"; clock offset {c.offset_ns / 1000:+.3f} µs applied"
        row.y, row.height, row.indent = y * h, h, 0
        row.tooltip = f"{tip}: {row.tooltip}" if row.tooltip else tip
        rows.append(row)
    _name_pairs(found, rows)
    return LaneLayout(rows=rows, height=len(rows) * h)


def _name_pairs(found: list[tuple[CardView, Row, int]], rows: list[Row]) -> None:
    """Both runs on the timeline: a base card's row and the new run's row of the same card under it get one
    name over the two (rows thinner than text could each hold a name only every other row, which left the
    new run's rows unnamed and the names too small to read)."""
    for k in range(1, len(found)):
        base, new = found[k - 1][0], found[k][0]
        if isinstance(new, RunCardView) and not isinstance(base, RunCardView) \
                and new.store.card == base.store.card and rows[k - 1].label_span == 1:
            rows[k - 1].label_span, rows[k].label_span = 2, 0
            rows[k - 1].tooltip += " (the row under it: the new run's)"


def _derived_layout(cards: list[CardView], collapsed: set[tuple], sources: Sequence[RowSource]) -> LaneLayout:
    """Card header, its derived lanes and Steps (the overview group); no processes."""
    rows: list[Row] = []
    y = 0
    for c in cards:
        inside = group_rows(c, sources, OVERVIEW)
        if not inside:
            continue
        key = ("card", c.number)
        shut = key in collapsed
        rows.append(Row(CARD, c.number, y, CARD_H, 0, c.title, key, collapsed=shut,
                        tooltip=f"{c.title}: derived lanes"))
        y += CARD_H
        if shut:
            continue
        for row in inside:
            row.y, row.indent = y, 1
            rows.append(row)
            y += row.height
    return LaneLayout(rows=rows, height=y)
