"""The desktop opens a summary folder: the comparison (same values as from the traces), the rank × step
heat map, and a card's overview from its pyramid — without loading any trace."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6 import QtCore  # noqa: E402

from tests.views.main_window_fixture import shown_main_window  # noqa: E402
from timelineview.analysis.session import AnalysisSession  # noqa: E402
from timelineview.distributed.summarize import summarize  # noqa: E402
from timelineview.model import load  # noqa: E402

from .conftest import CARDS  # noqa: E402


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    return shown_main_window(qtbot, settings)


def _without_number(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "number"} for r in rows]


def test_desktop_opens_a_summary_folder(qtbot, window, traces, dask_client, tmp_path):
    summarize(traces, tmp_path / "s", client=dask_client, progress=None)
    with qtbot.waitSignal(window.loadFinished, timeout=60_000):  # read in the background
        window.open_paths([tmp_path / "s"])
    assert window.worker is None  # nothing was loaded
    tab = window.cluster
    assert tab.tabs.currentWidget() is tab.view
    model = tab.view.table.model_
    assert model.rowCount() == CARDS
    traced = AnalysisSession(load(traces))
    # the rows the table shows are the ones the traces give (card numbers aside: load order vs index order)
    assert sorted(_without_number(model.rows), key=lambda r: r["card"]) == \
        sorted(_without_number(traced.comparison.rows(None)), key=lambda r: r["card"])

    # heat map: step time of every card (by rank) at every step, from the §5 documents of the traces
    docs = traced.card_documents
    expected = np.array([[s["span_us"] for s in d["steps"]] for d in docs])
    tab.heat.set_metric("step_time_us")
    matrix = tab.heat.canvas.matrix
    assert matrix.row_labels == [d["card"] for d in docs]
    assert np.array_equal(matrix.values, expected)
    metrics = [tab.heat.metric_box.itemData(i) for i in range(tab.heat.metric_box.count())]
    assert "compute_us" in metrics and "clock_offset_us" not in metrics  # an offset is per card, not per step
    tab.heat.set_metric("compute_us")
    assert np.array_equal(tab.heat.canvas.matrix.values, [[s["compute_us"] for s in d["steps"]] for d in docs])
    tab.heat.set_metric("step_time_us")
    tab.heat.node_box.setChecked(True)
    by_node = tab.heat.canvas.matrix
    assert np.allclose(by_node.values, expected.reshape(2, 8, -1).mean(axis=1), rtol=0, atol=1e-9)

    # double-click a cell of the slow card (rank 3) at step 2: its overview, from the pyramid
    tab.heat.node_box.setChecked(False)
    canvas = tab.heat.canvas
    r = canvas.plot_rect()
    pos = QtCore.QPoint(int(r.left() + r.width() * 1.5 / expected.shape[1]), int(r.top() + r.height() * 3.5 / CARDS))
    with qtbot.waitSignal(canvas.cellActivated) as hit:
        qtbot.mouseDClick(canvas, QtCore.Qt.MouseButton.LeftButton, pos=pos)
    numbers, step = hit.args
    assert step == 2 and [tab.summary.cards[n].card for n in numbers] == ["rank 3"]
    assert tab.tabs.currentIndex() == 0 and tab.overview.showing_pyramid  # the Timeline tab, from the pyramid
    overview = tab.overview
    assert overview.card.card == "rank 3" and overview.card.worker
    assert overview.pyramid.rows[0] == "Compute" and len(overview.pyramid.rows) > 5
    assert not window.timeline.grab().isNull()
