"""The what-if strip after a window resize: its lanes share the strip's whole height and its time axis its
width, so a taller or wider window draws larger lanes instead of leaving space empty under or beside them."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtGui, QtWidgets

from timelineview.analysis.critical_path.step_lanes import COMPUTE, IN_COLLECTIVE, StepLanes
from timelineview.views.analysis_tabs.what_if_strip import AXIS_H, COLOURS, LABEL_W, PAIR_GAP, RIGHT_PAD, WhatIfStrip

STEP_NS = 1_200_000.0
PREDICTED_SHARE = 0.8  # the predicted step is this share of the measured one
COMPUTE_SHARE = 5 / 6
BOTTOM_PAD = 4  # px the strip keeps under its last pair


def lanes(step_ns: float) -> StepLanes:
    """Two cards: compute for the first ``COMPUTE_SHARE`` of the step, then a collective to its end."""
    split = step_ns * COMPUTE_SHARE
    return StepLanes(3, step_ns, np.array([0, 0, 1, 1]), [COMPUTE, IN_COLLECTIVE, COMPUTE, IN_COLLECTIVE],
                     ["", "allreduce", "", "allreduce"], np.array([0.0, split, 0.0, split]),
                     np.array([split, step_ns, split, step_ns]))


def colour_rows_and_cols(image: QtGui.QImage, colour: QtGui.QColor) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pixels painted in ``colour``."""
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    raw = np.frombuffer(image.constBits(), np.uint8, count=image.bytesPerLine() * h).reshape(h, -1)[:, :4 * w]
    bgr = raw.reshape(h, w, 4)[:, :, :3]
    hit = np.all(bgr == np.array([colour.blue(), colour.green(), colour.red()], np.uint8), axis=2)
    return np.nonzero(hit)


@pytest.mark.parametrize("size", [(900, 300), (1400, 760)])
def test_lanes_fill_the_strip_after_a_resize(qtbot, size):
    area = QtWidgets.QScrollArea()
    strip = WhatIfStrip()
    area.setWidget(strip)
    area.setWidgetResizable(True)  # as in the critical-path tab
    qtbot.addWidget(area)
    area.resize(700, 200)
    area.show()
    qtbot.waitExposed(area)
    strip.set_lanes(["rank 0", "rank 1"], lanes(STEP_NS), lanes(STEP_NS * PREDICTED_SHARE),
                    "rank 1 computes at the median", [])
    area.resize(*size)
    qtbot.waitUntil(lambda: strip.width() > size[0] - 40 and strip.height() > size[1] - 40)
    width, height = strip.width(), strip.height()
    rows, cols = colour_rows_and_cols(strip.grab().toImage(), COLOURS[IN_COLLECTIVE])
    under_axis = rows >= AXIS_H  # (the legend above the axis shows the colour too)
    rows, cols = rows[under_axis], cols[under_axis]
    # four lanes (two cards, measured and predicted) and the gaps between pairs share what the axis leaves
    lane = (height - AXIS_H - BOTTOM_PAD - 2 * PAIR_GAP) / 4
    last_lane_bottom = AXIS_H + 4 * lane + PAIR_GAP
    assert rows.max() == pytest.approx(last_lane_bottom - 1, abs=2)  # the collective is the lane's lower half
    assert height - rows.max() <= BOTTOM_PAD + PAIR_GAP + 3  # nothing empty under the lanes
    painted_rows = np.unique(rows)
    # four half-lanes, each that tall (a fractional edge may paint one more row at each end)
    assert len(painted_rows) == pytest.approx(4 * (lane / 2 - 1), abs=4 * 3)
    # the measured step's collective ends at the axis's end: the width the labels and the end's label leave
    assert cols.max() == pytest.approx(width - RIGHT_PAD, abs=2)
    # the predicted step's collective starts earliest, at its share of the axis
    first = LABEL_W + (width - LABEL_W - RIGHT_PAD) * PREDICTED_SHARE * COMPUTE_SHARE
    assert cols.min() == pytest.approx(first, abs=2)
