"""The slow-operator verdict's consistency over steps (metrics.md §4): an op type slow on a card in one step alone
is not named, one slow in most of its steps is; and the per-step op-type table it reads (worked out by hand)."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.advisor.op_type_times import op_type_times
from timelineview.analysis.advisor.tasks import StepWindows, Tasks
from timelineview.analysis.findings.slow_operators import CardOpTimes, slow_operators

STEPS = 4
STEP_US = 10_000.0
WORK = {"MatMulV2": (20, 60.0), "Add": (50, 5.0), "Cast": (40, 4.0), "SoftmaxV2": (10, 14.0), "TransData": (30, 8.0)}
JITTER = np.array([[0.004, -0.003, 0.002, -0.001, 0.003], [-0.002, 0.001, -0.004, 0.003, 0.0],
                   [0.001, 0.002, 0.003, -0.002, -0.003], [-0.003, -0.001, 0.001, 0.002, 0.001],
                   [0.002, 0.003, -0.002, -0.004, 0.002], [0.0, -0.002, 0.004, 0.001, -0.001]])
SLOW_CARD, SLOW_OP = 3, "MatMulV2"


def cards(step_factors: list[float], split: bool = True) -> list[CardOpTimes]:
    """Six cards; ``SLOW_OP`` on ``SLOW_CARD`` runs ``step_factors[s]`` × its usual mean in step s."""
    out = []
    for c in range(len(JITTER)):
        rows, per_step = {}, {}
        for j, (op, (n, mean)) in enumerate(WORK.items()):
            factors = step_factors if (c, op) == (SLOW_CARD, SLOW_OP) else [1.0] * STEPS
            us = [n * mean * (1 + JITTER[c, j]) * f for f in factors]
            rows[op] = (n * STEPS, sum(us))
            per_step[op] = ([n] * STEPS, us)
        out.append(CardOpTimes(f"rank {c}", STEPS, rows, per_step if split else {}))
    return out


def test_one_slow_step_alone_does_not_name_the_operator():
    one_step = [3.0, 1.0, 1.0, 1.0]  # the run's mean is 1.5× the usual, all of it in step 0
    [whole_run] = slow_operators(cards(one_step, split=False), STEP_US)  # on the run's totals alone: named
    assert (whole_run.key, whole_run.card, whole_run.steps_above) == (SLOW_OP, f"rank {SLOW_CARD}", None)
    assert slow_operators(cards(one_step), STEP_US) == []


def test_an_operator_slow_in_most_steps_is_named_with_its_steps():
    most_steps = [1.0, 5 / 3, 5 / 3, 5 / 3]  # the same 1.5× over the run, in three steps of four
    [v] = slow_operators(cards(most_steps), STEP_US)
    assert (v.key, v.card) == (SLOW_OP, f"rank {SLOW_CARD}")
    assert (v.steps_above, v.steps_judged) == (3, 4)
    # half the steps is enough (2 of 4); the run's mean is then 1.25×, still far past the floors
    [v] = slow_operators(cards([1.0, 1.0, 1.5, 1.5]), STEP_US)
    assert (v.steps_above, v.steps_judged) == (2, 4)


def test_the_per_step_op_type_table():
    strings = ["MatMul", "Add", "AI_CORE", "2,3"]
    # (start µs, dur µs, op type id, shapes id); steps [0, 100) and [100, 200) µs; the task at 250 is in none
    rows = [(0, 10, 0, 3), (20, 30, 0, 3), (50, 5, 1, -1), (100, 12, 0, 3), (150, 7, 1, -1), (250, 40, 0, 3)]
    n = len(rows)
    tasks = Tasks(strings, np.arange(n), np.zeros(n, np.int64), np.array([r[0] * 1000 for r in rows]),
                  np.array([r[1] * 1000 for r in rows]), np.array([r[2] for r in rows], np.int32),
                  np.full(n, 2, np.int32), np.array([r[3] for r in rows], np.int32), np.full(n, 24, np.int32), None)
    got = op_type_times(tasks, 1, StepWindows(np.array([0, 100_000]), np.array([100_000, 200_000])))
    assert got["by_op_type"] == [["MatMul", 4, 92.0], ["Add", 2, 12.0]]
    assert got["by_op_type_steps"] == [[[2, 1], [40.0, 12.0]], [[1, 1], [5.0, 7.0]]]
    assert got["by_shape"] == [["MatMul", "2,3", 4, 92.0]]
    assert got["by_shape_steps"] == [[[2, 1], [40.0, 12.0]]]
    assert op_type_times(tasks, 1)["by_op_type_steps"] == []  # no steps: no split
