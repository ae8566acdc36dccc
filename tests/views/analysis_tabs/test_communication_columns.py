"""The Communication tab's operator table at 1600 px: every shown column side by side without scrolling
sideways, each header's full title readable (on the header, or leading its tooltip when the header is
shortened) and not cut off, and each hidden column one click away in the Columns menu."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.analysis_tabs.communication.communication_view import ACROSS

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"
DB_RUN = SAMPLES / "torch_npu_db" / "level1"
JSON_RUN = SAMPLES / "torch_npu"
WIDE = (1600, 900)
H = QtCore.Qt.Orientation.Horizontal
DISPLAY, TOOLTIP = QtCore.Qt.ItemDataRole.DisplayRole, QtCore.Qt.ItemDataRole.ToolTipRole


def _open_wide(open_tab, window, qtbot, folder: Path):
    window.resize(*WIDE)
    tab = open_tab(folder, "communication", lambda t: t.model.rowCount() > 0)
    window.cluster.analysis.show_tab("communication")
    qtbot.waitUntil(tab.table.isVisible, timeout=5_000)
    QtWidgets.QApplication.processEvents()
    return tab


def _shown(tab) -> list[int]:
    return [c for c in range(tab.model.columnCount()) if not tab.table.isColumnHidden(c)]


def _assert_fits_and_reads(tab) -> None:
    table, model = tab.table, tab.model
    QtWidgets.QApplication.processEvents()
    header = table.horizontalHeader()
    shown = _shown(tab)
    assert shown
    total = sum(header.sectionSize(c) for c in shown)
    assert total <= table.viewport().width(), (tab.scope.currentText(), total, table.viewport().width())
    assert table.horizontalScrollBar().maximum() == 0
    fm = header.fontMetrics()
    for c in range(model.columnCount()):
        title = model.columns[c].title
        text = model.headerData(c, H, DISPLAY)
        tip = QtGui.QTextDocumentFragment.fromHtml(model.headerData(c, H, TOOLTIP) or "").toPlainText()
        assert text.replace("\n", " ") == title or tip.startswith(title), (title, text, tip)
        if c in shown:  # the header's text is not cut off
            widest_line = max(fm.horizontalAdvance(line) for line in text.split("\n"))
            assert header.sectionSize(c) >= widest_line, (title, header.sectionSize(c), widest_line)


def _assert_every_column_reachable(tab) -> None:
    """The Columns menu names every column; a hidden one (with something to show) shows when ticked."""
    choice = tab.column_choice
    menu = choice.menu()
    actions = {a.data(): a for a in menu.actions()}
    assert list(actions) == [c.key for c in tab.model.columns]
    for k, column in enumerate(tab.model.columns):
        action = actions[column.key]
        assert action.text().startswith(column.title)
        assert action.isChecked() == (not tab.table.isColumnHidden(k))
    hidden = [k for k in range(tab.model.columnCount()) if tab.table.isColumnHidden(k)
              and actions[tab.model.columns[k].key].isEnabled()]
    for k in hidden:
        actions[tab.model.columns[k].key].trigger()
        assert not tab.table.isColumnHidden(k)
        assert tab.table.horizontalHeader().sectionSize(k) > 0
    menu.deleteLater()


def _card_scopes(tab) -> list[int]:
    return [i for i in range(tab.scope.count()) if tab.scope.itemData(i) != ACROSS]


def _check_every_scope(tab) -> None:
    for i in range(tab.scope.count()):
        tab.scope.setCurrentIndex(i)
        _assert_fits_and_reads(tab)


@pytest.mark.skipif(not DB_RUN.is_dir(), reason="../shared/samples is absent")
def test_a_database_clusters_tables_fit_1600px(open_tab, window, qtbot):
    tab = _open_wide(open_tab, window, qtbot, DB_RUN)
    assert _card_scopes(tab)
    _check_every_scope(tab)
    tab.scope.setCurrentIndex(_card_scopes(tab)[0])
    # the producer's figures (its main plane) are shown: the database has them
    assert all(not tab.table.isColumnHidden(k) for k, c in enumerate(tab.model.columns)
               if c.key in ("plane", "transit_us", "wait_us", "synchronization_us", "idle_us"))
    _assert_every_column_reachable(tab)


@pytest.mark.skipif(not JSON_RUN.is_dir(), reason="../shared/samples is absent")
def test_json_traces_tables_fit_1600px(open_tab, window, qtbot):
    _check_every_scope(_open_wide(open_tab, window, qtbot, JSON_RUN))


def test_a_generated_clusters_tables_fit_1600px_and_the_choice_holds(open_tab, window, qtbot, tmp_path):
    folder = tmp_path / "ranks"
    generate_cluster(folder, cluster_specs(4, seed=5, steps=2, tasks_per_step=40))
    tab = _open_wide(open_tab, window, qtbot, folder)
    _check_every_scope(tab)
    first = _card_scopes(tab)[0]
    tab.scope.setCurrentIndex(first)
    keys = [c.key for c in tab.model.columns]
    tasks = keys.index("tasks")
    assert tab.table.isColumnHidden(tasks)  # hidden by default
    tab.column_choice.set_shown("tasks", True)
    tab.scope.setCurrentIndex(_card_scopes(tab)[1])  # another card: the choice holds
    assert not tab.table.isColumnHidden(tasks)
    tab.column_choice.set_shown("elapse_us", False)
    tab.scope.setCurrentIndex(first)
    assert tab.table.isColumnHidden(keys.index("elapse_us"))
