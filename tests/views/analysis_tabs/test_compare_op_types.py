"""The Compare tab's Operators page: op types (or op types with input shapes) above the node names."""

from __future__ import annotations

from PySide6 import QtCore

from tests.analysis.kernels.test_op_type_diff import SHAPE_A, SHAPE_B, _described_run
from tests.views.analysis_tabs.test_compare_view import shown_diff
from timelineview.analysis.diff.run_diff import diff_runs
from timelineview.views.analysis_tabs.compare.operators_page import BY_SHAPE


def _cell(model, row: int, key: str):
    col = [c.key for c in model.columns].index(key)
    return model.data(model.index(row, col), QtCore.Qt.ItemDataRole.DisplayRole)


def test_op_types_then_shapes_with_node_names_kept_below(qtbot, tmp_path):
    diff = diff_runs(_described_run(tmp_path / "base", "net", 0), _described_run(tmp_path / "new", "v2", 1_000))
    view = shown_diff(qtbot, diff)
    page = view.operators_page
    assert view.parts.widget(1) is page
    types = page.types_model
    assert [r["name"] for r in types.rows] == ["MatMulV2"] and _cell(types, 0, "name") == "MatMulV2"
    assert types.rows[0]["delta_us"] == 3.0
    # node names changed between the runs: by name every node is added or removed, kept as the detail below
    assert {r["status"] for r in view.operators_model.rows} == {"added", "removed"}
    page.grouping.setCurrentIndex(page.grouping.findData(BY_SHAPE))
    assert [(r["name"], r["input_shapes"]) for r in types.rows] == [("MatMulV2", SHAPE_B), ("MatMulV2", SHAPE_A)]
    assert _cell(types, 0, "input_shapes") == SHAPE_B and _cell(types, 0, "status") == "changed"
    assert _cell(types, 1, "status") == "unchanged"
    view._drop_comparison()
    assert types.rows == []
