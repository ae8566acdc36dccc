"""After a jump from the Details panel (a flow's other end) the keys move the timeline again: W/A/S/D, F
and 0 need no click on the timeline first (the jump's button is gone with the slice it described)."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets


def _key_to_focus(qtbot, window, key) -> None:
    """``key`` pressed where the keyboard goes: the focused widget, else the window."""
    target = QtWidgets.QApplication.focusWidget() or window
    qtbot.keyPress(target, key)
    qtbot.keyRelease(target, key)


def test_keys_move_the_timeline_after_a_flow_jump(qtbot, window, cards):
    for c in cards:
        c.offset_ns = 0
    timeline, panel = window.timeline, window.details.slice
    timeline.set_cards(cards)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5_000)
    st = cards[0].store
    launch, task = int(st.flows.src_slice[0]), int(st.flows.dst_slice[0])
    timeline.select_slice(0, launch)
    button = panel.flow_buttons[0]
    qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
    assert timeline.ctx.selection.index == task
    qtbot.wait(50)  # the panel's old buttons are deleted
    assert timeline.hasFocus()
    v = timeline.ctx.viewport
    whole = (v.t0, v.t1)  # the jump's reveal kept the whole trace in view
    before = v.t1 - v.t0
    _key_to_focus(qtbot, window, QtCore.Qt.Key.Key_W)  # zoom in
    assert v.t1 - v.t0 < before
    _key_to_focus(qtbot, window, QtCore.Qt.Key.Key_0)  # the whole trace
    assert (v.t0, v.t1) == whole
