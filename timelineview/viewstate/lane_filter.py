"""Lane filters for cluster timelines: keep one kind of lane across all cards (no Qt).

With one kind per card (e.g. only Communication) every card is one row, titled by the card,
and rows shrink so that all cards fit in the visible height (down to :data:`MIN_ROW_H`): 64
cards fit on one screen and line up in time. "Derived lanes" keeps each card's analysis lanes
and Steps under its card header, without the processes.
"""

from __future__ import annotations

from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.lane_layout import (
    CARD,
    CARD_H,
    DERIVED,
    DERIVED_H,
    SLICE_ROW_H,
    STEPS,
    LaneLayout,
    Row,
    build_layout,
)

ALL, DERIVED_ONLY, STEPS_ONLY = "all", "derived", "steps"
# (key, menu title); single derived kinds are keyed by DerivedLane.key
LANE_FILTERS = (
    (ALL, "All lanes"),
    (DERIVED_ONLY, "Derived lanes of each card"),
    ("compute", "Computing only"),
    ("communication", "Communication only"),
    ("pure_communication", "Pure communication only"),
    ("idle_gaps", "Idle AI Core gaps only"),
    ("free", "Free only"),
    (STEPS_ONLY, "Steps only"),
)
MIN_ROW_H = 6  # below this a row is a hairline: scroll instead
MAX_DERIVED_ROW_H = DERIVED_H + 4
MAX_STEPS_ROW_H = SLICE_ROW_H + 2


def is_single_kind(kind: str) -> bool:
    """One row per card (the layout then depends on the visible height)."""
    return kind not in (ALL, DERIVED_ONLY)


def fitted_row_height(n_rows: int, visible_px: int, max_h: int) -> int:
    """Tallest row height ≤ ``max_h`` that fits ``n_rows`` in ``visible_px`` (never below MIN_ROW_H)."""
    if n_rows <= 0:
        return max_h
    return int(max(MIN_ROW_H, min(max_h, visible_px // n_rows)))


def filter_title(kind: str) -> str:
    return dict(LANE_FILTERS).get(kind, kind)


def build_filtered_layout(cards: list[CardView], kind: str, collapsed: set[tuple],
                          visible_px: int) -> LaneLayout:
    """The rows of ``cards`` keeping only lanes of ``kind`` (``ALL``: the normal layout)."""
    if kind == ALL:
        return build_layout(cards, collapsed)
    if kind == DERIVED_ONLY:
        return _derived_layout(cards, collapsed)
    rows: list[Row] = []
    wanted = [c for c in cards if _has_kind(c, kind)]
    h = fitted_row_height(len(wanted), visible_px, MAX_STEPS_ROW_H if kind == STEPS_ONLY else MAX_DERIVED_ROW_H)
    title = filter_title(kind).removesuffix(" only")
    for y, c in enumerate(wanted):
        tip = f"{c.title} — {title}"
        if c.offset_ns:
            tip += f"; clock offset {c.offset_ns / 1000:+.3f} µs applied"
        if kind == STEPS_ONLY:
            rows.append(Row(STEPS, c.number, y * h, h, 0, c.title, ("steps", c.number), tooltip=tip))
        else:
            i = next(k for k, d in enumerate(c.derived_lanes) if d.key == kind)
            rows.append(Row(DERIVED, c.number, y * h, h, 0, c.title, ("derived", c.number, i), derived=i,
                            tooltip=f"{tip}: {c.derived_lanes[i].tooltip}"))
    return LaneLayout(rows=rows, height=len(rows) * h)


def _has_kind(card: CardView, kind: str) -> bool:
    if kind == STEPS_ONLY:
        return card.steps is not None
    return any(d.key == kind for d in card.derived_lanes)


def _derived_layout(cards: list[CardView], collapsed: set[tuple]) -> LaneLayout:
    """Card header, its derived lanes and Steps; no processes."""
    rows: list[Row] = []
    y = 0
    for c in cards:
        if not c.derived_lanes and c.steps is None:
            continue
        key = ("card", c.number)
        shut = key in collapsed
        rows.append(Row(CARD, c.number, y, CARD_H, 0, c.title, key, collapsed=shut,
                        tooltip=f"{c.title}: derived lanes"))
        y += CARD_H
        if shut:
            continue
        for i, d in enumerate(c.derived_lanes):
            rows.append(Row(DERIVED, c.number, y, DERIVED_H, 1, d.title, ("derived", c.number, i), derived=i,
                            tooltip=d.tooltip))
            y += DERIVED_H
        if c.steps is not None:
            rows.append(Row(STEPS, c.number, y, SLICE_ROW_H + 2, 1, "Steps", ("steps", c.number),
                            tooltip="step interval (wait for data) | forward-backward | tail"))
            y += SLICE_ROW_H + 2
    return LaneLayout(rows=rows, height=y)
