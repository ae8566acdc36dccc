"""The heat map's axes (rank / step titles, numbers where they fit), its tooltip (the metric's display name,
the value in the colour bar's unit) and its "by node" choice (only when the cards make more than one node)."""

from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.cluster.comparison import CardComparison, ClusterComparison
from timelineview.views.cluster.heat_map import tick_stride


def _comparison(cards: int, steps: int) -> ClusterComparison:
    """``cards`` cards (rank r) with ``steps`` steps: step time (r + 1) * 1000 + s µs, compute half of it."""
    out = []
    for r in range(cards):
        rows = [{"step": s, "step_time_us": (r + 1) * 1000.0 + s, "compute_us": ((r + 1) * 1000.0 + s) / 2}
                for s in range(1, steps + 1)]
        out.append(CardComparison(r, f"rank {r}", r, steps=rows))
    return ClusterComparison(out)


def _hover(qtbot, canvas, row: int, col: int) -> str:
    m, r = canvas.matrix, canvas.plot_rect()
    rows, cols = m.values.shape
    pos = QtCore.QPointF(r.left() + (col + 0.5) * r.width() / cols, r.top() + (row + 0.5) * r.height() / rows)
    ev = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, pos, canvas.mapToGlobal(pos),
                           QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.NoButton,
                           QtCore.Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(canvas, ev)
    return canvas.toolTip()


def test_tooltip_names_the_metric_as_the_table_does_in_the_unit_shown(qtbot, heat):
    heat.set_comparison(_comparison(2, 3))
    heat.set_metric("compute_us")
    # rank 1, step 3: compute (2 * 1000 + 3) / 2 = 1001.5 µs = 1.0015 ms, shown to 4 significant digits
    assert _hover(qtbot, heat.canvas, 1, 2) == "rank 1 · step 3\nCompute: 1.002 ms"
    heat.set_metric("step_time_us")
    assert _hover(qtbot, heat.canvas, 0, 0) == "rank 0 · step 1\nStep time: 1.001 ms"
    assert "_us" not in _hover(qtbot, heat.canvas, 1, 1)


def test_by_node_is_offered_only_when_the_cards_make_several_nodes(qtbot, heat):
    heat.set_comparison(_comparison(2, 3))
    assert not heat.node_box.isVisible()
    heat.set_comparison(_comparison(8, 3))  # one whole node: one row of everything says nothing
    assert not heat.node_box.isVisible()
    heat.set_comparison(_comparison(16, 3))
    assert heat.node_box.isVisible()
    heat.node_box.setChecked(True)
    assert heat.canvas.matrix.values.shape == (2, 3)
    assert heat.canvas.row_ticks == ["0–7", "8–15"] and heat.canvas.row_axis == "ranks of a node"
    heat.set_comparison(_comparison(4, 3))  # a smaller run after it: the choice goes, and its rows with it
    assert not heat.node_box.isVisible() and not heat.node_box.isChecked()
    assert heat.canvas.matrix.values.shape == (4, 3) and heat.canvas.row_axis == "rank"


def test_tick_stride_is_the_smallest_1_2_5_10_step_that_fits():
    assert tick_stride(10, 30.0, 12.0) == 1  # 30 px a row: every row
    assert tick_stride(100, 9.0, 12.0) == 2  # 16 px needed: 2 rows of 9 px
    assert tick_stride(100, 4.0, 12.0) == 5
    assert tick_stride(1000, 0.5, 12.0) == 50  # 16 / 0.5 = 32 -> 50
    assert tick_stride(3, 0.5, 12.0) == 5  # fewer rows than the stride: only the first is numbered
    assert tick_stride(3, 0.1, 12.0) == 5


def _dark_columns(image: QtGui.QImage, x0: int, x1: int, y0: int, y1: int) -> np.ndarray:
    """Per column of [x0, x1): whether any pixel in rows [y0, y1) is text-dark."""
    out = np.zeros(x1 - x0, bool)
    for x in range(x0, x1):
        out[x - x0] = any(QtGui.QColor(image.pixel(x, y)).lightness() < 110 for y in range(y0, y1))
    return out


def _dark_rows(image: QtGui.QImage, x0: int, x1: int, y0: int, y1: int) -> np.ndarray:
    out = np.zeros(y1 - y0, bool)
    for y in range(y0, y1):
        out[y - y0] = any(QtGui.QColor(image.pixel(x, y)).lightness() < 110 for x in range(x0, x1))
    return out


