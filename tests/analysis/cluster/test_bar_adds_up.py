"""A comparison bar's parts add up to the step time, time no file captured included (metrics.md §3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.analysis.test_uncaptured import FILE_GAP_US, TASKS, write_iterations
from timelineview.analysis.cluster.comparison import BAR_PARTS, FREE_AFTER_INTERVAL, UNCAPTURED_AFTER_INTERVAL
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

SAMPLE = Path(__file__).resolve().parents[4] / "shared" / "samples" / "cann_per_iteration"


def test_a_gap_in_the_capture_is_a_part_of_its_own(tmp_path):
    n = 3
    write_iterations(tmp_path, n)
    [row] = AnalysisSession(load(tmp_path)).comparison.rows()
    file_span = TASKS[-1][1] + TASKS[-1][2] - TASKS[0][1]  # 500 µs: first task start to last task end
    busy = sum(dur for _, _, dur in TASKS)
    span = (n - 1) * FILE_GAP_US + file_span
    bar = row["bar"]
    assert [k for k, _ in BAR_PARTS] == list(bar)
    assert bar[UNCAPTURED_AFTER_INTERVAL] == pytest.approx((n - 1) * (FILE_GAP_US - file_span))
    assert bar[FREE_AFTER_INTERVAL] == pytest.approx(n * (file_span - busy))
    assert bar["compute_us"] == pytest.approx(n * busy)
    assert row["step_time_us"] == pytest.approx(span)
    assert sum(bar.values()) == pytest.approx(span)


def test_generated_per_iteration_steps_add_up(tmp_path):
    generate_cluster(tmp_path, cluster_specs(2, seed=1, steps=3, tasks_per_step=60), "msprof_per_iteration")
    session = AnalysisSession(load(tmp_path))
    cmp = session.comparison
    uncaptured = 0.0
    for step in cmp.step_numbers():
        for row in cmp.rows(step):
            assert sum(row["bar"].values()) == pytest.approx(row["step_time_us"], abs=1e-6), (step, row["card"])
            doc = next(d for d in session.card_documents if d["card"] == row["card"])
            [window] = [s for s in doc["steps"] if s["step"] == step]
            # the bar's part is the step's uncaptured time after fp: at most the whole step's
            assert 0.0 <= row["bar"][UNCAPTURED_AFTER_INTERVAL] <= window["uncaptured_us"] + 1e-9
            uncaptured += row["bar"][UNCAPTURED_AFTER_INTERVAL]
    assert uncaptured > 0  # the files leave holes: the test is about them


@pytest.mark.samples
@pytest.mark.skipif(not SAMPLE.is_dir(), reason="../shared/samples is absent")
def test_the_sample_bars_add_up_to_the_step_time_in_every_step():
    cmp = AnalysisSession(load(SAMPLE)).comparison
    for step in [None, *cmp.step_numbers()]:
        [row] = cmp.rows(step)
        assert sum(row["bar"].values()) == pytest.approx(row["step_time_us"], abs=1e-6), step
        assert row["bar"][UNCAPTURED_AFTER_INTERVAL] > 0, step  # ten files: every step has holes between them
