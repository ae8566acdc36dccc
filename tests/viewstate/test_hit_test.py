"""Hit tests and selection maths on plain coordinates, without Qt.

The fixture state maps 1 px to 10 ns (1000 px over [0, 10 000] ns) and puts the track area at
scene y 26, so every expected value below is worked out by hand from the row heights of
``lane_layout`` (card 24, process 20, lane 3 + 18 per level + 3).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tests.views.factory import BASE_NS, StoreBuilder
from tests.viewstate.kinds import HIT_TESTS, SOURCES
from timelineview.model.store.trace_store import InstantTable
from timelineview.viewstate.card_view import CardView, DerivedLane, StepBars
from timelineview.viewstate.timeline.hit_test import hit_at, instant_at
from timelineview.viewstate.timeline.lane_layout import DERIVED, LANE, STEPS, build_layout
from timelineview.viewstate.timeline.lod import prefix_lengths
from timelineview.viewstate.timeline.selection import area_selection, dragged_window, selection_span
from timelineview.viewstate.timeline.view_state import (
    AreaSelection,
    InstantRef,
    IntervalRef,
    Rect,
    SliceRef,
    ViewState,
)


def _card() -> CardView:
    """One lane: A [1000, 4000) at depth 0 holding B [1500, 2000) at depth 1 (relative ns; the
    first slice starts at 0 so the origin is BASE_NS); a second lane with one slice; instants at
    6000 and 6100 on the first lane; a Computing lane [500, 900] and [5000, 5200]; two steps."""
    b = StoreBuilder()
    b.add("Host/Thread 1", "origin", BASE_NS, 10)
    b.add("Host/Thread 1", "A", BASE_NS + 1000, 3000)
    b.add("Host/Thread 1", "B", BASE_NS + 1500, 500)
    b.add("Host/Thread 2", "C", BASE_NS + 7000, 1000)
    store = b.build()
    store.instants = InstantTable(ts=np.array([BASE_NS + 6000, BASE_NS + 6100], np.int64),
                                  lane=np.zeros(2, np.int32), name=np.zeros(2, np.int32),
                                  src=np.arange(2, dtype=np.int64))
    starts = np.array([500, 5000], np.int64) + BASE_NS
    ends = np.array([900, 5200], np.int64) + BASE_NS
    derived = [DerivedLane("compute", "Computing", [("compute", starts, ends, prefix_lengths(starts, ends))])]
    steps = StepBars(step=np.array([1, 2]), start=np.array([0, 5000]) + BASE_NS, end=np.array([4500, 9000]) + BASE_NS,
                     fp=np.array([100, 5100]) + BASE_NS, bp=np.array([3000, 8000]) + BASE_NS)
    return CardView(number=3, store=store, derived_lanes=derived, steps=steps)


@pytest.fixture
def state() -> ViewState:
    s = ViewState()
    s.cards = [_card()]
    s.origin = BASE_NS
    s.area = Rect(0, 26, 1000, 400)
    s.viewport.set_width(1000)
    s.viewport.set_extent(0, 10_000)
    s.viewport.set_range(0, 10_000, remember=False)
    s.layout = build_layout(s.cards, set(), SOURCES)
    return s


def test_the_layout_places_rows_by_their_heights(state):
    kinds = [(r.kind, r.y, r.height, r.indent) for r in state.layout.rows]
    assert kinds == [("card", 0, 24, 0), ("overview", 24, 20, 1), (DERIVED, 44, 16, 2), (STEPS, 60, 20, 2),
                     ("process", 80, 20, 1), (LANE, 100, 42, 2), (LANE, 142, 24, 2)]
    assert state.layout.height == 166


def test_a_point_hits_the_slice_of_its_level(state):
    # lane 0 starts at layout y 100, i.e. scene y 126; level 0 covers scene y 129..147, level 1 147..165
    assert hit_at(state, 200, 135, HIT_TESTS) == SliceRef(3, 1)  # t = 2000 on level 0: A
    assert hit_at(state, 170, 150, HIT_TESTS) == SliceRef(3, 2)  # t = 1700 on level 1: B
    assert hit_at(state, 250, 150, HIT_TESTS) is None  # t = 2500 on level 1: after B, beyond the 20 ns slop
    assert hit_at(state, 98, 135, HIT_TESTS) == SliceRef(3, 1)  # t = 980: 20 ns before A, inside the slop
    assert hit_at(state, 97, 135, HIT_TESTS) is None  # t = 970: 30 ns before A
    assert hit_at(state, 750, 175, HIT_TESTS) == SliceRef(3, 3)  # lane 1, level 0 (scene y 171..189), t = 7500: C
    assert hit_at(state, 750, 170, HIT_TESTS) is None  # lane 1's top padding: no level
    assert hit_at(state, 200, 20, HIT_TESTS) is None  # on the ruler, above the track area
    assert hit_at(state, 200, 26 + 166, HIT_TESTS) is None  # below the last row


def test_scrolling_moves_what_lies_under_a_point(state):
    state.scroll_y = 18  # one level: scene y 135 is now layout y 127, level 1 of lane 0
    assert hit_at(state, 170, 135, HIT_TESTS) == SliceRef(3, 2)


def test_an_instant_is_hit_where_no_slice_is(state):
    row = state.layout.rows[5]
    assert instant_at(state, row, 601, 135) == InstantRef(3, 0)  # t = 6010: 10 ns from the first
    assert hit_at(state, 609, 135, HIT_TESTS) == InstantRef(3, 1)  # t = 6090: nearer the second
    assert hit_at(state, 640, 135, HIT_TESTS) is None  # t = 6400: 300 ns from both


def test_derived_and_step_rows_hit_their_intervals(state):
    # the Computing row is layout y 44..60 (scene 70..86), Steps 60..80 (scene 86..106)
    assert hit_at(state, 70, 75, HIT_TESTS) == IntervalRef(3, 500, 900)
    assert hit_at(state, 95, 75, HIT_TESTS) is None  # t = 950: 50 ns after the interval
    assert hit_at(state, 510, 75, HIT_TESTS) == IntervalRef(3, 5000, 5200)
    assert hit_at(state, 300, 90, HIT_TESTS) == IntervalRef(3, 0, 4500)
    assert hit_at(state, 499, 90, HIT_TESTS) == IntervalRef(3, 5000, 9000)  # t = 4990: 10 ns before step 2
    assert hit_at(state, 470, 90, HIT_TESTS) is None  # t = 4700: 200 ns from both steps


def test_a_clock_offset_shifts_the_hit_time(state):
    state.cards[0].offset_ns = 1000  # the card's times read 1000 ns later than the shared clock
    assert hit_at(state, 100, 135, HIT_TESTS) == SliceRef(3, 1)  # shared t = 1000 is the card's 2000: A
    assert hit_at(state, 410, 75, HIT_TESTS) == IntervalRef(3, 4000, 4200)  # the card's [5000, 5200]


def test_a_drag_is_clamped_to_the_track_area(state):
    # x beyond the right edge clamps to column 999 (t = 9990); y above the area clamps to its top
    assert dragged_window(state, 1200, 10, 300, 140) == (3000, 9990, 0.0, 114.0)
    state.scroll_y = 20
    assert dragged_window(state, 300, 500, 100, 40) == (1000, 3000, 34.0, 419.0)


def test_an_area_holds_the_lanes_of_its_band(state):
    sel = area_selection(state, 1000, 3000, 70.0, 150.0)  # Steps row to the second lane
    assert sel == AreaSelection(1000, 3000, 60, 166, cards=[3], lanes={3: [0, 1]})
    assert area_selection(state, 1000, 3000, 44.0, 50.0).lanes == {}  # derived rows only: no lane
    assert area_selection(state, 3000, 3000, 0.0, 200.0) is None  # empty window
    whole = area_selection(state, 0, 10, rows_of_card=3)
    assert (whole.y0, whole.y1, whole.lanes) == (0, 166, {3: [0, 1]})


def test_a_collapsed_process_stands_for_its_lanes(state):
    state.layout = build_layout(state.cards, {("process", 3, 0)}, SOURCES)
    process = state.layout.rows[-1]
    assert (process.kind, process.collapsed) == ("process", True)
    sel = area_selection(state, 0, 10, process.y, process.y)
    assert sel.lanes == {3: [0, 1]}


def test_the_selected_span_is_the_slice_or_the_area(state):
    assert selection_span(state) is None
    state.area_selection = AreaSelection(5, 50, 0, 10)
    assert selection_span(state) == (5, 50)
    state.selection = SliceRef(3, 1)
    assert selection_span(state) == (1000, 4000)


def test_the_view_state_modules_import_no_qt():
    code = ("import sys; import timelineview.viewstate.timeline.hit_test, timelineview.viewstate.timeline.selection, "
            "timelineview.viewstate.timeline.lane_filter, timelineview.viewstate.timeline.track_rows; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
