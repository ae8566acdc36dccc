"""Both runs of 32 cards on the timeline with one kind of lane: each card's pair of rows (base, the new
run's under it) is named once, in letters of a readable size, and every card is named."""

from __future__ import annotations

import pytest

from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.analysis_tabs.compare.open_menu import compare_view, open_comparison
from timelineview.viewstate.timeline.lane_filter import MIN_ROW_H

CARDS = 32
READABLE_PX = 11  # a line of text at least this tall (a 6 px row's 8 px letters are not)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("both32")
    for name, seed in (("base", 1), ("new", 2)):
        generate_cluster(root / name, cluster_specs(CARDS, seed=seed, steps=2, tasks_per_step=8))
    return root / "base", root / "new"


def test_each_pair_of_rows_is_named_once_and_readably(qtbot, window, runs):
    view = compare_view(window)
    with qtbot.waitSignal(view.comparisonReady, timeout=120_000) as ready:
        window.open_paths([runs[0]], remember=False)
        assert open_comparison(window, [runs[1]])
    assert ready.args == [True]
    assert view.show_on_timeline(0)
    window.cluster.set_lane_filter("communication")
    timeline = window.timeline
    rows = timeline.ctx.layout.rows
    assert len(rows) == 2 * CARDS and rows[0].height == MIN_ROW_H  # 64 rows squeezed to the thinnest
    tree = timeline.tree
    tree.grab()  # paints it
    names = [label.text for label in tree.drawn_labels]
    # each card once, its new run's row with it, in the order of the pairs on the timeline (the comparison's
    # order of the cards: by their own change, metrics.md; no longer rank order when step times grow alike)
    assert sorted(names) == sorted(f"rank {k}" for k in range(CARDS))
    assert names == [base.title for base, _ in view.pairs]
    assert [c.title for c in timeline.cards[0::2]] == names
    for label in tree.drawn_labels:
        assert READABLE_PX <= label.line_px <= label.room_px == 2 * MIN_ROW_H, label
    assert "the new run's lane under each base lane" in window.cluster.bar.label.text()
