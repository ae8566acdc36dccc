"""Selection maths of the timeline (no Qt): area selections, dragged windows, selected spans."""

from __future__ import annotations

from timelineview.viewstate.timeline.lane_layout import Row, summarised_lanes
from timelineview.viewstate.timeline.view_state import AreaSelection, InstantRef, SliceRef, ViewState


def dragged_window(state: ViewState, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, float, float]:
    """(t0, t1, layout y top, layout y bottom) of a drag between two scene points, clamped to
    the track area (a drag may leave the canvas)."""
    a = state.area
    xs = sorted(min(max(x, a.left), a.right) for x in (x0, x1))
    ys = sorted(state.layout_y(min(max(y, a.top), a.bottom)) for y in (y0, y1))
    return state.t_at(xs[0]), state.t_at(xs[1]), ys[0], ys[1]


def _lanes_of(state: ViewState, row: Row) -> list[int] | None:
    """Slice lanes a row stands for: its own lane, or the lanes holding slices under a collapsed
    card or process; None for rows that stand for no lane (derived, Steps, counters)."""
    if row.lane >= 0:
        return [row.lane]
    card = state.card_by_number(row.card)
    lanes = summarised_lanes(card, row)
    if lanes is None:
        return None
    has = card.lanes_with_slices()
    return [int(x) for x in lanes if has[x]]


def area_selection(state: ViewState, t0: int, t1: int, y0: float | None = None, y1: float | None = None,
                   rows_of_card: int | None = None) -> AreaSelection | None:
    """[t0, t1] across the rows between layout y0 and y1 (or every row of one card); None when
    that band holds no row or the window is empty."""
    rows = state.layout.rows
    if rows_of_card is not None:
        band = [r for r in rows if r.card == rows_of_card]
    else:
        band = [r for r in rows if r.bottom > y0 and r.y <= y1]
    if not band or t1 <= t0:
        return None
    sel = AreaSelection(int(t0), int(t1), band[0].y, band[-1].bottom)
    for r in band:
        if r.card not in sel.cards:
            sel.cards.append(r.card)
        lanes = _lanes_of(state, r)
        if lanes is not None:
            sel.lanes.setdefault(r.card, []).extend(lanes)
    return sel


def selection_span(state: ViewState) -> tuple[int, int] | None:
    """Relative [t0, t1] of the selected slice or area."""
    if state.selection is not None:
        card = state.card_by_number(state.selection.card)
        s = card.store.slices
        t0 = state.rel(card, int(s.start[state.selection.index]))
        return t0, t0 + int(s.dur[state.selection.index])
    if state.area_selection is not None:
        return state.area_selection.t0, state.area_selection.t1
    return None


def current_selection(state: ViewState) -> SliceRef | InstantRef | AreaSelection | None:
    """What is selected: a slice, an instant or an area (at most one is set at a time), or None."""
    return state.selection or state.instant_selection or state.area_selection
