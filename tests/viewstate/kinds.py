"""Qt-free lane kinds for the view-state tests: the layout, filter and hit-test parts of
``views.timeline.tracks.registry`` without its graphics items."""

from __future__ import annotations

from types import SimpleNamespace

from timelineview.viewstate.timeline.hit_test import derived_interval_at, instant_at, slice_at, step_at
from timelineview.viewstate.timeline.lane_filter import MAX_DERIVED_ROW_H, MAX_STEPS_ROW_H
from timelineview.viewstate.timeline.lane_layout import COUNTER, DERIVED, LANE, OVERVIEW, PROCESS, STEPS
from timelineview.viewstate.timeline.track_rows import (
    counter_rows,
    derived_filter_row,
    derived_rows,
    lane_rows,
    steps_filter_row,
    steps_rows,
)


def _none(*_args):
    return None


SOURCES = (
    SimpleNamespace(kind=DERIVED, group=OVERVIEW, rows=derived_rows, filter_row=derived_filter_row,
                    compact_h=MAX_DERIVED_ROW_H),
    SimpleNamespace(kind=STEPS, group=OVERVIEW, rows=steps_rows, filter_row=steps_filter_row,
                    compact_h=MAX_STEPS_ROW_H),
    SimpleNamespace(kind=LANE, group=PROCESS, rows=lane_rows, filter_row=_none, compact_h=0),
    SimpleNamespace(kind=COUNTER, group=PROCESS, rows=counter_rows, filter_row=_none, compact_h=0),
)
HIT_TESTS = {DERIVED: (derived_interval_at,), STEPS: (step_at,), LANE: (slice_at, instant_at)}
