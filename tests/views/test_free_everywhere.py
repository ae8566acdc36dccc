""""Free" is the producer's Free (``free_us``: idle time inside the Stage) and nothing else; the free
time over a whole window is ``window_free_us`` and every screen says which window (metrics.md §3).

The same step window shows the same window-free number in the stats document, the cluster table
("Window free") and the Details panel ("Window free (selection)", after clicking the step on the
Steps lane); the chart's part, which leaves the step interval out, carries another name; the
whole-card Details show "Window free (card span)"; the producer's Free is "Free" everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from timelineview.analysis.cluster.comparison import (
    BAR_PARTS,
    COLUMNS,
    FREE_AFTER_INTERVAL,
    FREE_STEP_WINDOW,
    PRODUCER_FREE,
)
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.window import card_metrics, window_metrics
from timelineview.views.cluster.comparison_table import ComparisonTableModel
from timelineview.views.panels.area_stats import (
    FREE_CARD_SPAN,
    FREE_SELECTION,
    METRIC_ROWS,
    AreaStats,
    metric_text,
)
from timelineview.views.panels.details_panel import DetailsPanel
from timelineview.viewstate.timeline.lane_layout import STEPS
from timelineview.viewstate.timeline.view_state import AreaSelection

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
    free_row = [key for key, _ in METRIC_ROWS].index("window_free_us")
    assert panel.area.metrics.verticalHeaderItem(free_row).text() == FREE_SELECTION
    assert panel.area.metrics.verticalHeaderItem(free_row).toolTip().startswith("window_free_us")
    shown = panel.area.metrics.item(free_row, 0).text()
    assert shown == metric_text("window_free_us", doc_step["window_free_us"], doc_step["span_us"])
    # the cluster table, showing that step
    model = ComparisonTableModel()
    rows = session.comparison.rows(STEP)
    model.set_rows(rows, COLUMNS)
    col = [c.key for c in COLUMNS].index("window_free_us")
    assert COLUMNS[col].title == FREE_STEP_WINDOW
    assert model.data(model.index(0, col), QtCore.Qt.ItemDataRole.UserRole) == \
        pytest.approx(doc_step["window_free_us"])
    # the chart's part leaves the step interval out: another quantity, another name
    titles = dict(BAR_PARTS)
    assert "window_free_us" not in titles and titles[FREE_AFTER_INTERVAL] == "Free after the step interval"
    window = session.analyse(card.number, ("steps",)).steps[k]
    after = window_metrics(card.derived, window.fp, window.end)["free_us"]
    assert rows[0]["bar"][FREE_AFTER_INTERVAL] == pytest.approx(after)
    assert after < doc_step["window_free_us"]  # this card's step interval is free: the two differ
    # the producer's Free of the step: the same figure, named Free, in the table and in the Details panel
    stage_col = [c.key for c in COLUMNS].index("free_us")
    assert COLUMNS[stage_col].title == PRODUCER_FREE == "Free"
    assert model.data(model.index(0, stage_col), QtCore.Qt.ItemDataRole.UserRole) == pytest.approx(
        doc_step["free_us"])
    stage_row = [key for key, _ in METRIC_ROWS].index("free_us")
    assert panel.area.metrics.verticalHeaderItem(stage_row).text() == PRODUCER_FREE
    assert panel.area.metrics.item(stage_row, 0).text() == metric_text("free_us", doc_step["free_us"],
                                                                       doc_step["span_us"])
    assert doc_step["free_us"] < doc_step["window_free_us"]


def _row_text(area: AreaStats, key: str, col: int = 0) -> str:
    return area.metrics.item([k for k, _ in METRIC_ROWS].index(key), col).text()


def test_whole_card_details_say_card_span(qtbot, cards):
    """Nothing selected: the Details show the card's own Free (its span, the stats document's card
    free_us) under a name that is not the table's step-window Free."""
    area = AreaStats()
    qtbot.addWidget(area)
    area.show_overview(cards)
    free_row = [k for k, _ in METRIC_ROWS].index("window_free_us")
    assert area.metrics.verticalHeaderItem(free_row).text() == FREE_CARD_SPAN != FREE_STEP_WINDOW
    doc = AnalysisSession([c.store for c in cards]).stats_document()["cards"]
    for col, card in enumerate(doc):
        # the card's span is its Stage: both free times are the card's free_us
        for key in ("window_free_us", "free_us"):
            assert _row_text(area, key, col) == metric_text(key, card["free_us"], card["span_us"])


def test_an_area_inside_an_idle_gap_is_free_outside_whole_gaps(qtbot, cards):
    """A selection inside one idle gap is all Free; the gap is cut by the selection's edges, so it is
    not a whole idle gap of the window ("nothing running" 0): the row between says where Free is."""
    card = cards[0]
    d = card.derived
    k = int(np.argmax(d.idle_gap_free.lengths))
    g0, g1 = int(d.idle_gap_free.starts[k]), int(d.idle_gap_free.ends[k])
    t0, t1 = g0 + (g1 - g0) // 4, g1 - (g1 - g0) // 4
    area = AreaStats()
    qtbot.addWidget(area)
    area.show_area(AreaSelection(t0, t1, 0, 1, [card.number]), [card], lambda c: 0)
    span_us = (t1 - t0) / 1000.0
    assert _row_text(area, "window_free_us") == metric_text("window_free_us", span_us, span_us)  # 100 %
    assert _row_text(area, "free_us") == metric_text("free_us", 0.0, span_us)  # no task: no Stage, no Free
    assert _row_text(area, "idle_gap_free_us") == metric_text("idle_gap_free_us", 0.0, span_us)
    assert _row_text(area, "free_outside_idle_gaps_us") == metric_text("window_free_us", span_us, span_us)
    # any window: Free = outside whole idle gaps + nothing running
    s0, s1 = int(d.span[0]), int(d.span[0] + (d.span[1] - d.span[0]) // 3)
    area.show_area(AreaSelection(s0, s1, 0, 1, [card.number]), [card], lambda c: 0)
    m = window_metrics(d, s0, s1)
    assert m["idle_gap_free_us"] > 0
    want = m["free_us"] - m["idle_gap_free_us"]
    assert _row_text(area, "free_outside_idle_gaps_us") == metric_text("window_free_us", want, (s1 - s0) / 1000.0)
    assert card_metrics(d)["free_us"] >= m["free_us"]
