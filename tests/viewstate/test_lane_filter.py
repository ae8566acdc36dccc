"""Lane filters lay out rows from the registered kinds' filter rows (no Qt); sizes worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tests.views.factory import BASE_NS, StoreBuilder
from tests.viewstate.kinds import SOURCES
from timelineview.viewstate.card_view import CardView, DerivedLane, StepBars
from timelineview.viewstate.timeline.lane_filter import ALL, DERIVED_ONLY, MIN_ROW_H, STEPS_ONLY, build_filtered_layout
from timelineview.viewstate.timeline.lane_layout import CARD, DERIVED, STEPS, build_layout


def _lane(key: str, title: str) -> DerivedLane:
    s, e = np.array([BASE_NS], np.int64), np.array([BASE_NS + 10], np.int64)
    return DerivedLane(key, title, [(key, s, e, np.array([0, 10], np.int64))], tooltip=f"{title} tip")


def _card(number: int, keys: list[str], steps: bool = False, offset: int = 0) -> CardView:
    b = StoreBuilder()
    b.add("Host/Thread 1", "op", BASE_NS, 100)
    lanes = [_lane(k, k.title()) for k in keys]
    bars = StepBars(np.array([1]), np.array([BASE_NS]), np.array([BASE_NS + 100]), np.array([BASE_NS + 10]),
                    np.array([BASE_NS + 90])) if steps else None
    return CardView(number=number, store=b.build(f"rank {number}"), offset_ns=offset, derived_lanes=lanes, steps=bars)


@pytest.fixture(scope="module")
def cards() -> list[CardView]:
    return [_card(0, ["compute", "communication"]), _card(1, ["compute"]),
            _card(2, ["compute", "communication"], steps=True, offset=2000)]


def test_one_kind_is_one_row_per_card_that_has_it(cards):
    lay = build_filtered_layout(cards, "communication", set(), 30, SOURCES)
    # two cards share 30 px: 15 px each (under the 20 px cap)
    got = [(r.kind, r.card, r.y, r.height, r.indent, r.title, r.derived) for r in lay.rows]
    assert got == [(DERIVED, 0, 0, 15, 0, "rank 0", 1), (DERIVED, 2, 15, 15, 0, "rank 2", 1)]
    assert lay.height == 30
    assert lay.rows[0].tooltip == "rank 0 — Communication: Communication tip"
    assert lay.rows[1].tooltip == "rank 2 — Communication; clock offset +2.000 µs applied: Communication tip"


def test_rows_shrink_to_fit_but_never_below_the_minimum(cards):
    assert [r.height for r in build_filtered_layout(cards, "compute", set(), 1000, SOURCES).rows] == [20] * 3
    assert [r.height for r in build_filtered_layout(cards, "compute", set(), 45, SOURCES).rows] == [15] * 3
    assert [r.height for r in build_filtered_layout(cards, "compute", set(), 5, SOURCES).rows] == [MIN_ROW_H] * 3


def test_steps_only_keeps_the_cards_with_steps(cards):
    lay = build_filtered_layout(cards, STEPS_ONLY, set(), 600, SOURCES)
    assert [(r.kind, r.card, r.y, r.height) for r in lay.rows] == [(STEPS, 2, 0, 20)]
    assert lay.rows[0].tooltip == "rank 2 — Steps; clock offset +2.000 µs applied"
    assert build_filtered_layout(cards, "no such lane", set(), 600, SOURCES).rows == []


def test_derived_only_keeps_each_cards_overview_under_its_header(cards):
    lay = build_filtered_layout(cards, DERIVED_ONLY, {("card", 1)}, 600, SOURCES)
    got = [(r.kind, r.card, r.y, r.height, r.indent) for r in lay.rows]
    # card 24 px, derived 16 px, Steps 20 px; card 1 is collapsed to its header
    assert got == [(CARD, 0, 0, 24, 0), (DERIVED, 0, 24, 16, 1), (DERIVED, 0, 40, 16, 1),
                   (CARD, 1, 56, 24, 0),
                   (CARD, 2, 80, 24, 0), (DERIVED, 2, 104, 16, 1), (DERIVED, 2, 120, 16, 1), (STEPS, 2, 136, 20, 1)]
    assert lay.height == 156


def test_all_lanes_is_the_full_layout(cards):
    full = build_filtered_layout(cards, ALL, set(), 600, SOURCES)
    assert full.rows == build_layout(cards, set(), SOURCES).rows
    # per card: header, overview group, its derived lanes (and Steps), one process with one lane
    assert [r.kind for r in full.rows if r.card == 2] == [CARD, "overview", DERIVED, DERIVED, STEPS, "process", "lane"]
