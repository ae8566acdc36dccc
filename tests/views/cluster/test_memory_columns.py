"""The cluster comparison's memory columns and chart: each card's peaks from its ``stats --json`` memory
object, the card ``memory_imbalance`` flags marked in its peak reserved cell only, the reserved peak alone
for cards known from their trace's memory counters, nothing without memory."""

from __future__ import annotations

import csv
import io

import pytest
from PySide6 import QtCore

from timelineview.analysis.cluster.comparison import to_csv
from timelineview.analysis.cluster.memory_peaks import peaks_of_document
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory
from timelineview.views.cluster.cluster_view import MEMORY_CHART, ClusterView
from timelineview.views.cluster.comparison_table import SLOW_CELL
from timelineview.views.cluster.heat_map import metric_choices
from timelineview.viewstate.tabs.heat_map import heat_matrix

CARDS = 6
PLANTED = 4
ROLE = QtCore.Qt.ItemDataRole


def cluster(tmp_path, memory: bool, counters: bool = True, memory_scale: float = 1.0) -> AnalysisSession:
    """A generated msprof cluster: with memory files (``memory``, rank ``PLANTED`` holding more) and its trace's
    NPU MEM counters (``counters``; rank ``PLANTED``'s scaled by ``memory_scale``)."""
    specs = [s.with_(memory_scale=memory_scale if s.rank == PLANTED else 1.0)
             for s in cluster_specs(CARDS, seed=3, steps=3, tasks_per_step=40)]
    truths = generate_cluster(tmp_path, specs, "msprof", options=WriteOptions(memory_counters=counters))
    if memory:
        write_cluster_memory(truths, MemorySpec(imbalance_card=PLANTED, seed=3))
    return AnalysisSession(load(tmp_path))


def column(model, key: str) -> int:
    return next(i for i, c in enumerate(model.columns) if c.key == key)


@pytest.fixture
def with_memory(tmp_path):
    return cluster(tmp_path, memory=True)


def test_columns_hold_each_cards_peaks_from_the_stats_document(with_memory):
    docs = {d["card"]: d["memory"] for d in with_memory.stats_document()["cards"]}
    rows = with_memory.comparison.rows()
    assert len(rows) == CARDS
    for c in with_memory.comparison.cards:  # a summary folder reads the same peaks from the document
        assert peaks_of_document(docs[c.card]) == c.memory
    for r in rows:
        m = docs[r["card"]]
        assert m["live_at_peak_component"] == "PTA"
        assert r["peak_allocated_mb"] == m["components"]["PTA"]["peak_allocated_mb"]
        assert r["peak_reserved_mb"] == m["peak_reserved_mb"]
    for step in with_memory.comparison.step_numbers():  # a step shows its own peaks
        for r in with_memory.comparison.rows(step):
            [s] = [s for s in docs[r["card"]]["per_step"] if s["step"] == step]
            assert r["peak_allocated_mb"] == s["components"]["PTA"]["peak_allocated_mb"]
            assert r["peak_reserved_mb"] == s["components"][docs[r["card"]]["peak_reserved_component"]][
                "peak_reserved_mb"]


