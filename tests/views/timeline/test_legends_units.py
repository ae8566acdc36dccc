"""Legends and units: what each colour and number means is on screen."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from tests.views.timeline.test_render import count_colour, pixels
from timelineview.views.cluster.comparison_table import ComparisonTableModel
from timelineview.viewstate.counter_units import BYTES, CounterUnit, counter_unit, format_counter
from timelineview.viewstate.timeline.lane_layout import COUNTER, DERIVED, STEPS
from timelineview.viewstate.timeline.track_rows import STEP_LEGEND, WHOLE_TRACE_LEGEND, counter_title


def tree_row_pixels(tl, row) -> np.ndarray:
    """RGB pixels of one row of the lane tree."""
    from timelineview.views.timeline.view_context import AXIS_H

    tl.set_scroll(row.y)
    tl.tree.repaint()
    rgb = pixels(tl.tree)
    y0 = AXIS_H + row.y - tl.ctx.scroll_y
    return rgb[y0:y0 + row.height]


def test_idle_gap_and_step_colours_have_a_legend_next_to_their_lane(qtbot, timeline):
    rows = timeline.ctx.layout.rows
    gaps = next(r for r in rows if r.kind == DERIVED and r.card == 0 and r.title == "Idle AI Core gaps")
    assert gaps.legend == (("idle_gap_communication", "comm."), ("idle_gap_free", "idle"))
    steps = next(r for r in rows if r.kind == STEPS and r.card == 0)
    assert steps.legend == STEP_LEGEND
    theme = timeline.ctx.theme
    for row in (gaps, steps):
        band = tree_row_pixels(timeline, row)
        for colour, _ in row.legend:
            c = theme.derived[colour]
            assert count_colour(band, (c.red(), c.green(), c.blue()), tol=2) >= 40, (row.title, colour)


def test_a_trace_without_steps_has_a_whole_trace_legend(qtbot):
    from tests.views.conftest import show_timeline
    from tests.views.factory import StoreBuilder
    from timelineview.viewstate.card_view import prepare_card

    b = StoreBuilder()
    for k in range(20):
        b.add("Ascend Hardware/Stream 2", "MatMul", 1_000_000 + k * 50_000, 30_000, "AI_CORE")
    card = prepare_card(b.build(), 0)
    assert card.steps.label(0) == "Whole trace" and not card.steps.phases[0]
    tl = show_timeline(qtbot, [card])
    steps = next(r for r in tl.ctx.layout.rows if r.kind == STEPS)
    assert steps.legend == WHOLE_TRACE_LEGEND and "no step markers" in steps.tooltip
    # the Steps lane draws one plain bar, none of the phase colours
    rgb = pixels(tl.canvas.viewport())
    y0 = int(tl.ctx.scene_y(steps.y))
    band = rgb[y0 + 3:y0 + steps.height - 3, tl.ctx.area.left:]
    colours = tl.ctx.theme.derived
    plain = colours["step"]
    assert count_colour(band, (plain.red(), plain.green(), plain.blue()), tol=2) > 100
    for phase in ("step_interval", "fp_bp", "tail"):
        c = colours[phase]
        assert count_colour(band, (c.red(), c.green(), c.blue()), tol=2) == 0, phase


@pytest.mark.parametrize(("name", "key", "unit"), [
    ("AI Core Freq", "MHz", CounterUnit("MHz")),
    ("APP/HBM", "KB", CounterUnit(BYTES, 1024.0)),
    ("HBM 0/Read", "Read(MB/s)", CounterUnit("MB/s")),
    ("LLC 0 Read/Hit Rate", "Hit Rate(%)", CounterUnit("%")),
    ("HBM Read (GB/s)", "value", CounterUnit("GB/s")),
    ("QoS OTHERS", "value", CounterUnit("")),
])
def test_counter_units_come_from_the_producer_keys(name, key, unit):
    assert counter_unit(name, key) == unit


def test_counter_values_and_titles_carry_their_unit():
    assert format_counter(1800.0, CounterUnit("MHz")) == "1800 MHz"
    assert format_counter(2160232.0, CounterUnit(BYTES, 1024.0)) == "2.06 GiB"  # 2 160 232 KiB by hand
    assert format_counter(84.0, CounterUnit("%")) == "84 %"
    assert format_counter(12.5, CounterUnit("")) == "12.5"
    assert counter_title("AI Core Freq", "MHz") == "AI Core Freq (MHz)"
    assert counter_title("HBM Read (GB/s)", "value") == "HBM Read (GB/s)"  # the name already says it


def test_counter_rows_are_titled_with_their_unit(qtbot, timeline):
    titles = {r.title for r in timeline.ctx.layout.rows if r.kind == COUNTER}
    assert {"AI Core Freq", "HBM Read (GB/s)"} <= titles  # the test card's keys are "value": no unit known
    from timelineview.views.timeline.tracks.counter_track import CounterTrackItem

    item = next(i for i in timeline.canvas.items_of(CounterTrackItem) if i.card.number == 0)
    item._prepare()
    assert any(st.text().endswith("GB/s") for _, _, st in item._texts)


def test_the_idle_gaps_column_has_a_unit():
    from timelineview.analysis.cluster.comparison import COLUMNS

    model = ComparisonTableModel()
    model.set_rows([], COLUMNS)
    col = [c.key for c in COLUMNS].index("idle_gap_count")
    header = model.headerData(col, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.DisplayRole)
    assert header == "Idle gaps\nper step"


def test_the_exported_chart_has_a_title(qtbot, tmp_path):
    from tests.views.cluster.test_cluster import fake_comparison
    from timelineview.views.cluster.cluster_view import ClusterView

    view = ClusterView()
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.set_comparison(fake_comparison(4, slow=2))
    assert view.chart_title(view.current_rows()) == "Step time per card, mean over 2 steps — 4 cards (ms)"
    path = tmp_path / "chart.png"
    assert view.export_png(path)
    plain = view.chart.render_image(view.current_rows())
    titled = QtGui.QImage(str(path))
    assert titled.height() > plain.height()  # a title line above the same chart
    top = titled.copy(0, 0, titled.width(), titled.height() - plain.height()).convertToFormat(
        QtGui.QImage.Format.Format_Grayscale8)
    ink = np.frombuffer(top.constBits(), np.uint8).reshape(top.height(), top.bytesPerLine())[:, : top.width()]
    assert (ink < 128).sum() > 200  # the title's text is drawn


def test_a_mark_shows_its_duration(qtbot, timeline, cards):
    from timelineview.viewstate.time_format import format_duration

    timeline.ctx.marks = []
    s = cards[0].store.slices
    i = int(np.argmax(s.dur))
    timeline.select_slice(0, i)
    timeline.fit_selection()
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_M)
    drawn = []
    from timelineview.views.timeline.overlay import OverlayItem

    original = OverlayItem._mark_label
    try:
        OverlayItem._mark_label = lambda self, p, x0, x1, d: (drawn.append(d), original(self, p, x0, x1, d))
        timeline.canvas.viewport().repaint()
    finally:
        OverlayItem._mark_label = original
    assert drawn == [int(s.dur[i])] and format_duration(int(s.dur[i]))


def test_single_kind_filter_rows_keep_their_legend(qtbot, timeline):
    timeline.set_lane_filter("idle_gaps")
    rows = timeline.ctx.layout.rows
    assert rows and all(r.legend == (("idle_gap_communication", "comm."), ("idle_gap_free", "idle")) for r in rows)
    timeline.set_lane_filter("steps")
    assert all(r.legend == STEP_LEGEND for r in timeline.ctx.layout.rows)
    timeline.set_lane_filter("all")
