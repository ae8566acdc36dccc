"""At 1000x700 the comparison table shows every row of a small cluster whole, above its scroll bar."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.main_window_fixture import open_and_wait
from timelineview.synthetic import cluster_specs, generate_cluster


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("small") / "ranks"
    generate_cluster(out, cluster_specs(3, seed=8, steps=2, tasks_per_step=30))
    return out


def test_every_row_of_a_small_cluster_is_whole_at_1000_by_700(qtbot, window, cluster_dir):
    window.resize(1000, 700)
    open_and_wait(qtbot, window, cluster_dir)
    view = window.cluster.view
    window.cluster.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.table.isVisible())
    table = view.table
    assert table.horizontalScrollBar().isVisible()  # the columns are wider than 1000 px: the case at hand
    model = table.model()
    bottom = table.viewport().height()
    for row in range(model.rowCount()):
        rect = table.visualRect(model.index(row, 0))
        assert rect.top() >= 0 and rect.bottom() < bottom, f"row {row} ends at {rect.bottom()} of {bottom} px"