def test_only_the_flagged_cards_peak_reserved_cell_is_marked(qtbot, tmp_path, with_memory):
    flags = with_memory.stats_document()["memory_imbalance"]
    assert [f["card"] for f in flags] == [f"rank {PLANTED}"]
    view = ClusterView()
    qtbot.addWidget(view)
    view.set_comparison(with_memory.comparison)
    model = view.table.model_
    reserved, allocated = column(model, "peak_reserved_mb"), column(model, "peak_allocated_mb")
    marked = [model.data(model.index(i, reserved), ROLE.DisplayRole) for i in range(model.rowCount())
              if model.data(model.index(i, reserved), ROLE.BackgroundRole) == SLOW_CELL]
    flagged_row = next(i for i in range(model.rowCount()) if model.row_dict(i)["card"] == flags[0]["card"])
    assert marked == [f"{flags[0]['value']:,.3f}".replace(",", " ")]  # the window's one format: 3 decimals
    assert model.data(model.index(flagged_row, allocated), ROLE.BackgroundRole) != SLOW_CELL
    tip = model.data(model.index(flagged_row, reserved), ROLE.ToolTipRole)
    assert f"{flags[0]['value']:.1f} MB vs median {flags[0]['median']:.1f} MB" in tip
    assert f"z {flags[0]['z']:.1f}" in tip
    # the memory chart: one bar per card in table order, the flagged card's row holds the flag
    view.chart_box.setCurrentIndex(view.chart_box.findData(MEMORY_CHART))
    assert view.memory_scroll.isVisibleTo(view) and not view.chart_scroll.isVisibleTo(view)
    assert [bool(r["memory_flags"]) for r in view.memory_bars.rows] == [
        r["card"] == flags[0]["card"] for r in model.rows]
    assert view.export_png(tmp_path / "memory.png") and (tmp_path / "memory.png").stat().st_size > 0


def test_csv_and_heat_map_carry_the_peaks(with_memory):
    cmp = with_memory.comparison
    table = list(csv.DictReader(io.StringIO(to_csv(cmp.rows(), cmp.columns))))
    docs = {d["card"]: d["memory"] for d in with_memory.stats_document()["cards"]}
    for line in table:
        assert float(line["peak_reserved_mb"]) == pytest.approx(docs[line["card"]]["peak_reserved_mb"], abs=5e-4)
        assert line["memory_imbalance"] == ("peak_reserved_mb" if line["card"] == f"rank {PLANTED}" else "")
    assert "peak_reserved_mb" in dict(metric_choices(cmp))
    matrix = heat_matrix(cmp, "peak_reserved_mb")
    for r, c in enumerate(cmp.cards):
        per_step = {s["step"]: s["components"][docs[c.card]["peak_reserved_component"]]["peak_reserved_mb"]
                    for s in docs[c.card]["per_step"]}
        assert list(matrix.values[r]) == [per_step[s] for s in matrix.steps]


def test_counter_only_cards_show_their_reserved_peak(qtbot, tmp_path):
    s = cluster(tmp_path, memory=False, memory_scale=1.5)
    docs = {d["card"]: d["memory"] for d in s.stats_document()["cards"]}
    cmp = s.comparison
    assert {"peak_allocated_mb", "peak_reserved_mb"} <= {c.key for c in cmp.columns}
    for r in cmp.rows():  # a counter knows no allocated memory: that cell is empty
        m = docs[r["card"]]
        assert m["peak_reserved_component"] == "APP" and m["live_at_peak_component"] is None
        assert r["peak_allocated_mb"] is None and r["peak_reserved_mb"] == m["peak_reserved_mb"]
    assert [f["card"] for f in s.memory_imbalance] == [f"rank {PLANTED}"]
    view = ClusterView()
    qtbot.addWidget(view)
    view.set_comparison(cmp)
    view.chart_box.setCurrentIndex(view.chart_box.findData(MEMORY_CHART))
    assert view.memory_scroll.isVisibleTo(view)
    assert [bool(r["memory_flags"]) for r in view.memory_bars.rows] == [
        r["card"] == f"rank {PLANTED}" for r in view.table.model_.rows]


def test_without_memory_files_nor_counters_the_columns_are_absent(qtbot, tmp_path):
    s = cluster(tmp_path, memory=False, counters=False)
    assert all(d["memory"] is None for d in s.stats_document()["cards"])
    cmp = s.comparison
    assert not {"peak_allocated_mb", "peak_reserved_mb"} & {c.key for c in cmp.columns}
    assert "memory_imbalance" not in to_csv(cmp.rows(), cmp.columns).splitlines()[0]
    assert "peak_reserved_mb" not in dict(metric_choices(cmp))
    view = ClusterView()
    qtbot.addWidget(view)
    view.set_comparison(cmp)
    assert not view.chart_box.isVisibleTo(view) and not view.memory_scroll.isVisibleTo(view)
