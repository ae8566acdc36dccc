"""Task counts and times split by step, against a plain Python sum over the tasks: through the kinds and straight
from the tasks (when the kinds are too many), a step ending where the next begins, tasks outside every step."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.advisor import step_split
from timelineview.analysis.advisor.step_split import split_by_step, step_column
from timelineview.analysis.advisor.tasks import StepWindows

# steps [100, 200), [200, 300) (touching), [400, 500); before 100, in [300, 400) and from 500 on: in none
STEPS = StepWindows(np.array([100, 200, 400]), np.array([200, 300, 500]))


def test_each_start_falls_in_the_step_it_lies_in():
    starts = np.array([0, 100, 199, 200, 299, 300, 399, 400, 499, 500, 900])
    assert step_column(starts, STEPS).tolist() == [3, 0, 0, 1, 1, 3, 3, 2, 2, 3, 3]


def reference(kind, start, dur, row_of_kind, n_rows):
    counts = [[0] * len(STEPS.starts) for _ in range(n_rows)]
    us = [[0.0] * len(STEPS.starts) for _ in range(n_rows)]
    for k, s, d in zip(kind.tolist(), start.tolist(), dur.tolist(), strict=True):
        row = int(row_of_kind[k])
        step = next((i for i, (a, b) in enumerate(zip(STEPS.starts, STEPS.ends, strict=True)) if a <= s < b), None)
        if row >= 0 and step is not None:
            counts[row][step] += 1
            us[row][step] += d / 1000.0
    return [[c, u] for c, u in zip(counts, us, strict=True)]


@pytest.mark.parametrize("through_kinds", [True, False])
def test_split_by_step_as_a_plain_sum(monkeypatch, through_kinds):
    if not through_kinds:  # as if the kinds were as many as the tasks
        monkeypatch.setattr(step_split, "MAX_CELLS_PER_TASK", -10)
    rng = np.random.default_rng(3)
    n, n_kinds = 5000, 40
    kind = rng.integers(0, n_kinds, n)
    start = rng.integers(0, 600, n)
    dur = rng.integers(1, 5000, n)
    some_in_none = np.where(rng.random(n_kinds) < 0.3, -1, rng.integers(0, 4, n_kinds))  # kinds in no row
    tables = [(rng.integers(0, 7, n_kinds), 7), (some_in_none, 4)]
    got = split_by_step(kind, n_kinds, start, dur, STEPS, tables)
    for (row_of_kind, n_rows), table in zip(tables, got, strict=True):
        want = reference(kind, start, dur, row_of_kind, n_rows)
        assert [c for c, _ in table] == [c for c, _ in want]
        assert np.allclose([u for _, u in table], [u for _, u in want], rtol=1e-12, atol=0)
