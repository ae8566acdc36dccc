""""Free" means one thing (issue 11 item 3): ``free_us`` of the window, in every place that shows it.

The same step window shows the same Free number in the stats document, the cluster table and the
Details panel (after clicking the step on the Steps lane); the chart's part, which leaves the step
interval out, carries another name.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from timelineview.analysis.cluster.comparison import BAR_PARTS, COLUMNS, FREE_AFTER_INTERVAL
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.window import window_metrics
from timelineview.views.cluster.comparison_table import ComparisonTableModel
from timelineview.views.panels.area_stats import METRIC_ROWS, metric_text
from timelineview.views.panels.details_panel import DetailsPanel
from timelineview.viewstate.timeline.lane_layout import STEPS

STEP = 2


def test_one_window_shows_one_free_everywhere(qtbot, timeline, cards):
    card = cards[0]
    session = AnalysisSession([c.store for c in cards])
    doc_step = next(s for s in session.stats_document()["cards"][0]["steps"] if s["step"] == STEP)
    # the Details panel, after a click on the step's bar
    panel = DetailsPanel(timeline)
    qtbot.addWidget(panel)
    steps = card.steps
    k = int(np.flatnonzero(steps.step == STEP)[0])
    shift = timeline.ctx.card_shift(card)
    timeline.set_range(int(steps.start[k]) - shift - 10_000, int(steps.end[k]) - shift + 10_000)
    row = timeline.ctx.layout.find(STEPS, card.number)
    timeline.set_scroll(row.y)
    x = timeline.ctx.scene_x((int(steps.start[k]) + int(steps.end[k])) // 2 - shift)
    y = timeline.ctx.scene_y(row.y + row.height / 2)
    qtbot.mouseClick(timeline.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(int(x), int(y)))
    sel = timeline.ctx.area_selection
    assert sel is not None and (sel.t0 + shift, sel.t1 + shift) == (int(steps.start[k]), int(steps.end[k]))
    free_row = [key for key, _ in METRIC_ROWS].index("free_us")
    assert panel.area.metrics.verticalHeaderItem(free_row).text() == "Free"
    assert panel.area.metrics.verticalHeaderItem(free_row).toolTip().startswith("free_us")
    shown = panel.area.metrics.item(free_row, 0).text()
    assert shown == metric_text("free_us", doc_step["free_us"], doc_step["span_us"])
    # the cluster table, showing that step
    model = ComparisonTableModel()
    rows = session.comparison.rows(STEP)
    model.set_rows(rows, COLUMNS)
    col = [c.key for c in COLUMNS].index("free_us")
    assert COLUMNS[col].title == "Free"
    assert model.data(model.index(0, col), QtCore.Qt.ItemDataRole.UserRole) == pytest.approx(doc_step["free_us"])
    # the chart's part leaves the step interval out: another quantity, another name
    titles = dict(BAR_PARTS)
    assert "free_us" not in titles and titles[FREE_AFTER_INTERVAL] == "Free after the step interval"
    window = session.analyse(card.number, ("steps",)).steps[k]
    after = window_metrics(card.derived, window.fp, window.end)["free_us"]
    assert rows[0]["bar"][FREE_AFTER_INTERVAL] == pytest.approx(after)
    assert after < doc_step["free_us"]  # this card's step interval is free: the two differ
