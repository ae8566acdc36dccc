"""Clicking, details, area statistics and search give the values the analysis computes."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from timelineview.analysis.names import name_table
from timelineview.analysis.window import area_metrics
from timelineview.views.panels.area_stats import METRIC_ROWS, metric_text
from timelineview.views.panels.details_panel import DetailsPanel
from timelineview.views.panels.slice_details import self_time
from timelineview.viewstate.time_format import format_exact, format_raw_us
from timelineview.viewstate.timeline.lane_layout import LANE, LANE_PAD, SLICE_ROW_H


def slice_point(tl, card_no, i) -> QtCore.QPoint:
    """Canvas point at the middle of slice i (its lane scrolled into view)."""
    card = tl.ctx.card_by_number(card_no)
    s = card.store.slices
    tl.reveal_slice(card_no, i)
    tl.set_range(int(s.start[i]) - tl.ctx.card_shift(card) - 1000,
                 int(s.start[i] + s.dur[i]) - tl.ctx.card_shift(card) + 1000)
    row = tl.ctx.layout.find(LANE, card_no, int(s.lane[i]))
    y = tl.ctx.scene_y(row.y + LANE_PAD + int(s.depth[i]) * SLICE_ROW_H + SLICE_ROW_H / 2)
    x = tl.ctx.scene_x(int(s.start[i] + s.dur[i] // 2) - tl.ctx.card_shift(card))
    return QtCore.QPoint(int(x), int(y))


def pick(cards, name, card=0):
    st = cards[card].store
    return int(np.flatnonzero(st.slices.name == st.string_id(name))[0])


@pytest.fixture
def panel(qtbot, timeline):
    p = DetailsPanel(timeline)
    qtbot.addWidget(p)
    p.resize(1000, 260)
    p.show()
    return p


def test_click_selects_and_details_show_the_slice(qtbot, timeline, panel, cards):
    i = pick(cards, "forward")
    pos = slice_point(timeline, 0, i)
    qtbot.mouseClick(timeline.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    assert timeline.ctx.selection is not None and timeline.ctx.selection.index == i
    st = cards[0].store
    s = st.slices
    v = panel.slice.values
    assert panel.currentWidget() is panel.slice
    assert v["Name"].text() == "forward"
    assert v["Duration"].text() == format_exact(int(s.dur[i]))
    assert v["Start (raw µs)"].text() == format_raw_us(int(s.start[i]))
    assert v["Start"].text() == format_exact(int(s.start[i]) - timeline.ctx.card_shift(cards[0]))
    assert "Python" in v["Lane"].text()
    # forward contains no deeper slices in this card: self time = duration
    assert v["Self time"].text() == format_exact(self_time(cards[0], i))


def test_self_time_subtracts_direct_children(cards):
    i = pick(cards, "ProfilerStep#1")
    st = cards[0].store
    s = st.slices
    kids = np.flatnonzero((s.lane == s.lane[i]) & (s.depth == s.depth[i] + 1) & (s.start >= s.start[i])
                          & (s.start + s.dur <= s.start[i] + s.dur[i]))
    assert len(kids) >= 2
    assert self_time(cards[0], i) == int(s.dur[i]) - int(s.dur[kids].sum())


def test_args_are_read_lazily_and_flows_jump(qtbot, timeline, panel, cards):
    st = cards[0].store
    launch = int(st.flows.src_slice[0])
    task = int(st.flows.dst_slice[0])
    timeline.select_slice(0, launch)
    assert panel.slice.flow_buttons, "the launch has a flow"
    qtbot.mouseClick(panel.slice.flow_buttons[0], QtCore.Qt.MouseButton.LeftButton)
    assert timeline.ctx.selection.index == task
    items = {panel.slice.args.topLevelItem(k).text(0): panel.slice.args.topLevelItem(k).text(1)
             for k in range(panel.slice.args.topLevelItemCount())}
    assert items["Task Type"] == st.args(task)["Task Type"]
    assert panel.slice.values["Task type"].text() == st.args(task)["Task Type"]


def test_area_selection_statistics_match_the_analysis(qtbot, timeline, panel, cards):
    card = cards[0]
    shift = timeline.ctx.card_shift(card)
    timeline.show_all()
    ly0 = timeline.ctx.layout.find(LANE, 0).y
    hw = [r for r in timeline.ctx.layout.rows if r.card == 0 and r.kind == LANE]
    t0, t1 = 1_000_000, 4_000_000
    timeline.select_area(t0, t1, ly0, hw[-1].y + 1)
    sel = timeline.ctx.area_selection
    assert sel.cards == [0]
    assert panel.currentWidget() is panel.area
    expect = area_metrics(card.derived, t0 + shift, t1 + shift)
    shown = {METRIC_ROWS[r][0]: panel.area.metrics.item(r, 0).text() for r in range(len(METRIC_ROWS))}
    for key, _ in METRIC_ROWS:
        assert shown[key] == metric_text(key, expect[key], (t1 - t0) / 1000)
    table = name_table(card.store, t0 + shift, t1 + shift, lanes=sel.lanes[0])
    got = panel.area.table
    assert sorted(got.rows()) == sorted(table.rows())
    assert got.total_us[0] == table.total_us.max()  # sorted by total, descending


def test_area_drag_with_the_mouse(qtbot, timeline, panel):
    timeline.show_all()
    vp = timeline.canvas.viewport()
    qtbot.mousePress(vp, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(300, 120))
    qtbot.mouseMove(vp, QtCore.QPoint(500, 300))
    qtbot.mouseRelease(vp, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(500, 300))
    sel = timeline.ctx.area_selection
    assert sel is not None
    assert sel.t0 == timeline.viewport.t_of(300) and sel.t1 == timeline.viewport.t_of(500)
    assert panel.currentWidget() is panel.area and panel.area.table is not None


def test_name_table_sorts_and_copies_csv(qtbot, timeline, panel, cards):
    timeline.select_area(0, timeline.viewport.t_max, rows_of_card=0)
    model = panel.area.model
    panel.area.names.sortByColumn(1, QtCore.Qt.SortOrder.DescendingOrder)  # count
    counts = [int(x) for x in model.table.count]
    assert counts == sorted(counts, reverse=True)
    panel.area.names.sortByColumn(0, QtCore.Qt.SortOrder.AscendingOrder)
    assert model.table.name == sorted(model.table.name)
    panel.area.copy_csv()
    text = QtWidgets.QApplication.clipboard().text()
    assert text == model.table.to_csv() and text.startswith("name,count,total_us")


def test_clicking_a_step_selects_its_window(qtbot, timeline, panel, cards):
    card = cards[0]
    row = timeline.ctx.layout.find("steps", 0)
    timeline.show_all()
    s = card.steps
    mid = int(s.start[1] + s.end[1]) // 2 - timeline.ctx.card_shift(card)
    pos = QtCore.QPoint(int(timeline.ctx.scene_x(mid)), int(timeline.ctx.scene_y(row.y + 5)))
    qtbot.mouseClick(timeline.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    sel = timeline.ctx.area_selection
    shift = timeline.ctx.card_shift(card)
    assert (sel.t0 + shift, sel.t1 + shift) == (int(s.start[1]), int(s.end[1]))


def test_search_counts_steps_and_zooms(qtbot, timeline, cards):
    n = timeline.run_search("matmul")
    expect = sum(int(np.isin(c.store.slices.name, [i for i, x in enumerate(c.store.strings)
                                                   if "matmul" in x.lower()]).sum()) for c in cards)
    assert n == expect == timeline.match_count
    timeline.show_all()
    first = timeline.step_search(1)
    card = timeline.ctx.card_by_number(first.card)
    starts = [int(c.store.slices.start[m.slices].min()) - timeline.ctx.card_shift(c)
              for c in cards for m in [timeline.ctx.matches[c.number]]]
    s = card.store.slices
    assert int(s.start[first.index]) - timeline.ctx.card_shift(card) == min(starts)
    assert "matmul" in card.store.strings[int(s.name[first.index])].lower()
    v = timeline.viewport
    t = int(s.start[first.index]) - timeline.ctx.card_shift(card)
    assert v.t0 <= t <= v.t1 and v.span < v.max_span / 10
    assert timeline.match_position() == 1
    second = timeline.step_search(1)
    assert timeline.match_position() == 2
    assert timeline.step_search(-1) == first and second != first
    assert timeline.run_search("") == 0 and not timeline.ctx.matches


def test_big_windows_get_their_name_table_from_a_worker(qtbot, timeline, panel, cards, monkeypatch):
    import timelineview.views.panels.area_stats as area_stats

    monkeypatch.setattr(area_stats, "SYNC_NAME_TABLE_SLICES", 0)
    with qtbot.waitSignal(panel.area.namesReady, timeout=10_000):
        timeline.select_area(0, timeline.viewport.t_max, rows_of_card=1)
    card = cards[1]
    shift = timeline.ctx.card_shift(card)
    expect = name_table(card.store, shift, timeline.viewport.t_max + shift)
    assert sorted(panel.area.table.rows()) == sorted(expect.rows())


def test_nothing_selected_shows_whole_card_metrics(qtbot, timeline, panel, cards):
    from timelineview.analysis.window import card_metrics

    timeline.clear_selection()
    panel.refresh()
    assert panel.currentWidget() is panel.area and not panel.area.right.isVisible()
    assert panel.area.metrics.columnCount() == 2
    m = card_metrics(cards[1].derived)
    assert panel.area.metrics.item(0, 1).text() == metric_text("compute_us", m["compute_us"], m["span_us"])


def test_double_clicking_a_name_highlights_its_slices_and_keeps_the_area_statistics(qtbot, timeline, panel, cards):
    timeline.select_area(0, timeline.viewport.t_max, rows_of_card=0)
    area = timeline.ctx.area_selection
    model, names = panel.area.model, panel.area.names
    row = next(r for r in range(model.rowCount()) if model.table.count[r] >= 3)
    name, count = str(model.table.name[row]), int(model.table.count[row])
    names.scrollTo(model.index(row, 0))
    rect = names.visualRect(model.index(row, 0))
    qtbot.mouseClick(names.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())  # a double click's
    qtbot.mouseDClick(names.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())  # press, then its 2nd
    assert timeline.match_count == count  # that name's slices in the area, highlighted
    assert panel.currentWidget() is panel.area and timeline.ctx.area_selection is area  # the statistics stay
    assert timeline.ctx.selection is None and model.rowCount() > row
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Return)  # Enter: the first of them
    st = cards[0].store
    first = timeline.ctx.selection.index
    starts = [int(st.slices.start[i]) for i in range(len(st.slices)) if st.strings[st.slices.name[i]] == name]
    assert st.strings[st.slices.name[first]] == name and int(st.slices.start[first]) == min(starts)
