"""The what-if strip after a window resize: its lanes share the strip's whole height and its time axis its
width, so a taller or wider window draws larger lanes instead of leaving space empty under or beside them;
a narrow one wraps the legend instead of cutting it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtGui, QtWidgets

from timelineview.analysis.critical_path.step_lanes import COMPUTE, DATA_WAIT, IN_COLLECTIVE, StepLanes
from timelineview.views.analysis_tabs.what_if_strip import (
    AXIS_H,
    COLOURS,
    HEADER_H,
    LABEL_W,
    LEGEND_PAD,
    PAIR_GAP,
    RIGHT_PAD,
    WhatIfStrip,
)

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
    axis = strip.axis_h()  # under the legend's lines (one at these widths, more when narrow: the test below)
    assert axis == AXIS_H
    under_axis = rows >= axis  # (the legend above the axis shows the colour too)
    rows, cols = rows[under_axis], cols[under_axis]
    # four lanes (two cards, measured and predicted) and the gaps between pairs share what the axis leaves
    lane = (height - axis - BOTTOM_PAD - 2 * PAIR_GAP) / 4
    last_lane_bottom = axis + 4 * lane + PAIR_GAP
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


LONG_CHANGE = "FlashAttentionScoreGrad 2x faster everywhere"


@pytest.mark.parametrize(("width", "lines"), [(520, 3), (880, 2), (1500, 1)])
def test_the_legend_wraps_instead_of_running_off_the_strip(qtbot, width, lines):
    """At the width of a 1000 px window the legend (both step ends with the change's words, then the four
    colours) ran past the strip's right edge: its last words were cut. It wraps onto as many lines as the
    width needs, and the axis and lanes start under its last line."""
    strip = WhatIfStrip()
    qtbot.addWidget(strip)
    strip.resize(width, 400)
    strip.set_lanes(["rank 0", "rank 1"], lanes(STEP_NS), lanes(STEP_NS * PREDICTED_SHARE), LONG_CHANGE, [])
    fm = QtGui.QFontMetrics(strip.font())
    words = [f"measured {STEP_NS / 1e6:.3f} ms", f"predicted {STEP_NS * PREDICTED_SHARE / 1e6:.3f} ms if {LONG_CHANGE}",
             "compute", "communicating", "waits to launch", "data wait"]
    # the lines a greedy fill of the width gives (swatch + gap + words, 14 px between entries)
    need = [(3 if i < 2 else 10) + 4 + fm.horizontalAdvance(w) for i, w in enumerate(words)]
    x, want_lines = LEGEND_PAD, 1
    for w in need:
        if x > LEGEND_PAD and x + w > width - LEGEND_PAD:
            x, want_lines = LEGEND_PAD, want_lines + 1
        x += w + 14
    assert want_lines == lines  # (the widths are chosen so: a check of the case, not of the strip)
    items = strip.legend()
    assert [item.text for item in items] == words
    assert all(item.box.right() <= width - LEGEND_PAD for item in items)
    assert len({item.box.top() for item in items}) == lines
    assert strip.axis_h() == AXIS_H + (lines - 1) * HEADER_H
    assert strip.lane_top(0) == strip.axis_h()
    # painted: the last colour's swatch is inside the strip, on the legend's last line
    rows, cols = colour_rows_and_cols(strip.grab().toImage(), COLOURS[DATA_WAIT])
    above = rows < strip.axis_h()
    assert above.any() and cols[above].max() < width and rows[above].min() >= (lines - 1) * HEADER_H


def test_the_path_table_names_a_pipelines_sends_and_receives(qtbot):
    """A 1F1B step's path runs through sends and receives; the table called them collectives."""
    from timelineview.views.analysis_tabs.critical_path_view import CriticalPathView

    view = CriticalPathView()
    qtbot.addWidget(view)
    names = ["hcom_send__272_0_1", "hcom_receive__272_1_1", "hcom_allReduce__271_2_1", ""]
    kinds = ["collective", "collective", "collective", "compute"]
    segments = [{"card": "rank 0", "kind": k, "name": n, "start_ns": 1000 * i, "dur_us": 1.0, "share": 0.25}
                for i, (k, n) in enumerate(zip(kinds, names, strict=True))]
    step = {"step": 1, "step_us": 4.0, "cards": ["rank 0"], "share_by_card": {"rank 0": 1.0},
            "share_by_op_type": {}, "segments": segments}
    view.set_document({"critical_path": [step], "what_if": []})
    shown = [view.path.topLevelItem(i).text(1) for i in range(view.path.topLevelItemCount())]
    assert shown == ["send", "receive", "collective", "compute"]
