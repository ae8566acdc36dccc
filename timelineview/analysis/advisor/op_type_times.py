"""Each card's op types and (op type, input shapes) with their task counts and total times, and the longest tasks
of each op type: what the slow-operator verdict reads of a card
(:mod:`~timelineview.analysis.findings.slow_operators`).

The tasks are summed once per kind (the kernel table's groups); the op-type and shape rows are sums of kinds.
Durations are whole nanoseconds, so the float sums are exact and do not depend on the order of the additions."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.advisor.step_split import split_by_step
from timelineview.analysis.advisor.task_groups import group_rows, longest_per_group
from timelineview.analysis.advisor.tasks import StepWindows, Tasks
from timelineview.analysis.kernels.dense_ids import distinct_inverse

NS_PER_US = 1000.0
MAX_SHAPES = 200  # (op type, shapes) rows kept per card, by total time: the ones that can carry an excess


def op_type_times(tasks: Tasks, longest: int, steps: StepWindows | None = None) -> dict:
    """{"by_op_type": [[op type, count, total µs]], "by_shape": [[op type, shapes, count, total µs]] (the
    ``MAX_SHAPES`` longest, rows with shapes only), "longest": {op type: [task positions, longest first]}}; with
    ``steps``, also "by_op_type_steps" and "by_shape_steps": per row of those tables, [[tasks per step], [µs per
    step]] (a task in a step by its start)."""
    if not len(tasks):
        return {"by_op_type": [], "by_shape": [], "longest": {}, "by_op_type_steps": [], "by_shape_steps": []}
    kinds = tasks.kinds()
    n_kinds = len(kinds)
    kind_counts = np.bincount(kinds.of_task, minlength=n_kinds)
    kind_ns = np.bincount(kinds.of_task, weights=tasks.dur, minlength=n_kinds)
    used = np.flatnonzero(kind_counts)  # a table's groups may outnumber the tasks kept
    types, type_of_kind = distinct_inverse(kinds.op_type[used])
    counts = np.bincount(type_of_kind, weights=kind_counts[used], minlength=len(types))
    totals = np.bincount(type_of_kind, weights=kind_ns[used], minlength=len(types))
    by_type = [[tasks.text(t), int(c), float(v) / NS_PER_US]
               for t, c, v in zip(types.tolist(), counts.tolist(), totals.tolist(), strict=True)]
    type_of_every_kind = np.zeros(n_kinds, np.int64)
    type_of_every_kind[used] = type_of_kind
    row = type_of_every_kind[kinds.of_task]
    top = {by_type[g][0]: p.tolist() for g, p in enumerate(longest_per_group(row, tasks.dur, len(types), longest))}
    shaped = used[kinds.shapes[used] >= 0]
    by_shape = []
    shape_of_kind = np.full(n_kinds, -1, np.int64)
    if len(shaped):
        pair, first = group_rows(kinds.op_type[shaped], kinds.shapes[shaped])
        pair_counts = np.bincount(pair, weights=kind_counts[shaped], minlength=len(first))
        pair_ns = np.bincount(pair, weights=kind_ns[shaped], minlength=len(first))
        kept = np.argsort(-pair_ns, kind="stable")[:MAX_SHAPES]
        row_of_pair = np.full(len(first), -1, np.int64)
        row_of_pair[kept] = np.arange(len(kept))
        shape_of_kind[shaped] = row_of_pair[pair]
        for k in kept.tolist():
            f = int(shaped[first[k]])
            by_shape.append([tasks.text(int(kinds.op_type[f])), tasks.text(int(kinds.shapes[f])),
                             int(pair_counts[k]), float(pair_ns[k]) / NS_PER_US])
    out = {"by_op_type": by_type, "by_shape": by_shape, "longest": top, "by_op_type_steps": [], "by_shape_steps": []}
    if steps is not None and len(steps.starts):
        out["by_op_type_steps"], out["by_shape_steps"] = split_by_step(
            kinds.of_task, n_kinds, tasks.start, tasks.dur, steps,
            [(type_of_every_kind, len(types)), (shape_of_kind, len(by_shape))])
    return out
