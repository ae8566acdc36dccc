"""The strip's lane filter is titled in the shown cards' words: GPU gaps for Kineto cards, AI Core gaps for Ascend
ones, device compute gaps for both; the filter chosen is kept when the words change."""

from __future__ import annotations

from timelineview.producers import kineto
from timelineview.producers.wording import ASCEND_WORDING, shared_wording
from timelineview.views.cluster.cluster_bar import ClusterBar


def _titles(bar: ClusterBar) -> dict[str, str]:
    return {bar.filter.itemData(i): bar.filter.itemText(i) for i in range(bar.filter.count())}


def test_the_lane_filter_follows_the_cards_words(qapp):
    bar = ClusterBar()
    bar.set_lane_filter("idle_gaps")
    bar.set_wording(shared_wording([kineto.WORDING, kineto.WORDING]))
    titles = _titles(bar)
    assert titles["idle_gaps"] == "Idle GPU gaps only"
    assert not any("AI Core" in t for t in titles.values())
    assert bar.lane_filter() == "idle_gaps"
    bar.set_wording(shared_wording([ASCEND_WORDING, kineto.WORDING]))
    assert _titles(bar)["idle_gaps"] == "Idle device compute gaps only"
    bar.set_wording(shared_wording([ASCEND_WORDING]))
    assert _titles(bar)["idle_gaps"] == "Idle AI Core gaps only"
