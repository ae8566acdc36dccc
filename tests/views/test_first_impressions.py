"""The main window's first-ten-minutes defects: each as a user meets it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

import timelineview.model as model
from tests.views.factory import ascend_card
from tests.views.generated import generated_cluster
from tests.views.main_window_fixture import open_and_wait
from timelineview.views.main_window import DEFAULT_SIZE, MainWindow, default_size
from timelineview.views.timeline.background_item import NO_TRACE_TEXT, empty_text
from timelineview.viewstate.timeline.lane_filter import ALL
from timelineview.viewstate.timeline.lane_layout import LANE

SLOW = 2


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "first", 4, seed=3, steps=2, tasks_per_step=40, slow_card=SLOW)


def test_the_lane_filter_resets_when_a_single_trace_replaces_a_cluster(qtbot, window, cluster_dir):
    open_and_wait(qtbot, window, cluster_dir)
    assert window.cluster.bar.isVisibleTo(window)
    window.cluster.bar.set_lane_filter("communication")  # the user picks "Communication only"
    assert window.timeline.lane_filter == "communication"
    assert {r.kind for r in window.timeline.ctx.layout.rows} == {"derived"}  # one row per card
    single = next(cluster_dir.glob("rank1_*/**/trace_view.json"))
    open_and_wait(qtbot, window, single)
    assert not window.cluster.bar.isVisibleTo(window)  # the filter's control is hidden now ...
    assert window.timeline.lane_filter == ALL and window.cluster.bar.lane_filter() == ALL  # ... so it reset
    assert any(r.kind == LANE for r in window.timeline.ctx.layout.rows)  # the card's lanes are back


def test_show_in_timeline_without_a_selection_opens_the_slow_card(qtbot, window, cluster_dir):
    open_and_wait(qtbot, window, cluster_dir)
    view = window.cluster.view
    window.cluster.show_comparison()
    view.table.clearSelection()
    assert view.table.selected_cards() == []
    qtbot.mouseClick(view.show_button, QtCore.Qt.MouseButton.LeftButton)
    slow = [r["number"] for r in view.current_rows() if r["slow"]]
    assert slow  # the planted slow card is flagged
    assert [c.number for c in window.timeline.cards] == slow[:1]
    assert window.cluster.tabs.currentIndex() == 0


def test_show_in_timeline_without_slow_cards_opens_the_first_card(qtbot, window, cluster_dir, monkeypatch):
    open_and_wait(qtbot, window, cluster_dir)
    view = window.cluster.view
    monkeypatch.setattr(view, "current_rows", lambda: [dict(r, slow=[]) for r in view.table.model_.rows])
    view.table.clearSelection()
    view.show_in_timeline()
    assert [c.number for c in window.timeline.cards] == [view.table.model_.rows[0]["number"]]


def test_opening_a_single_file_on_the_cluster_tab_shows_its_timeline(qtbot, window, cluster_dir):
    open_and_wait(qtbot, window, cluster_dir)
    window.cluster.show_comparison()
    assert window.cluster.tabs.currentWidget() is window.cluster.view
    open_and_wait(qtbot, window, next(cluster_dir.glob("rank0_*/**/trace_view.json")))
    assert window.cluster.tabs.currentIndex() == 0 and len(window.timeline.cards) == 1


@pytest.fixture
def slow_load(monkeypatch):
    """A loader that runs ~2 s unless cancelled, then returns one small card."""

    def fake_load(sources, progress=None, cancel=None, **_options):
        for k in range(100):
            if cancel is not None and cancel.is_set():
                raise model.LoadCancelled()
            if progress:
                progress(k, 100)
            time.sleep(0.02)
        return [ascend_card("rank 0", 0, steps=1, ops_per_step=10)]

    monkeypatch.setattr(model, "load_cards", fake_load)


def test_the_canvas_says_loading_while_a_load_runs(qtbot, window, slow_load, tmp_path):
    assert empty_text(window.timeline.ctx.loading) == NO_TRACE_TEXT
    window.open_paths([tmp_path / "big.json"], remember=False)
    assert empty_text(window.timeline.ctx.loading) == "Loading big.json…"
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        pass
    assert window.timeline.ctx.loading == "" and window.timeline.cards


def test_ctrl_q_during_a_load_leaves_no_traceback(qtbot, window, slow_load, tmp_path):
    """pytest-qt fails the test on any exception raised in a Qt slot (the traceback a user saw)."""
    window.open_paths([tmp_path / "big.json"], remember=False)
    qtbot.waitUntil(lambda: window.progress.value() > 0, timeout=3000)
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Q, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()
    qtbot.wait(300)  # the dropped load's last signals arrive after the window closed
    assert window.worker is None and not window.jobs.superseded


def test_the_first_window_fits_a_small_screen(qtbot, tmp_path):
    assert default_size(QtCore.QSize(2560, 1440)) == DEFAULT_SIZE
    assert default_size(QtCore.QSize(1280, 720)) == QtCore.QSize(1152, 648)
    settings = QtCore.QSettings(str(tmp_path / "fresh.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings=settings, interactive=False)  # no saved geometry: the first run
    qtbot.addWidget(win)
    available = win.screen().availableGeometry().size()
    assert win.width() <= max(available.width(), win.minimumSizeHint().width())
    assert win.height() <= max(available.height(), win.minimumSizeHint().height())


def test_card_column_headers_elide_long_names_at_the_end(qtbot, timeline):
    from timelineview.views.panels.details_panel import DetailsPanel

    panel = DetailsPanel(timeline)
    qtbot.addWidget(panel)
    panel.refresh()
    header = panel.area.metrics.horizontalHeader()
    assert header.textElideMode() == QtCore.Qt.TextElideMode.ElideRight
    assert panel.area.metrics.horizontalHeaderItem(0).toolTip() == timeline.cards[0].title


def test_the_shortcut_sheet_lists_every_shortcut(qtbot, window):
    window.show_shortcuts()
    listed = {k.strip() for keys, _ in window.sheet.rows for k in keys.split(" / ")}
    sequences = [a.shortcut() for a in window.findChildren(QtGui.QAction) if not a.shortcut().isEmpty()]
    sequences += [s.key() for s in window.findChildren(QtGui.QShortcut)]
    texts = {seq.toString(QtGui.QKeySequence.SequenceFormat.PortableText) for seq in sequences}
    assert {"Ctrl+1", "Ctrl+2", "Ctrl+L", "Ctrl+F", "Ctrl+O", "Ctrl+Q"} <= texts
    assert texts <= listed, texts - listed
    assert isinstance(window.cluster.bar.filter, QtWidgets.QComboBox)


def test_a_search_hit_the_lane_filter_hides_brings_every_lane_back(qtbot, window, cluster_dir):
    open_and_wait(qtbot, window, cluster_dir)
    window.cluster.bar.set_lane_filter("communication")
    tl = window.timeline
    assert tl.run_search("MatMul") > 0
    hit = tl.step_search(1)
    lane = int(tl.ctx.card_by_number(hit.card).store.slices.lane[hit.index])
    row = tl.ctx.layout.find(LANE, hit.card, lane)
    assert row is not None and tl.ctx.scroll_y <= row.y < tl.ctx.scroll_y + tl.ctx.area.height
    assert tl.lane_filter == ALL and window.cluster.bar.lane_filter() == ALL  # the strip says so too
