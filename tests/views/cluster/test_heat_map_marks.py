"""The heat map frames in red only the cells a verdict singles out: the steps of a card flagged slow on the
metric shown; a healthy cluster and a metric that flags nobody (step time) show no frame."""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui

from timelineview.analysis.cluster.comparison import CardComparison, ClusterComparison
from timelineview.views.cluster.heat_map import MARK_COLOUR

CARDS, STEPS, SLOW = 16, 6, 5


def _comparison(slow_factor: float, seed: int = 0) -> ClusterComparison:
    """Lockstep cards: a step time shared by all (with its own step-to-step noise), compute 60 % of it with
    1 % noise per card and step, card SLOW computing ``slow_factor`` × as long."""
    rng = np.random.default_rng(seed)
    step_us = 10_000.0 * (1 + 0.2 * rng.random(STEPS))
    cards = []
    for r in range(CARDS):
        rows = []
        for s in range(STEPS):
            compute = 6_000.0 * (step_us[s] / 10_000.0) * (1 + 0.01 * rng.standard_normal())
            compute *= slow_factor if r == SLOW else 1.0
            rows.append({"step": s + 1, "span_us": step_us[s], "step_time_us": step_us[s], "compute_us": compute,
                         "step_interval_us": 500.0 * (1 + 0.02 * rng.standard_normal())})
        cards.append(CardComparison(r, f"rank {r}", r, steps=rows))
    return ClusterComparison(cards)


def _red_rows(canvas) -> set[int]:
    """The matrix rows holding a pixel of the frame colour, read from the drawn widget."""
    image = canvas.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB888)
    r = canvas.plot_rect()
    rows = canvas.matrix.values.shape[0]
    found = set()
    for y in range(int(r.top()), int(r.bottom())):
        for x in range(int(r.left()), int(r.right()), 3):
            if QtGui.QColor(image.pixel(x, y)) == MARK_COLOUR:
                found.add(min(int((y - r.top()) / r.height() * rows), rows - 1))
    return found


def test_the_slow_cards_steps_are_framed_and_nothing_else(heat, qtbot):
    comparison = _comparison(1.3)
    heat.set_comparison(comparison)
    heat.set_metric("compute_us")
    matrix = heat.canvas.matrix
    assert [c["card"] for c in comparison.slow() if c["metric"] == "compute_us"] == [f"rank {SLOW}"]
    assert np.nonzero(matrix.marked)[0].tolist() == [SLOW] * STEPS  # 1.3× in every step: each step above
    qtbot.wait(50)
    # the frame's line lies on the cell's edge: the row of the slow card or, at the edge, a neighbour's pixel
    assert _red_rows(heat.canvas) <= {SLOW - 1, SLOW, SLOW + 1} and SLOW in _red_rows(heat.canvas)
    assert f"{STEPS} framed in red" in heat.note.text()
    heat.set_metric("step_time_us")  # step time flags nobody: no frame
    assert heat.canvas.matrix.marked is None and _red_rows(heat.canvas) == set()
    assert "framed" not in heat.note.text()


def test_a_healthy_cluster_has_no_frame(heat):
    heat.set_comparison(_comparison(1.0))
    heat.set_metric("compute_us")
    assert heat.canvas.matrix.marked is None and _red_rows(heat.canvas) == set()
