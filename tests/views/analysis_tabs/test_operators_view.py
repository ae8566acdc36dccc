"""The Operators tab: per card and across cards, sortable, filtered, exported, and a
double-click highlights the operator's slices on the timeline (Enter steps through them)."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path

import pytest
from PySide6 import QtCore

from tests.views.generated import generated_cluster
from timelineview.analysis.findings.marks import OperatorVerdict
from timelineview.analysis.operators import OperatorAcrossCards
from timelineview.views.analysis_tabs.operators_view import ACROSS, across_row

SLOW_CARD = 1


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "ops", 3, seed=8, steps=2, tasks_per_step=60, slow_card=SLOW_CARD)


@pytest.fixture
def view(open_tab, cluster_dir):
    return open_tab(cluster_dir, "operators", lambda v: v.model.rowCount() > 0)


def plain_totals(card_view) -> dict[str, list[int]]:
    """{name: [count, total ns]} of the card's compute tasks, by a plain loop over its slices."""
    store, compute = card_view.store, card_view.analysis.classification.compute
    out = defaultdict(lambda: [0, 0])
    for i in range(len(store.slices)):
        if compute[i]:
            acc = out[store.strings[store.slices.name[i]]]
            acc[0] += 1
            acc[1] += int(store.slices.dur[i])
    return dict(out)


def test_per_card_rows_match_a_plain_count(view, window):
    card = next(c for c in window.cluster.all_cards if c.number == view.cards[0].number)  # its CardView
    view.scope.setCurrentIndex(view.scope.findData(card.number))
    expected = plain_totals(card)
    rows = {r["name"]: (r["count"], round(r["total_us"] * 1000)) for r in view.model.rows}
    assert rows == {k: (c, t) for k, (c, t) in expected.items()}
    shown = [view.proxy.index(r, 2).data(QtCore.Qt.ItemDataRole.UserRole) for r in range(view.proxy.rowCount())]
    assert shown == sorted(shown, reverse=True)  # opened sorted by total, as numbers


def test_across_cards_names_the_slow_card_and_filters(view):
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    top = view.model.rows[0]
    assert top["max_card"] == f"rank {SLOW_CARD}"
    name = top["name"][:6]
    view.filter.setText(name.lower())
    shown = [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())]
    assert shown and all(name.lower() in s.lower() for s in shown)
    assert view.proxy.rowCount() < view.model.rowCount() or all(name.lower() in r["name"].lower()
                                                                 for r in view.model.rows)


def test_double_click_highlights_and_enter_steps(view, window, qtbot):
    card = view.cards[0]
    view.scope.setCurrentIndex(view.scope.findData(card.number))
    row = next(i for i, r in enumerate(view.model.rows) if r["count"] >= 3)
    name = view.model.rows[row]["name"]
    target = view.open_row(row)
    assert target is not None and target.card == card.number
    timeline = window.timeline
    assert window.cluster.tabs.currentIndex() == 0
    assert timeline.match_count == view.model.rows[row]["count"]
    first = timeline.ctx.selection
    s = card.store.slices
    assert card.store.strings[s.name[first.index]] == name
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_Return)
    second = timeline.ctx.selection
    assert second.index != first.index and card.store.strings[s.name[second.index]] == name
    assert s.start[second.index] >= s.start[first.index]


def test_csv_export_has_every_row(view, tmp_path):
    out = tmp_path / "ops.csv"
    view.export_csv(out)
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == view.model.rowCount()
    assert {r["name"] for r in rows} == {r["name"] for r in view.model.rows}


def test_across_cards_only_a_verdict_is_marked(view):
    """An operator's "Max on" cell (and max total, max / mean) is bold and tinted only where its total on that
    card is a verdict (``findings.marks``): here only on the slow card, and only where its excess over the
    cards' median passes 5 % of that median and 1 % of the median card span (both computed here by hand)."""
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    titles = [c.title for c in view.model.columns]
    max_on, why = titles.index("Max on"), titles.index("Why marked")
    role = QtCore.Qt.ItemDataRole
    spans = sorted(c.t_end - c.t_origin for c in view.cards)
    span_ns = spans[1]  # three cards: the middle one
    cluster = view.window().cluster
    totals = [plain_totals(next(v for v in cluster.all_cards if v.number == c.number)) for c in view.cards]
    out, former = [], 0
    for r in range(view.proxy.rowCount()):
        name = view.proxy.index(r, 0).data()
        cell = view.proxy.index(r, max_on)
        font = cell.data(role.FontRole)
        marked = font is not None and font.bold() and cell.data(role.BackgroundRole) is not None
        per_card = sorted(t.get(name, [0, 0])[1] for t in totals)
        median, top = per_card[1], per_card[2]
        former += top >= 1.2 * sum(per_card) / 3
        if marked:
            out.append(cell.data())
            assert top - median >= max(0.05 * median, 0.01 * span_ns), name
            assert f"on {cell.data()}" in view.proxy.index(r, why).data()
            assert cell.data(role.ToolTipRole) == f"{cell.data()}\nmarked: {view.proxy.index(r, why).data()}"
        else:
            assert view.proxy.index(r, why).data() == "" and "marked" not in cell.data(role.ToolTipRole)
        assert view.proxy.index(r, 0).data(role.FontRole) is None  # only the max's cells
    assert set(out) <= {f"rank {SLOW_CARD}"}
    assert len(out) < former  # the former rule (max ≥ 1.2× the mean) marked more
    assert f"{len(out)} stand out" in view.note.text()


