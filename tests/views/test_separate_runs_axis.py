"""A folder of two Kineto runs captured a year apart (metrics.md §4): the window draws each run from its own
start, so the axis spans their own lengths (not a year), and the status line says why."""

from __future__ import annotations

from tests.analysis.cluster.test_separate_runs import write_year_apart
from tests.views.main_window_fixture import open_and_wait


def test_the_axis_spans_the_runs_own_lengths(qtbot, window, tmp_path):
    lengths_us = write_year_apart(tmp_path)
    open_and_wait(qtbot, window, tmp_path)
    timeline = window.timeline
    assert len(timeline.cards) == 2
    assert timeline.viewport.t_max == max(lengths_us) * 1000  # both from one start: the longer run's length
    starts = {c.span[0] - c.offset_ns for c in timeline.cards}
    assert len(starts) == 1
    assert "rank 1: captured more than 1 h away from rank 0's run" in window.statusBar().currentMessage()
