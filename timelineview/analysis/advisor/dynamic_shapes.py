"""Operators compiled for dynamic shapes: the tasks whose ``OP State`` is dynamic (``kernel_details.csv``), per op
type with the distinct input shapes it ran with (each new shape of a dynamic operator may be compiled again)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.advisor.task_groups import group_rows, longest_of
from timelineview.analysis.advisor.tasks import Tasks

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
    if len(dyn):
        group, first = group_rows(tasks.op_type[dyn])
        totals = np.bincount(group, weights=tasks.dur[dyn], minlength=len(first))
        counts = np.bincount(group, minlength=len(first))
        pair, pair_first = group_rows(group, tasks.shapes[dyn])  # distinct (op type, shapes) pairs
        shapes = np.bincount(group[pair_first], minlength=len(first))
        for k in np.argsort(-totals, kind="stable")[:TOP_TYPES].tolist():
            top.append(DynamicType(tasks.text(int(tasks.op_type[dyn[first[k]]])), int(counts[k]), int(totals[k]),
                                   int(shapes[k])))
    order = dyn[longest_of(tasks.dur[dyn], longest)]
    return DynamicShapes(len(tasks), len(dyn), int(tasks.dur[dyn].sum()), int(tasks.dur.sum()), top, order)
