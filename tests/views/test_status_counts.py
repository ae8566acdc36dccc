"""The status line keeps saying what the data on screen holds (cards, slices) after clicks and hovers."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from tests.views.main_window_fixture import open_and_wait
from timelineview.synthetic import cluster_specs, generate_cluster


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("counts") / "ranks"
    generate_cluster(out, cluster_specs(2, seed=3, steps=2, tasks_per_step=40))
    return out


def status_line_text(window) -> str:
    """What the user reads on the status line now: its message, else its visible labels and buttons."""
    bar = window.statusBar()
    shown = [bar.currentMessage()]
    for kind in (QtWidgets.QLabel, QtWidgets.QPushButton):
        shown += [w.text() for w in bar.findChildren(kind) if w.isVisible()]
    return "  ".join(t for t in shown if t)


def test_the_card_and_slice_counts_stay_after_a_click_and_a_hover(qtbot, window, cluster_dir):
    open_and_wait(qtbot, window, cluster_dir)
    window.cluster.tabs.setCurrentIndex(0)
    total = sum(len(c.store.slices) for c in window.timeline.cards)
    grouped = f"{total:,}".replace(",", " ")
    counts = f"2 card(s), {grouped} slices"
    assert counts in status_line_text(window)
    canvas = window.timeline.canvas
    qtbot.mouseClick(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     pos=QtCore.QPoint(canvas.width() // 2, canvas.height() // 2))
    QtWidgets.QApplication.sendEvent(window, QtGui.QStatusTipEvent(""))  # what hovering a menu item sends
    assert counts in status_line_text(window)
    window.statusBar().showMessage("something else")  # any message the window says on the way
    assert counts in status_line_text(window)
