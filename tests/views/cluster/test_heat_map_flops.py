"""The heat map and the comparison table show FLOPs per step and MFU once some card counts FLOPs: the FLOPs heat
map of the pipeline stages, in the decimal unit that suits the values (TFLOP on a real model, GFLOP on a small)."""

from __future__ import annotations

import pytest

from timelineview.analysis.cluster.comparison import BAR_PARTS, CardComparison, ClusterComparison
from timelineview.views.cluster.comparison_table import ComparisonTableModel

STAGE_TFLOP = (1.0, 1.0, 1.6, 1.0)  # per card: TFLOP per step; card 2 the heavy stage
STEPS = 3
STEP_US = 10_000.0
BAR_KEYS = [k for k, _ in BAR_PARTS]


def _comparison(flops: bool, scale: float = 1.0) -> ClusterComparison:
    """Per card STAGE_TFLOP × ``scale`` × (1, 1.1, 1.2) over its steps (with ``flops``)."""
    cards = []
    for r, tflop in enumerate(STAGE_TFLOP):
        tflop *= scale
        rows = []
        for s in range(STEPS):
            row = {"step": s + 1, "span_us": STEP_US, "step_time_us": STEP_US, "compute_us": 6_000.0,
                   "step_interval_us": 500.0, "pipeline": True, "pipeline_stage_us": STEP_US,
                   "communication_us": 1_000.0, "overlapped_us": 0.0, "start_ns": 0, "end_ns": 1,
                   "bar": dict.fromkeys(BAR_KEYS, 0.0)}
            if flops:
                step_flops = tflop * 1e12 * (1 + 0.1 * s)
                row.update(flops=step_flops, mfu=step_flops / (STEP_US * 1e-6) / 300e12)
            rows.append(row)
        cards.append(CardComparison(r, f"rank {r}", r, steps=rows))
    return ClusterComparison(cards)


def _choices(view) -> dict[str, str]:
    box = view.metric_box
    return {box.itemData(k): box.itemText(k) for k in range(box.count())}


def test_flops_and_mfu_are_metrics_when_some_card_counts_flops(heat):
    heat.set_comparison(_comparison(False))
    assert "flops" not in _choices(heat) and "mfu" not in _choices(heat)
    heat.set_comparison(_comparison(True))
    choices = _choices(heat)
    assert choices["flops"] == "FLOPs" and choices["mfu"] == "MFU"


def test_the_flops_map_is_per_stage_and_step_in_a_unit_that_suits_them(heat):
    heat.set_comparison(_comparison(True))
    heat.set_metric("flops")
    canvas = heat.canvas
    assert canvas.matrix.metric == "flops" and canvas.unit == "TFLOP"
    for r, tflop in enumerate(STAGE_TFLOP):
        for s in range(STEPS):
            assert canvas.matrix.values[r, s] == pytest.approx(tflop * 1e12 * (1 + 0.1 * s))
    lo, hi = canvas.matrix.value_range()
    assert canvas._fmt(hi) == "1.920 TFLOP" and canvas._fmt(lo) == "1.000 TFLOP"  # 1.6 × 1.2; 1.0 × 1.0
    # the colour bar's labels fit beside it, however long the unit
    r = canvas.plot_rect()
    label_w = max(canvas.fontMetrics().horizontalAdvance(canvas._fmt(v)) for v in (lo, hi))
    assert r.right() + 2 * 6 + 16 + label_w <= canvas.width()
    heat.set_comparison(_comparison(True, scale=1e-3))  # a small model: GFLOP per step
    heat.set_metric("flops")
    lo, hi = canvas.matrix.value_range()
    assert canvas.unit == "GFLOP" and canvas._fmt(hi) == "1.920 GFLOP" and canvas._fmt(lo) == "1.000 GFLOP"


def test_the_comparison_table_shows_flops_in_its_unit_and_mfu_in_percent(qtbot):
    from PySide6 import QtCore

    comparison = _comparison(True)
    model = ComparisonTableModel()
    model.set_rows(comparison.rows(), comparison.columns)
    keys = [c.key for c in comparison.columns]
    row = next(k for k in range(model.rowCount()) if model.row_dict(k)["card"] == "rank 2")
    display = QtCore.Qt.ItemDataRole.DisplayRole
    flops_col, mfu_col = keys.index("flops"), keys.index("mfu")
    assert model.headerData(flops_col, QtCore.Qt.Orientation.Horizontal, display) == "FLOPs\nTFLOP"
    # the mean of 1.0, 1.1 and 1.2 × 1.6 TFLOP per step; MFU of a 10 ms step against 300 TFLOPS
    assert model.data(model.index(row, flops_col), display) == "1.760"
    assert model.data(model.index(row, mfu_col), display) == f"{1.76e12 / 1e-2 / 300e12 * 100:.1f} %"