def _runs(mask: np.ndarray) -> int:
    """Number of separate runs of True (text blobs along an axis)."""
    return int(np.count_nonzero(mask[1:] & ~mask[:-1]) + bool(mask[:1].any()))


def test_axes_are_titled_and_numbered_where_the_numbers_fit(qtbot, heat):
    heat.set_comparison(_comparison(4, 6))
    canvas = heat.canvas
    image = canvas.grab().toImage()
    r = canvas.plot_rect().toAlignedRect()
    fm = canvas.fontMetrics()
    # the matrix leaves room left of it for the rank numbers and the axis title, and under it for the steps
    assert r.left() >= fm.height() + fm.horizontalAdvance("0")
    assert canvas.height() - r.bottom() >= 2 * fm.height()
    assert canvas.row_ticks == ["0", "1", "2", "3"] and canvas.row_tick_stride() == 1
    assert canvas.step_tick_stride() == 1
    # rank numbers: one blob of text per row, left of the matrix (between the axis title and the matrix)
    numbers_x0 = r.left() - 4 - fm.horizontalAdvance("0") - 1
    rows = _dark_rows(image, numbers_x0, r.left() - 2, r.top(), r.bottom())
    assert _runs(rows) == 4
    # step numbers: one blob per step under the matrix
    steps = _dark_columns(image, r.left(), r.right(), r.bottom() + 2, r.bottom() + 2 + fm.height())
    assert _runs(steps) == 6
    # the step axis title under the numbers, the rank axis title left of the rank numbers
    assert _dark_columns(image, r.left(), r.right(), r.bottom() + 2 + fm.height(), canvas.height()).any()
    assert _dark_rows(image, 0, numbers_x0 - 1, r.top(), r.bottom()).any()


def test_many_cards_are_numbered_every_nth_row_without_overlap(qtbot, heat):
    cards = 400
    heat.set_comparison(_comparison(cards, 3))
    heat.node_box.setChecked(False)
    canvas = heat.canvas
    r = canvas.plot_rect()
    line = canvas.fontMetrics().height()
    stride = canvas.row_tick_stride()
    cell = r.height() / cards
    # reference: the first of 1, 2, 5, 10, 20, 50, 100 whose rows are a line (and a 4 px gap) tall
    assert stride == next(s for s in (1, 2, 5, 10, 20, 50, 100) if s * cell >= line + 4) > 1
    image = canvas.grab().toImage()
    rr = r.toAlignedRect()
    rows = _dark_rows(image, rr.left() - 30, rr.left() - 2, rr.top(), rr.bottom())
    assert _runs(rows) == math.ceil(cards / stride)


def test_two_digit_ranks_are_drawn_whole_not_elided(qtbot, heat):
    """The tick width fits the widest rank as the painter measures it: ranks 10..31 read "10".."31", not "…"."""
    heat.resize(900, 900)
    heat.set_comparison(_comparison(32, 5))
    canvas = heat.canvas
    image = QtGui.QImage(canvas.size(), QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    painter.setFont(canvas.font())
    try:
        texts = canvas.row_tick_texts(painter.fontMetrics())
    finally:
        painter.end()
    assert canvas.row_tick_stride() == 1  # 32 rows in 800 px: every rank numbered
    assert texts == {r: str(r) for r in range(32)}


def test_a_name_longer_than_the_tick_room_is_still_elided(qtbot, heat):
    cards = [CardComparison(0, "a card with a very long name indeed, far wider than the rank axis", None,
                            steps=[{"step": 1, "step_time_us": 1000.0}])]
    heat.set_comparison(ClusterComparison(cards))
    texts = heat.canvas.row_tick_texts(heat.canvas.fontMetrics())
    assert texts[0].count("…") == 1 and heat.canvas.fontMetrics().horizontalAdvance(texts[0]) <= 120


def test_a_node_missing_a_rank_is_labelled_with_the_ranks_it_holds(qtbot, heat):
    rows = [{"step": 1, "step_time_us": 1000.0}]
    ranks = [r for r in range(17) if r != 5]  # rank 5 could not be read: node 0 holds 0–4, 6–8
    heat.set_comparison(ClusterComparison([CardComparison(k, f"rank {r}", r, steps=rows) for k, r in enumerate(ranks)]))
    heat.node_box.setChecked(True)
    assert heat.canvas.row_ticks == ["0–4, 6–8", "9–16"]
