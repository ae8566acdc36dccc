"""Keys and mouse change the visible window by the expected amounts."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from timelineview.views import keys
from timelineview.views.keys import STEP_PAN, STEP_ZOOM


def window(tl):
    return tl.viewport.t0, tl.viewport.t1


def centre_view(tl, span=2_000_000):
    mid = tl.viewport.t_max // 2
    tl.set_range(mid - span // 2, mid + span // 2)
    return window(tl)


def test_w_and_s_zoom_around_the_view_centre_when_the_mouse_is_outside(qtbot, timeline):
    t0, t1 = centre_view(timeline)
    QtGui.QCursor.setPos(-1000, -1000)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_W)
    n0, n1 = window(timeline)
    assert n1 - n0 == round((t1 - t0) * STEP_ZOOM)
    assert abs((n0 + n1) - (t0 + t1)) <= 2  # centre kept
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_S)
    assert window(timeline)[1] - window(timeline)[0] == pytest.approx(t1 - t0, abs=2)


def test_w_zooms_around_the_mouse(qtbot, timeline, monkeypatch):
    centre_view(timeline)
    monkeypatch.setattr(timeline, "mouse_x", lambda: 300.0)
    anchor = timeline.viewport.t_of(300.0)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_W)
    assert abs(timeline.viewport.t_of(300.0) - anchor) <= 1
    assert timeline.viewport.span == round(2_000_000 * STEP_ZOOM)


def test_a_and_d_pan_by_a_tenth(qtbot, timeline):
    t0, t1 = centre_view(timeline)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_D)
    assert window(timeline) == (t0 + round((t1 - t0) * STEP_PAN), t1 + round((t1 - t0) * STEP_PAN))
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_A)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_A)
    assert window(timeline) == (t0 - round((t1 - t0) * STEP_PAN), t1 - round((t1 - t0) * STEP_PAN))


def test_backspace_undoes_and_zero_shows_all(qtbot, timeline):
    full = window(timeline)
    t0, t1 = centre_view(timeline)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_W)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_D)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Backspace)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Backspace)
    assert window(timeline) == (t0, t1)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_0)
    assert window(timeline) == full


def test_holding_a_key_keeps_moving_and_accelerates(qtbot, timeline):
    centre_view(timeline)
    qtbot.keyPress(timeline, QtCore.Qt.Key.Key_D)
    after_press = window(timeline)[0]
    qtbot.wait(int((keys.HOLD_DELAY_S + 0.35) * 1000))
    moved_early = window(timeline)[0] - after_press
    qtbot.wait(500)
    qtbot.keyRelease(timeline, QtCore.Qt.Key.Key_D)
    moved_late = window(timeline)[0] - after_press - moved_early
    assert moved_early > 0 and moved_late > moved_early  # faster in the later (shorter) half


def test_keys_follow_the_physical_position(monkeypatch):
    monkeypatch.setattr(keys, "_platform", lambda: "xcb")
    # AZERTY: the key left of E (physical W, xkb keycode 25) types "z"
    ev = QtGui.QKeyEvent(QtCore.QEvent.Type.KeyPress, QtCore.Qt.Key.Key_Z, QtCore.Qt.KeyboardModifier.NoModifier,
                         25, 0, 0, "z")
    assert keys.physical_action(ev) == keys.ZOOM_IN
    # physical Q position types "a" on AZERTY: not a navigation key there
    ev = QtGui.QKeyEvent(QtCore.QEvent.Type.KeyPress, QtCore.Qt.Key.Key_A, QtCore.Qt.KeyboardModifier.NoModifier,
                         24, 0, 0, "a")
    assert keys.physical_action(ev) is None
    monkeypatch.setattr(keys, "_platform", lambda: "windows")
    ev = QtGui.QKeyEvent(QtCore.QEvent.Type.KeyPress, QtCore.Qt.Key.Key_Q, QtCore.Qt.KeyboardModifier.NoModifier,
                         0x1E, 0, 0, "q")
    assert keys.physical_action(ev) == keys.PAN_LEFT


def test_wheel_zooms_around_the_mouse(qtbot, timeline):
    centre_view(timeline)
    x = 400.0
    anchor = timeline.viewport.t_of(x)
    ev = QtGui.QWheelEvent(QtCore.QPointF(x, 300), QtCore.QPointF(x, 300), QtCore.QPoint(0, 0),
                           QtCore.QPoint(0, 120), QtCore.Qt.MouseButton.NoButton,
                           QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    timeline.on_wheel(ev)
    assert timeline.viewport.span == round(2_000_000 * 0.85)
    assert abs(timeline.viewport.t_of(x) - anchor) <= 1


def test_drag_on_the_ruler_pans(qtbot, timeline):
    t0, _ = centre_view(timeline)
    ns_per_px = timeline.viewport.ns_per_px
    canvas = timeline.canvas
    qtbot.mousePress(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(500, 10))
    qtbot.mouseMove(canvas.viewport(), QtCore.QPoint(600, 10))
    qtbot.mouseRelease(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(600, 10))
    assert timeline.viewport.t0 == pytest.approx(t0 - 100 * ns_per_px, abs=2)


def test_fit_selection_and_mark(qtbot, timeline, cards):
    s = cards[0].store.slices
    i = int(np.argmax(s.dur))
    timeline.select_slice(0, i)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_F)
    start = int(s.start[i]) - timeline.ctx.card_shift(cards[0])
    v = timeline.viewport
    assert v.t0 < start and start + int(s.dur[i]) < v.t1
    assert v.span == pytest.approx(int(s.dur[i]) * 1.1, rel=0.01)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_M)
    assert timeline.ctx.marks == [(start, start + int(s.dur[i]))]
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_M)
    assert timeline.ctx.marks == []


def test_arrows_step_along_the_row_and_across_lanes(qtbot, timeline, cards):
    st = cards[0].store
    index = st.index
    lane = st.lanes.name.index("Stream 2")
    row = index.row_of(lane, 0)
    a = index.row_ptr[row]
    first, second = int(index.order[a]), int(index.order[a + 1])
    timeline.select_slice(0, first)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Right)
    assert timeline.ctx.selection.index == second
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Left)
    assert timeline.ctx.selection.index == first
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Down)
    below = timeline.ctx.selection.index
    assert st.lanes.name[int(st.slices.lane[below])] == "Stream 5" or int(st.slices.lane[below]) != lane
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Up)
    assert int(st.slices.lane[timeline.ctx.selection.index]) == lane


def test_question_mark_asks_for_the_sheet(qtbot, timeline):
    with qtbot.waitSignal(timeline.helpRequested, timeout=1000):
        qtbot.keyClick(timeline, "?")
