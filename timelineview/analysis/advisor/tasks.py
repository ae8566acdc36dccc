"""A card's compute tasks as the advisor's checks read them: one column per attribute, in slice order, and the
distinct descriptions they share (the kernel table's groups), so that a check sums per description once and
works on a few thousand descriptions instead of ten million tasks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from timelineview.analysis.advisor.task_groups import group_rows
from timelineview.analysis.kernels.table import KernelTable
from timelineview.model.store.trace_store import TraceStore


class StepWindows(NamedTuple):
    """A card's steps on its own clock (ns), ascending and apart."""

    starts: np.ndarray
    ends: np.ndarray


@dataclass(frozen=True)
class TaskKinds:
    """The distinct descriptions of a card's tasks: each task's kind, and per kind its ids into ``Tasks.strings``
    (op type, core type, input shapes). Kinds may be finer than these three (the kernel table also tells data
    types and formats apart); the checks only ever sum kinds into coarser rows."""

    of_task: np.ndarray  # int, the kind of each task
    op_type: np.ndarray  # int32 per kind
    core_type: np.ndarray
    shapes: np.ndarray

    def __len__(self) -> int:
        return len(self.op_type)


@dataclass(frozen=True)
class Tasks:
    """Per compute task: its slice, lane, start and duration (ns), and its description's ids into ``strings``
    (op type, core type, input shapes; -1: none), block dim (-1: unknown) and dynamic flag (None: not said).
    ``known_kinds``: the descriptions the tasks share when the caller has them (the kernel table's groups)."""

    strings: list[str]
    slices: np.ndarray
    lane: np.ndarray
    start: np.ndarray
    dur: np.ndarray
    op_type: np.ndarray
    core_type: np.ndarray
    shapes: np.ndarray
    block_dim: np.ndarray
    dynamic: np.ndarray | None
    known_kinds: TaskKinds | None = None

    def __len__(self) -> int:
        return len(self.slices)

    def text(self, i: int) -> str:
        return self.strings[i] if i >= 0 else ""

    @property
    def end(self) -> np.ndarray:
        return self.start + self.dur

    def kinds(self) -> TaskKinds:
        """The tasks' distinct descriptions: the ones given, else found from the per-task columns."""
        if self.known_kinds is not None:
            return self.known_kinds
        kind, first = group_rows(self.op_type, self.core_type, self.shapes)
        return TaskKinds(kind, self.op_type[first], self.core_type[first], self.shapes[first])


def card_tasks(store: TraceStore, table: KernelTable) -> Tasks:
    """The compute tasks of ``table`` with their slice columns; its groups are the tasks' kinds."""
    sl, g = store.slices, table.groups
    idx = table.slices
    group = table.group
    kinds = TaskKinds(group, g.op_type, g.core_type, g.shapes)
    return Tasks(g.strings, idx, sl.lane[idx].astype(np.int64), sl.start[idx].astype(np.int64),
                 sl.dur[idx].astype(np.int64), g.op_type[group], g.core_type[group], g.shapes[group],
                 table.block_dim, table.dynamic, kinds)
