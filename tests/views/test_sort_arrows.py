"""Sort arrows point the way the rows run (▲ ascending, ▼ descending) on every sortable table: Fusion, the
default style on Linux, drew ▲ over a table opened largest-first."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.analysis_tabs.communication.communication_view import CommunicationView
from timelineview.views.analysis_tabs.compare.compare_view import CompareView
from timelineview.views.analysis_tabs.operators_view import OperatorsView
from timelineview.views.cluster.comparison_table import ComparisonTable
from timelineview.views.panels.area_stats import AreaStats
from timelineview.views.sort_arrows import SortArrowStyle

ARROW_W = 20  # the arrow's room at the right of a sorted section


def arrow_widths(table: QtWidgets.QTableView, column: int) -> list[int]:
    """Dark pixels per pixel row of the right end of ``column``'s header section, top to bottom, where some are."""
    header = table.horizontalHeader()
    image = header.grab().toImage()
    right = header.sectionViewportPosition(column) + header.sectionSize(column)
    ground = header.palette().color(QtGui.QPalette.ColorRole.Button).lightness()
    near = [sum(abs(QtGui.QColor(image.pixel(x, y)).lightness() - ground) > 60 for x in range(right - ARROW_W, right))
            for y in range(2, image.height() - 2)]  # (not the section's frame)
    return [n for n in near if n]


def points(widths: list[int]) -> str:
    assert len(widths) >= 2, widths
    return "down" if widths[0] > widths[-1] else "up" if widths[0] < widths[-1] else "?"


@pytest.fixture
def numbers(qtbot):
    """A plain sortable table of one number column, with the window's sort arrows."""
    from timelineview.views.sort_arrows import conventional_sort_arrows

    model = QtGui.QStandardItemModel(3, 1)
    model.setHorizontalHeaderLabels([""])  # no title: the arrow alone in its section
    for row, value in enumerate((3, 1, 2)):
        item = QtGui.QStandardItem()
        item.setData(value, QtCore.Qt.ItemDataRole.DisplayRole)
        model.setItem(row, 0, item)
    table = QtWidgets.QTableView()
    qtbot.addWidget(table)
    table.setModel(model)
    table.setSortingEnabled(True)
    conventional_sort_arrows(table)
    table.resize(300, 200)
    table.show()
    qtbot.waitExposed(table)
    return table


def test_the_arrow_points_up_over_ascending_rows_and_down_over_descending(numbers):
    model = numbers.model()
    numbers.sortByColumn(0, QtCore.Qt.SortOrder.AscendingOrder)
    assert [model.item(r, 0).data(QtCore.Qt.ItemDataRole.DisplayRole) for r in range(3)] == [1, 2, 3]
    assert points(arrow_widths(numbers, 0)) == "up"
    numbers.sortByColumn(0, QtCore.Qt.SortOrder.DescendingOrder)
    assert [model.item(r, 0).data(QtCore.Qt.ItemDataRole.DisplayRole) for r in range(3)] == [3, 2, 1]
    assert points(arrow_widths(numbers, 0)) == "down"


@pytest.mark.parametrize("make, table", [(ComparisonTable, lambda w: w), (AreaStats, lambda w: w.names),
                                         (OperatorsView, lambda w: w.table), (CommunicationView, lambda w: w.table),
                                         (CompareView, lambda w: w.cards_table),
                                         (CompareView, lambda w: w.links_table)])
def test_every_sortable_table_of_the_window_draws_the_arrows_so(qtbot, make, table):
    widget = make()
    qtbot.addWidget(widget)
    assert isinstance(table(widget).horizontalHeader().style(), SortArrowStyle)
