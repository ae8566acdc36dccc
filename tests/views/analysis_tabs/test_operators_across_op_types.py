"""The Operators tab across the cards by op type and by shape (metrics.md §7.1): offered in the all-cards mode,
its rows the session's, only the slow_operator verdicts marked, and a double-click highlights the op type's tasks
on the card with the max."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore

from timelineview.analysis.kernels.op_type_names import op_type_of_name
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.analysis_tabs.operators_view import ACROSS, BY_NAME, BY_OP_TYPE, BY_SHAPE, BY_TYPE

SLOW, SLOWED = 1, "MatMulV2"


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ops_across") / "ranks"
    specs = [s.with_(slow_op_types=(SLOWED,), slow_op_factor=2.0) if s.rank == SLOW else s
             for s in cluster_specs(4, seed=8, steps=3, tasks_per_step=200)]
    generate_cluster(out, specs)
    return out


@pytest.fixture
def view(open_tab, cluster_dir):
    return open_tab(cluster_dir, "operators", lambda v: v.model.rowCount() > 0)


def _offered(view, grouping: str) -> bool:
    return view.grouping.model().item(view.grouping.findData(grouping)).isEnabled()


def test_all_cards_offer_op_types_and_shapes_not_task_types(view):
    view.grouping.setCurrentIndex(view.grouping.findData(BY_TYPE))
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    assert view.grouping.isEnabled() and view.grouping.currentData() == BY_NAME  # task types: one card's queues
    assert _offered(view, BY_OP_TYPE) and _offered(view, BY_SHAPE) and not _offered(view, BY_TYPE)
    view.scope.setCurrentIndex(view.scope.findData(view.cards[0].number))
    assert _offered(view, BY_TYPE)


def test_op_type_rows_are_the_sessions_and_only_its_verdict_is_marked(view, window):
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    view.grouping.setCurrentIndex(view.grouping.findData(BY_OP_TYPE))
    session = view.session
    expected = {o.op_type: o for o in session.op_types_across_cards}
    assert len(expected) > 10 and {r["op_type"] for r in view.model.rows} == set(expected)
    assert "name" not in [c.key for c in view.model.columns]  # op types, not node names
    titles = [c.title for c in view.model.columns]
    assert titles[:3] == ["Op type", "Core", "Mean total"] and "Why marked" in titles
    role = QtCore.Qt.ItemDataRole
    max_on, why = titles.index("Max on"), titles.index("Why marked")
    marked = []
    for r in range(view.proxy.rowCount()):
        op_type = view.proxy.index(r, 0).data()
        o = expected[op_type]
        assert view.proxy.index(r, titles.index("Cards")).data() == str(o.cards)
        cell = view.proxy.index(r, max_on)
        if cell.data(role.BackgroundRole) is not None:
            marked.append((op_type, cell.data()))
            assert view.proxy.index(r, why).data().startswith(f"slow on rank {SLOW}: ")
        else:
            assert view.proxy.index(r, why).data() == ""
    assert marked == [(SLOWED, f"rank {SLOW}")]
    shown = [view.proxy.index(r, 2).data(role.UserRole) for r in range(view.proxy.rowCount())]
    assert shown == sorted(shown, reverse=True)  # by mean total
    assert f"{len(expected)} op types over 4 cards" in view.note.text() and "1 runs slower" in view.note.text()


def test_double_click_highlights_the_op_types_tasks_on_the_card_with_the_max(view, window):
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    view.grouping.setCurrentIndex(view.grouping.findData(BY_OP_TYPE))
    row = next(k for k, r in enumerate(view.model.rows) if r["op_type"] == SLOWED)
    target = view.open_row(row)
    card = next(c for c in window.cluster.all_cards if c.store.card == f"rank {SLOW}")
    assert target is not None and target.card == card.number
    compute = card.analysis.classification.compute
    s = card.store.slices
    tasks = [i for i in np.flatnonzero(compute).tolist() if op_type_of_name(card.store.strings[s.name[i]]) == SLOWED]
    assert sorted(target.slices.tolist()) == tasks and window.timeline.match_count == len(tasks)
    names = {card.store.strings[s.name[i]] for i in tasks}
    assert len(names) >= 3  # one op type over several node names, highlighted together


def test_shape_rows_compare_op_type_and_input_shapes(view, window):
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    view.grouping.setCurrentIndex(view.grouping.findData(BY_SHAPE))
    keys = [c.key for c in view.model.columns]
    assert keys[:3] == ["op_type", "input_shapes", "core_type"]
    assert {(r["op_type"], r["input_shapes"]) for r in view.model.rows} == \
        {o.key for o in view.session.shapes_across_cards}
    assert "shapes (op type, input shapes) over 4 cards" in view.note.text()
