"""Timeline defects a new user hits, driven by keys and clicks."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.window import window_metrics
from timelineview.views import keys
from timelineview.views.panels.area_stats import METRIC_ROWS
from timelineview.views.panels.details_panel import DetailsPanel
from timelineview.viewstate.timeline.lane_layout import DERIVED, LANE
from timelineview.viewstate.timeline.viewport import MIN_SPAN_NS


def process_of(card, lane_name_prefix: str) -> int:
    st = card.store
    return next(int(st.lanes.process[k]) for k in range(len(st.lanes))
                if st.processes.name[st.lanes.process[k]] == lane_name_prefix)


def lane_on_screen(tl, card_no: int, lane: int) -> bool:
    row = tl.ctx.layout.find(LANE, card_no, lane)
    return row is not None and tl.ctx.scroll_y <= row.y and row.bottom <= tl.ctx.scroll_y + tl.ctx.area.height


# ---------------------------------------------------------------------------------------- item 11
def test_a_search_hit_in_a_collapsed_process_is_revealed(qtbot, timeline, cards):
    card = cards[1]
    python = process_of(card, "Python")
    timeline.collapsed |= {("process", 1, python), ("card", 1)}  # the second card folded, Python too
    timeline.rebuild_layout()
    assert timeline.run_search("dataloader") == 2 * 3  # one per step on each card
    hit = None
    while hit is None or hit.card != 1:
        hit = timeline.step_search(1)
    lane = int(card.store.slices.lane[hit.index])
    assert ("card", 1) not in timeline.collapsed and ("process", 1, python) not in timeline.collapsed
    assert lane_on_screen(timeline, 1, lane)
    s = card.store.slices
    start = int(s.start[hit.index]) - timeline.ctx.card_shift(card)
    assert timeline.viewport.t0 <= start <= timeline.viewport.t1


def test_a_flow_jump_into_a_collapsed_process_is_revealed(qtbot, timeline, cards):
    card = cards[0]
    flows = card.store.flows
    dst = int(flows.dst_slice[0])
    lane = int(card.store.slices.lane[dst])
    process = int(card.store.lanes.process[lane])
    timeline.collapsed.add(("process", 0, process))
    timeline.rebuild_layout()
    timeline.set_scroll(10 ** 6)  # far below
    assert timeline.ctx.layout.find(LANE, 0, lane) is None
    panel = DetailsPanel(timeline)
    qtbot.addWidget(panel)
    panel.slice.jumpRequested.emit(0, dst)  # the flow's jump button
    assert timeline.ctx.selection.index == dst and lane_on_screen(timeline, 0, lane)


# ---------------------------------------------------------------------------------------- item 12
def key_event(kind: QtCore.QEvent.Type, stamp_ms: int) -> QtGui.QKeyEvent:
    ev = QtGui.QKeyEvent(kind, QtCore.Qt.Key.Key_W, QtCore.Qt.KeyboardModifier.NoModifier, "w")
    ev.setTimestamp(stamp_ms)
    return ev


def test_auto_repeat_as_release_press_pairs_is_one_hold(qtbot, timeline, monkeypatch):
    monkeypatch.setattr(timeline, "mouse_x", lambda: None)
    v = timeline.viewport
    v.set_range(v.t_max // 4, v.t_max // 4 + 50_000_000, remember=False)
    before = len(v.history)
    press, release = QtCore.QEvent.Type.KeyPress, QtCore.QEvent.Type.KeyRelease
    stamp = 10_000
    QtWidgets.QApplication.sendEvent(timeline, key_event(press, stamp))
    since = timeline.held._held[keys.ZOOM_IN]
    qtbot.wait(int(keys.HOLD_DELAY_S * 1000) + 100)
    span_before_pairs = v.span
    for _ in range(10):  # what some X servers send while the key stays down: same-time pairs
        stamp += 33
        QtWidgets.QApplication.sendEvent(timeline, key_event(release, stamp))
        QtWidgets.QApplication.sendEvent(timeline, key_event(press, stamp))
        qtbot.wait(33)
    assert timeline.held._held[keys.ZOOM_IN] == since  # one ramp: never restarted
    assert v.span < span_before_pairs  # it kept zooming through the pairs
    QtWidgets.QApplication.sendEvent(timeline, key_event(release, stamp + 40))
    qtbot.waitUntil(lambda: not timeline.held.active, timeout=1000)
    assert len(v.history) == before + 1  # one hold, one undo entry
    # a real second tap (its press well after the release) is a new step with its own undo entry
    stamp += 500
    QtWidgets.QApplication.sendEvent(timeline, key_event(press, stamp))
    QtWidgets.QApplication.sendEvent(timeline, key_event(release, stamp + 80))
    assert len(v.history) == before + 2


# ---------------------------------------------------------------------------------------- item 14
def test_clicking_an_idle_gap_selects_that_gap_and_counts_it(qtbot, timeline, cards):
    card = cards[0]
    d = card.derived
    gaps, free_part = d.idle_gaps, d.idle_gap_free
    k = int(np.argmax(free_part.ends - free_part.starts))  # a long stretch where nothing runs
    a, b = int(free_part.starts[k]), int(free_part.ends[k])
    g = int(np.searchsorted(gaps.ends, b, side="left"))
    gap = int(gaps.starts[g]), int(gaps.ends[g])
    assert gap[0] <= a < b <= gap[1]
    panel = DetailsPanel(timeline)
    qtbot.addWidget(panel)
    shift = timeline.ctx.card_shift(card)
    timeline.set_range(gap[0] - shift - 1000, gap[1] - shift + 1000)
    key = next(i for i, lane in enumerate(card.derived_lanes) if lane.key == "idle_gaps")
    row = next(r for r in timeline.ctx.layout.rows if r.kind == DERIVED and r.card == 0 and r.derived == key)
    timeline.set_scroll(row.y)
    x = timeline.ctx.scene_x((a + b) // 2 - shift)
    y = timeline.ctx.scene_y(row.y + row.height / 2)
    qtbot.mouseClick(timeline.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(int(x), int(y)))
    sel = timeline.ctx.area_selection
    assert (sel.t0 + shift, sel.t1 + shift) == gap  # the whole gap, not the clicked part
    m = window_metrics(d, *gap)
    assert m["idle_gap_count"] == 1 and m["idle_gap_total_us"] == pytest.approx((gap[1] - gap[0]) / 1000)
    count_row = [key for key, _ in METRIC_ROWS].index("idle_gap_count")
    assert panel.area.metrics.item(count_row, 0).text() == "1"


def test_a_window_that_cuts_a_gap_does_not_count_it(cards):
    d = cards[0].derived
    gap = int(d.idle_gaps.starts[0]), int(d.idle_gaps.ends[0])
    assert window_metrics(d, gap[0] + 1, gap[1])["idle_gap_count"] == 0
    assert window_metrics(d, gap[0], gap[1] - 1)["idle_gap_count"] == 0


# ---------------------------------------------------------------------------------------- item 15
def test_the_cursor_follows_keyboard_zoom_and_pan(qtbot, timeline, monkeypatch):
    texts = []
    timeline.cursorMoved.connect(texts.append)
    v = timeline.viewport
    v.set_range(v.t_max // 2, v.t_max // 2 + 2_000_000, remember=False)
    pos = QtCore.QPointF(700, 300)
    timeline.on_hover(pos)
    monkeypatch.setattr(timeline, "mouse_x", lambda: None)  # W zooms around the centre: time at x moves
    for key in (QtCore.Qt.Key.Key_D, QtCore.Qt.Key.Key_W):
        before = timeline.ctx.cursor_t
        qtbot.keyClick(timeline, key)
        assert timeline.ctx.cursor_t == timeline.ctx.t_at(pos.x()) != before
        assert texts[-1].startswith("t = ") and texts[-1] == timeline.status_text(pos)
        assert timeline.canvas.cursor_item._x == pytest.approx(timeline.ctx.scene_x(timeline.ctx.cursor_t))


def wheel(timeline, x: float, notches: int) -> None:
    ev = QtGui.QWheelEvent(QtCore.QPointF(x, 300), QtCore.QPointF(x, 300), QtCore.QPoint(0, 0),
                           QtCore.QPoint(0, 120 * notches), QtCore.Qt.MouseButton.NoButton,
                           QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    timeline.on_wheel(ev)


@pytest.mark.parametrize("x", [333.0, 640.0, 977.5])
def test_the_time_under_the_mouse_stays_there_down_to_the_deepest_zoom(qtbot, timeline, x):
    v = timeline.viewport
    v.set_range(v.t_max // 3, v.t_max // 3 + 1_000_000_000, remember=False)
    px = x - timeline.ctx.area.left
    anchor = v.t_of(px)
    for _ in range(150):  # far past the deepest zoom
        wheel(timeline, x, 1)
        assert v.t_of(px) == anchor
    assert v.span == MIN_SPAN_NS
    for _ in range(40):
        wheel(timeline, x, -1)
        assert v.t_of(px) == anchor


# ---------------------------------------------------------------------------------------- item 17
def test_double_clicking_a_name_highlights_its_slices_and_enter_steps(qtbot, timeline, cards):
    panel = DetailsPanel(timeline)
    qtbot.addWidget(panel)
    panel.resize(1000, 300)
    panel.show()
    card = cards[0]
    shift = timeline.ctx.card_shift(card)
    steps = card.steps
    t0, t1 = int(steps.start[1]), int(steps.end[1])  # the second step of card 0, all its lanes
    timeline.set_range(t0 - shift, t1 - shift)
    with qtbot.waitSignal(panel.area.namesReady, timeout=10_000):
        timeline.select_area(t0 - shift, t1 - shift, rows_of_card=0)
    table = panel.area.names
    model = table.model()
    names = [model.data(model.index(r, 0)) for r in range(model.rowCount())]
    r = names.index("MatMul")
    count = int(model.data(model.index(r, 1), QtCore.Qt.ItemDataRole.UserRole))
    table.scrollTo(model.index(r, 0))
    rect = table.visualRect(model.index(r, 0))
    qtbot.mouseClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    s = card.store.slices
    want = np.flatnonzero((s.name == card.store.string_id("MatMul")) & (s.start < t1) & (s.start + s.dur > t0))
    want = want[np.argsort(s.start[want], kind="stable")]
    assert len(want) == count and count > 1
    assert sorted(timeline.ctx.matches[0].slices.tolist()) == sorted(want.tolist())
    # the area and its statistics stay on screen; the keys go to the timeline, Enter to the first of them
    assert timeline.ctx.selection is None and panel.currentWidget() is panel.area and timeline.hasFocus()
    assert timeline.ctx.area_selection is not None
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Return)
    assert timeline.ctx.selection.index == want[0]
    for expected in want[1:3]:
        qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Return)
        assert timeline.ctx.selection.index == expected
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Return, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert timeline.ctx.selection.index == want[1]
