"""The Memory tab: a card's curves with the peak, the allocations alive at a clicked instant (the same as
the analysis says), sortable, and a double-click that shows an allocation's life on the timeline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore

from timelineview.model.memory import NEVER
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mem") / "ranks"
    truths = generate_cluster(out, cluster_specs(3, seed=4, steps=2, tasks_per_step=60))
    write_cluster_memory(truths, MemorySpec(blocks_per_step=40, weight_blocks=20))
    return out


@pytest.fixture
def view(open_tab, cluster_dir):
    return open_tab(cluster_dir, "memory", lambda v: v.model.rowCount() > 0)


def test_alive_at_the_peak_first_then_at_any_instant(view):
    m = view.memory
    peak = m.peak_component
    assert view.instant_ns == peak.peak_allocated_ns
    a = m.records.allocations
    alive = np.flatnonzero((a.allocated_ns <= peak.peak_allocated_ns) & (a.released_ns > peak.peak_allocated_ns))
    assert sorted(r["row"] for r in view.model.rows) == sorted(alive.tolist())
    assert [r["size_mb"] for r in view.model.rows] == sorted((r["size_mb"] for r in view.model.rows), reverse=True)
    t = int(a.allocated_ns[len(a) // 2])
    view.show_alive(t)
    want = np.flatnonzero((a.allocated_ns <= t) & (a.released_ns > t))
    assert sorted(r["row"] for r in view.model.rows) == sorted(want.tolist())
    assert f"{len(want)} allocations alive" in view.alive_label.text()


def test_sortable_and_jump(view, qtbot):
    view.model.sort(3, QtCore.Qt.SortOrder.AscendingOrder)  # by allocation time
    times = [r["allocated_at_ns"] for r in view.model.rows]
    assert times == sorted(times)
    with qtbot.waitSignal(view.jumpRequested, timeout=5_000) as got:
        target = view.open_row(0)
    a = view.memory.records.allocations
    k = view.model.rows[0]["row"]
    card = next(c for c in view.cards if c.number == view.card_box.currentData())
    released = int(a.released_ns[k])
    assert got.args[0] == target and target.start_ns == int(a.allocated_ns[k])
    assert target.end_ns == (card.t_end if released == NEVER else released)


def test_card_without_memory_says_so(view, tmp_path, qtbot, window, monkeypatch):
    view.session.cards[view.card_box.currentData()].memory = None  # as a card without records is analysed
    view.refresh()
    assert view.model.rowCount() == 0 and "no memory records" in view.note.text()


def test_the_allocations_alive_export_as_csv(view, tmp_path):
    import csv

    a = view.memory.records.allocations
    t = int(a.allocated_ns[len(a) // 3])
    view.show_alive(t)
    view.export_csv(tmp_path / "alive.csv")
    with open(tmp_path / "alive.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    alive = np.flatnonzero((a.allocated_ns <= t) & (a.released_ns > t))
    assert len(rows) == len(alive) > 0
    by_size = sorted((float(r["size_mb"]) for r in rows), reverse=True)
    assert by_size == pytest.approx(sorted((a.size[alive] / (1 << 20)).tolist(), reverse=True))


def test_a_card_known_from_its_memory_counters_shows_its_reserved_curves(open_tab, tmp_path):
    from timelineview.views.analysis_tabs.memory_view import COUNTERS_ONLY_NOTE

    generate_cluster(tmp_path / "ranks", cluster_specs(2, seed=4, steps=2, tasks_per_step=60))  # no memory files
    view = open_tab(tmp_path / "ranks", "memory", lambda v: v.memory is not None)
    m = view.memory
    assert view.note.text() == COUNTERS_ONLY_NOTE and view.model.rowCount() == 0
    drawn = [item.name() for item in view.plot.getPlotItem().listDataItems() if item.name()]
    assert drawn == ["APP reserved", "DEVICE reserved"]  # a counter gives no allocated memory
    view.show_alive(m.card_reserved.peak_reserved_ns)  # nothing to list, nothing said about blocks
    assert view.model.rowCount() == 0 and view.alive_label.text() == ""


def _show_tab_at(window, view, qtbot, size: tuple[int, int]) -> None:
    from PySide6 import QtWidgets

    window.resize(*size)
    window.cluster.analysis.show_tab("memory")
    qtbot.waitUntil(view.isVisible, timeout=5_000)
    QtWidgets.QApplication.processEvents()


def _assert_legend_beside_the_curves(view) -> None:
    """The legend names every curve, lies outside the view box (so over no curve's points) and wholly inside
    the plot widget (readable, not cut off)."""
    plot_item = view.plot.getPlotItem()
    legend, vb = plot_item.legend, plot_item.vb
    named = [item for item in plot_item.listDataItems() if item.name()]
    assert named and [label.text for _sample, label in legend.items] == [item.name() for item in named]
    legend_rect = legend.sceneBoundingRect()
    assert not legend_rect.intersects(vb.sceneBoundingRect())
    for item in named:  # the part of each curve that is drawn: its points' bounds, within the view box
        drawn = item.mapRectToScene(item.boundingRect()).intersected(vb.sceneBoundingRect())
        assert not legend_rect.intersects(drawn), item.name()
    in_widget = view.plot.mapFromScene(legend_rect).boundingRect()
    assert view.plot.viewport().rect().contains(in_widget), (in_widget, view.plot.viewport().rect())


@pytest.mark.parametrize("size", [(1600, 900), (1000, 700)])
def test_the_legend_stands_beside_the_curves_never_over_them(view, window, qtbot, size):
    _show_tab_at(window, view, qtbot, size)
    _assert_legend_beside_the_curves(view)


def test_a_short_plot_lays_its_legend_out_in_columns(view, window, qtbot):
    from PySide6 import QtWidgets

    _show_tab_at(window, view, qtbot, (1000, 700))
    split = view.findChild(QtWidgets.QSplitter)
    split.setSizes([130, 600])  # the plot squeezed by the allocations table
    QtWidgets.QApplication.processEvents()
    entries = len(view.plot.getPlotItem().legend.items)
    assert view.plot.getPlotItem().vb.height() < entries * 20  # one column would run past the plot
    _assert_legend_beside_the_curves(view)
