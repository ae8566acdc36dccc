"""The lane filter and its rows speak the shown cards' words: a Kineto card's never say "AI Core", an Ascend
card's do, and cards of both say "device compute" (the filter is about no one card then)."""

from __future__ import annotations

import json

import pytest

from tests.producers.test_kineto_trace import kineto_trace
from tests.viewstate.kinds import SOURCES
from timelineview.analysis.summaries.card_summary import pyramid_rows
from timelineview.model import load
from timelineview.producers.wording import ASCEND_WORDING, shared_wording
from timelineview.synthetic import CardSpec, generate_card
from timelineview.viewstate.card_view import CardView, prepare_card
from timelineview.viewstate.timeline.lane_filter import LANE_FILTERS, build_filtered_layout, lane_filters


@pytest.fixture(scope="module")
def kineto_card(tmp_path_factory) -> CardView:
    path = tmp_path_factory.mktemp("kineto") / "host_1.1700000000.pt.trace.json"
    path.write_text(json.dumps(kineto_trace()))
    (store,) = load(path)
    return prepare_card(store, 0)


@pytest.fixture(scope="module")
def ascend_card(tmp_path_factory) -> CardView:
    path = tmp_path_factory.mktemp("msprof") / "msprof_1.json"
    generate_card(path, CardSpec(), "msprof")
    (store,) = load(path)
    return prepare_card(store, 1)


def test_a_kineto_cards_lane_filter_never_says_ai_core(kineto_card):
    filters = dict(lane_filters(shared_wording([kineto_card.wording])))
    assert filters["idle_gaps"] == "Idle GPU gaps only"
    assert not any("AI Core" in title for title in filters.values())
    assert len(filters) == len(LANE_FILTERS)
    # each filtered row: its tooltip names the filter in the card's words
    for key in filters:
        layout = build_filtered_layout([kineto_card], key, set(), 400, SOURCES)
        assert not any("AI Core" in (r.tooltip or "") or "AI Core" in r.title for r in layout.rows), key
    [row] = build_filtered_layout([kineto_card], "idle_gaps", set(), 400, SOURCES).rows
    assert row.tooltip.startswith(f"{kineto_card.title} — Idle GPU gaps:")
    # the rows a summary of the card draws are titled in its words too
    titles = [title for title, _ in pyramid_rows(kineto_card.store, kineto_card.analysis.derived)]
    assert "Idle GPU gaps" in titles and not any("AI Core" in t for t in titles)


def test_an_ascend_card_keeps_ai_core_and_both_together_say_device_compute(ascend_card, kineto_card):
    assert ascend_card.wording == ASCEND_WORDING
    assert dict(lane_filters(shared_wording([ascend_card.wording])))["idle_gaps"] == "Idle AI Core gaps only"
    both = dict(lane_filters(shared_wording([ascend_card.wording, kineto_card.wording])))
    assert both["idle_gaps"] == "Idle device compute gaps only"
    layout = build_filtered_layout([ascend_card, kineto_card], "idle_gaps", set(), 400, SOURCES)
    assert [r.tooltip.split(":")[0] for r in layout.rows] == [f"{ascend_card.title} — Idle AI Core gaps",
                                                              f"{kineto_card.title} — Idle GPU gaps"]
