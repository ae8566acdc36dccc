"""Each card's op types and (op type, input shapes) with their task counts and total times, and the longest tasks
of each op type: what the slow-operator verdict reads of a card
(:mod:`~timelineview.analysis.findings.slow_operators`)."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.advisor.task_groups import group_rows, longest_per_group
from timelineview.analysis.advisor.tasks import Tasks

NS_PER_US = 1000.0
MAX_SHAPES = 200  # (op type, shapes) rows kept per card, by total time: the ones that can carry an excess


def _grouped(dur: np.ndarray, *columns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(each task's group, the first task of each group, counts, totals ns)."""
    group, first = group_rows(*columns)
    return group, first, np.bincount(group, minlength=len(first)), np.bincount(group, weights=dur,
                                                                              minlength=len(first))


def op_type_times(tasks: Tasks, longest: int) -> dict:
    """{"by_op_type": [[op type, count, total µs]], "by_shape": [[op type, shapes, count, total µs]] (the
    ``MAX_SHAPES`` longest, rows with shapes only), "longest": {op type: [task positions, longest first]}}."""
    if not len(tasks):
        return {"by_op_type": [], "by_shape": [], "longest": {}}
    row, first, counts, totals = _grouped(tasks.dur, tasks.op_type)
    by_type = [[tasks.text(int(tasks.op_type[f])), int(c), float(v) / NS_PER_US]
               for f, c, v in zip(first.tolist(), counts.tolist(), totals.tolist(), strict=True)]
    top = {by_type[g][0]: p.tolist() for g, p in enumerate(longest_per_group(row, tasks.dur, len(first), longest))}
    shaped = np.flatnonzero(tasks.shapes >= 0)
    by_shape = []
    if len(shaped):
        _, first, counts, totals = _grouped(tasks.dur[shaped], tasks.op_type[shaped], tasks.shapes[shaped])
        for k in np.argsort(-totals, kind="stable")[:MAX_SHAPES].tolist():
            f = int(shaped[first[k]])
            by_shape.append([tasks.text(int(tasks.op_type[f])), tasks.text(int(tasks.shapes[f])), int(counts[k]),
                             float(totals[k]) / NS_PER_US])
    return {"by_op_type": by_type, "by_shape": by_shape, "longest": top}
