"""What lies under a point of the timeline (no Qt): one hit test per row kind, over plain floats.

Every test has the signature ``hit(state, row, x, y)`` with ``x``/``y`` in scene pixels (the
canvas's widget pixels) and ``row`` the row under ``y``; it returns a :data:`Hit` or None. A thing
counts as hit within :data:`HIT_SLOP_PX` pixels, so one-pixel slices stay clickable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from timelineview.viewstate.timeline.lane_layout import LANE_PAD, SLICE_ROW_H, Row
from timelineview.viewstate.timeline.view_state import Hit, InstantRef, IntervalRef, SliceRef, ViewState
from timelineview.viewstate.timeline.window_source import Sample, WindowSource

HIT_SLOP_PX = 2

HitTest = Callable[[ViewState, Row, float, float], Hit | None]


def _slop_ns(state: ViewState) -> int:
    return int(state.viewport.ns_per_px * HIT_SLOP_PX)


def slice_at(state: ViewState, row: Row, x: float, y: float) -> SliceRef | None:
    """The slice under (x, y) on a slice lane row, or None."""
    card = state.card_by_number(row.card)
    index = card.store.index if card is not None else None
    if index is None:
        return None
    level = int((state.layout_y(y) - row.y - LANE_PAD) // SLICE_ROW_H)
    if not 0 <= level < row.levels:
        return None
    t = state.t_at(x) + state.card_shift(card)
    hit = index.hit(int(index.lane_first_row[row.lane]) + level, t, _slop_ns(state))
    return SliceRef(row.card, int(hit)) if hit >= 0 else None


def instant_at(state: ViewState, row: Row, x: float, y: float) -> InstantRef | None:
    """The instant marker nearest to x on a slice lane row (anywhere in the row's height), or None."""
    card = state.card_by_number(row.card)
    if card is None:
        return None
    t = state.t_at(x) + state.card_shift(card)
    k = card.instant_near(row.lane, t, _slop_ns(state))
    return None if k is None else InstantRef(row.card, int(k))


def _interval(state: ViewState, row: Row, starts: np.ndarray, ends: np.ndarray, t: int) -> IntervalRef | None:
    """The first of the sorted disjoint intervals [starts, ends] (absolute ns) within slop of t."""
    slop = _slop_ns(state)
    k = int(np.searchsorted(ends, t - slop, side="left"))
    if k < len(starts) and starts[k] <= t + slop:
        card = state.card_by_number(row.card)
        return IntervalRef(row.card, state.rel(card, int(starts[k])), state.rel(card, int(ends[k])))
    return None


def derived_interval_at(state: ViewState, row: Row, x: float, y: float) -> IntervalRef | None:
    """The interval of a derived lane (Computing, Communication, …) under x, or None."""
    card = state.card_by_number(row.card)
    if card is None:
        return None
    t = state.t_at(x) + state.card_shift(card)
    lane = card.derived_lanes[row.derived]
    if lane.select is not None:  # e.g. an idle gap: the whole gap, whichever part was clicked
        return _interval(state, row, *lane.select, t)
    for _, starts, ends, _ in lane.parts:
        hit = _interval(state, row, starts, ends, t)
        if hit is not None:
            return hit
    return None


def step_at(state: ViewState, row: Row, x: float, y: float) -> IntervalRef | None:
    """The step window under x on a Steps row, or None."""
    card = state.card_by_number(row.card)
    if card is None or card.steps is None:
        return None
    t = state.t_at(x) + state.card_shift(card)
    slop = _slop_ns(state)
    s = card.steps
    k = np.flatnonzero((s.start <= t + slop) & (s.end >= t - slop))
    if len(k) == 0:
        return None
    return IntervalRef(row.card, state.rel(card, int(s.start[k[0]])), state.rel(card, int(s.end[k[0]])))


class CoverageHit(NamedTuple):
    """A coverage row's sample under the mouse and the source it came from."""

    source: WindowSource
    sample: Sample


def coverage_sample(state: ViewState, row: Row, x: float) -> CoverageHit | None:
    """The card's coverage source and its sample under x on a coverage row, or None where the row has no
    source or the source no sample there: what a click selects and the hover says."""
    card = state.card_by_number(row.card)
    source = card.coverage_source if card is not None else None
    if source is None:
        return None
    t0, t1 = state.abs_window(card)
    sample = source.sample_at(row.source_row, state.t_at(x) + state.card_shift(card), t0, t1, state.area.width)
    return None if sample is None else CoverageHit(source, sample)


def coverage_sample_at(state: ViewState, row: Row, x: float, y: float) -> IntervalRef | None:
    """The sample (a pyramid's bucket) under x on a coverage row, as the window it stands for; None where the
    row's source covers nothing there."""
    found = coverage_sample(state, row, x)
    if found is None or found.sample.share <= 0:
        return None
    card, sample = state.card_by_number(row.card), found.sample
    return IntervalRef(row.card, state.rel(card, sample.t0), state.rel(card, sample.t1))


def hit_at(state: ViewState, x: float, y: float, tests: Mapping[str, Sequence[HitTest]]) -> Hit | None:
    """What is under (x, y): the first hit of the tests registered for the kind of the row there."""
    row = state.row_under(y)
    if row is None:
        return None
    if row.kind not in tests:  # a row no lane kind registered: an error, never hit as nothing
        raise KeyError(f"no hit tests registered for lane kind {row.kind!r}")
    for test in tests[row.kind]:
        hit = test(state, row, x, y)
        if hit is not None:
            return hit
    return None