def test_an_operator_is_marked_only_with_a_verdict():
    o = OperatorAcrossCards("Add", mean_total_ns=1000.0, min_total_ns=900, max_total_ns=1200, max_card="rank 2",
                            cards=3)
    assert across_row(o, None)["marked"] == frozenset() and across_row(o, None)["spread"] == pytest.approx(1.2)
    row = across_row(o, OperatorVerdict("Add", "rank 2", 1200.0, 950.0, 9.0, 5.0))
    assert {"max_card", "max_total_us"} <= row["marked"] and "on rank 2" in row["verdict"]


def test_a_marked_cell_says_why_in_its_tooltip(qtbot):
    from timelineview.views.analysis_tabs.operators_view import ACROSS_COLUMNS
    from timelineview.views.analysis_tabs.record_table import RecordTableModel

    o = OperatorAcrossCards("Add", mean_total_ns=1000.0, min_total_ns=900, max_total_ns=1200, max_card="rank 2",
                            cards=3)
    model = RecordTableModel(ACROSS_COLUMNS)
    model.set_rows([across_row(o, OperatorVerdict("Add", "rank 2", 1200.0, 950.0, 9.0, 5.0)), across_row(o, None)])
    column = [c.key for c in ACROSS_COLUMNS].index("max_card")
    tip = QtCore.Qt.ItemDataRole.ToolTipRole
    assert model.data(model.index(0, column), tip) == "rank 2\nmarked: " + model.rows[0]["verdict"]
    assert model.data(model.index(1, column), tip) == "rank 2"


def test_a_max_shared_by_several_cards_names_none_alone():
    import numpy as np

    shared = OperatorAcrossCards("Add", mean_total_ns=1000.0, min_total_ns=1000, max_total_ns=1000,
                                 max_card="rank 0", cards=3, per_card_ns=np.array([1000, 1000, 1000]))
    row = across_row(shared, None)
    assert row["max_card"] == "rank 0 (+2 tied)" and row["max_card_name"] == "rank 0"
    alone = OperatorAcrossCards("Add", mean_total_ns=1000.0, min_total_ns=900, max_total_ns=1200,
                                max_card="rank 2", cards=3, per_card_ns=np.array([900, 900, 1200]))
    assert across_row(alone, None)["max_card"] == "rank 2"


def test_by_op_type_and_shape_views_match_a_plain_count_and_highlight_the_tasks(view, window, qtbot):
    """By op type (the name's type: the generated trace has no kernel table) the rows sum the card's compute
    tasks as a plain loop does; double-clicking a row highlights exactly its tasks."""
    from timelineview.analysis.kernels.op_type_names import op_type_of_name
    from timelineview.views.analysis_tabs.operators_view import BY_OP_TYPE, BY_SHAPE

    card = next(c for c in window.cluster.all_cards if c.number == view.cards[0].number)
    view.scope.setCurrentIndex(view.scope.findData(card.number))
    view.grouping.setCurrentIndex(view.grouping.findData(BY_OP_TYPE))
    expected = defaultdict(lambda: [0, 0])
    for name, (count, total) in plain_totals(card).items():
        acc = expected[op_type_of_name(name)]
        acc[0] += count
        acc[1] += total
    rows = defaultdict(lambda: [0, 0])
    for r in view.model.rows:
        rows[r["op_type"]][0] += r["count"]
        rows[r["op_type"]][1] += round(r["total_us"] * 1000)
    assert dict(rows) == dict(expected)
    assert [c.key for c in view.model.columns][-3:] == ["gflops", "tflops", "mfu"]
    total = [c.key for c in view.model.columns].index("total_us")
    shown = [view.proxy.index(r, total).data(QtCore.Qt.ItemDataRole.UserRole) for r in range(view.proxy.rowCount())]
    assert shown == sorted(shown, reverse=True)  # opened sorted by total
    row = next(i for i, r in enumerate(view.model.rows) if r["count"] >= 3)
    record = view.model.rows[row]
    target = view.open_row(row)
    assert target is not None and target.card == card.number
    timeline = window.timeline
    assert timeline.match_count == record["count"]
    s = card.store.slices
    assert op_type_of_name(card.store.strings[s.name[timeline.ctx.selection.index]]) == record["op_type"]
    view.grouping.setCurrentIndex(view.grouping.findData(BY_SHAPE))
    assert sum(r["count"] for r in view.model.rows) == sum(c for c, _ in expected.values())
    assert "p90_us" in [c.key for c in view.model.columns]


def test_a_wide_window_gives_the_names_their_room(qtbot):
    """Width to spare goes to the operator names (CUDA kernel names run long), not to the last column; a
    narrow window still elides them at the fitted width."""
    from timelineview.views.analysis_tabs.operators_view import CARD_COLUMNS, NAME_WIDEST
    from timelineview.views.analysis_tabs.record_table import RecordTableModel, fit_columns, sortable_table

    long_name = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)"
    rows = [{"name": long_name, "count": 8, "total_us": 6409.0, "mean_us": 801.1, "min_us": 301.0,
             "max_us": 1388.0, "share": 0.03}]
    model = RecordTableModel(CARD_COLUMNS, None)
    proxy, table = sortable_table(model, None)
    qtbot.addWidget(table)
    table.horizontalHeader().setStretchLastSection(True)
    model.set_rows(rows, CARD_COLUMNS)
    text_px = table.fontMetrics().horizontalAdvance(long_name)
    header = table.horizontalHeader()
    for width, whole in ((1500, True), (600, False)):
        table.resize(width, 300)
        table.show()
        qtbot.waitExposed(table)
        fit_columns(table, widest=NAME_WIDEST, name_column=0)
        assert (header.sectionSize(0) >= text_px) == whole, width
        assert header.sectionSize(0) >= min(NAME_WIDEST, text_px)
        ends = [header.sectionPosition(c) + header.sectionSize(c) for c in range(header.count())]
        assert max(ends) <= table.viewport().width() or not whole  # wide: every column in sight
