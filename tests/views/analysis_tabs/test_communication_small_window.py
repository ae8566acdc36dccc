"""At 1000x700 the Communication tab's boxes show their words whole, and the matrix's title and colour
scale stay inside the matrix."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.synthetic import cluster_specs, generate_cluster


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("comm_small") / "ranks"
    generate_cluster(out, cluster_specs(8, seed=9, steps=2, tasks_per_step=20))
    return out


def test_the_tab_reads_whole_at_1000_by_700(qtbot, window, open_tab, cluster_dir):
    window.resize(1000, 700)
    view = open_tab(cluster_dir, "communication", lambda v: v.model.rowCount() > 0)
    window.cluster.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.matrix.isVisible())
    QtWidgets.QApplication.processEvents()  # the tab's layout, laid out now it is shown
    for box in (view.metric_box, view.transport):
        assert box.width() >= box.sizeHint().width(), f"{box.currentText()!r} is cut"
    matrix = view.matrix
    w, h = matrix.width(), matrix.height()
    fm = matrix.fontMetrics()
    title = matrix.shown_title(w, h)
    needed = fm.boundingRect(QtCore.QRect(0, 0, int(matrix.title_rect(w, h).width()), 10_000),
                             int(QtCore.Qt.TextFlag.TextWordWrap), title)
    rect = matrix.title_rect(w, h)
    assert needed.height() <= rect.height()  # every line of the title has its room
    assert rect.top() + needed.height() <= matrix.cells_area(w, h).top() - fm.height() - 2  # above the labels
    bar, words = matrix.legend(w, h)
    assert " ".join(text for _, text in words).split() == \
        f"{matrix.scale_text(*_scale(matrix, w, h))}   red frame: slow link".split()  # nothing elided
    for at, text in words:
        assert at.x() + fm.horizontalAdvance(text) <= w and at.y() + fm.descent() <= h, text
    image = matrix.render_image(w, h)  # the export at this size lays out the same
    assert isinstance(image, QtGui.QImage) and image.width() == w


def _scale(matrix, w: int, h: int) -> tuple[float, float]:
    from timelineview.viewstate.tabs.comm_matrix import scale_range

    return scale_range(matrix.current(w, h).values(matrix.colour_metric))
