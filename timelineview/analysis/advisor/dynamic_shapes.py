"""Operators compiled for dynamic shapes: the tasks whose ``OP State`` is dynamic (``kernel_details.csv``), per op
type with the distinct input shapes it ran with (each new shape of a dynamic operator may be compiled again)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.advisor.task_groups import group_rows, longest_of
from timelineview.analysis.advisor.tasks import Tasks
from timelineview.analysis.kernels.dense_ids import distinct_inverse

TOP_TYPES = 3  # op types the finding names


@dataclass(frozen=True)
class DynamicType:
    op_type: str
    count: int
    total_ns: int
    shapes: int  # distinct input shapes


@dataclass(frozen=True)
class DynamicShapes:
    """The dynamic tasks of a card: how many, their time against all compute, the op types that carry most of
    it and the longest tasks (positions in ``Tasks``)."""

    tasks: int
    dynamic_tasks: int
    dynamic_ns: int
    compute_ns: int
    top: list[DynamicType]
    longest: np.ndarray

    @property
    def share(self) -> float:
        return self.dynamic_ns / self.compute_ns if self.compute_ns else 0.0


def dynamic_shapes(tasks: Tasks, longest: int) -> DynamicShapes | None:
    """None when the capture does not say which tasks are dynamic (a database, a trace without the table)."""
    if tasks.dynamic is None:
        return None
    dyn = np.flatnonzero(tasks.dynamic)
    top = []
    if len(dyn):  # summed per kind of task, then per op type
        kinds = tasks.kinds()
        kind_counts = np.bincount(kinds.of_task[dyn], minlength=len(kinds))
        kind_ns = np.bincount(kinds.of_task[dyn], weights=tasks.dur[dyn], minlength=len(kinds))
        used = np.flatnonzero(kind_counts)
        types, type_of = distinct_inverse(kinds.op_type[used])
        totals = np.bincount(type_of, weights=kind_ns[used], minlength=len(types))
        counts = np.bincount(type_of, weights=kind_counts[used], minlength=len(types))
        _, pair_first = group_rows(type_of, kinds.shapes[used])  # distinct (op type, shapes) pairs
        shapes = np.bincount(type_of[pair_first], minlength=len(types))
        for k in np.argsort(-totals, kind="stable")[:TOP_TYPES].tolist():
            top.append(DynamicType(tasks.text(int(types[k])), int(counts[k]), int(totals[k]), int(shapes[k])))
    order = dyn[longest_of(tasks.dur[dyn], longest)]
    return DynamicShapes(len(tasks), len(dyn), int(tasks.dur[dyn].sum()), int(tasks.dur.sum()), top, order)
