"""Long operators launched on fewer blocks than the chip has cores: a task of at least ``LONG_TASK_US`` whose
block dim is below the cores its core type can use leaves the other cores idle while it runs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.advisor.device_info import DeviceInfo
from timelineview.analysis.advisor.task_groups import group_rows, longest_of
from timelineview.analysis.advisor.tasks import Tasks
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.producers.cann_tasks import CORE_SPREAD_TASK_TYPES

# shorter tasks are bound by their launch, not by the cores they use
LONG_TASK_US = float(RULE_BY_NAME["low_block_dim"].thresholds["long_task_us"])
NS_PER_US = 1000
CORE_TYPES = CORE_SPREAD_TASK_TYPES  # tasks that spread over cores
TOP_TYPES = 3


@dataclass(frozen=True)
class LowBlockType:
    op_type: str
    core_type: str
    block_dim: int  # the most frequent block dim of its low tasks
    cores: int
    count: int
    total_ns: int


@dataclass(frozen=True)
class LowBlockDim:
    """The long tasks launched on fewer blocks than cores: count, time, all compute time, the op types carrying
    most of it and the longest tasks (positions in ``Tasks``)."""

    count: int
    total_ns: int
    compute_ns: int
    top: list[LowBlockType]
    longest: np.ndarray

    @property
    def share(self) -> float:
        return self.total_ns / self.compute_ns if self.compute_ns else 0.0


def low_block_dim(tasks: Tasks, device: DeviceInfo, longest: int) -> LowBlockDim | None:
    """None when the chip's core counts are not known or no task has a block dim."""
    if not device.ai_cores or not len(tasks) or not (tasks.block_dim > 0).any():
        return None
    kinds = tasks.kinds()  # the cores of each core type, judged once per distinct core type
    core_ids = np.unique(kinds.core_type)
    cores_of = np.zeros(len(core_ids), np.int64)
    for k, cid in enumerate(core_ids.tolist()):
        name = tasks.text(cid).strip().upper()
        cores_of[k] = device.cores_for(name) if name in CORE_TYPES else 0
    cores_of_kind = cores_of[np.searchsorted(core_ids, kinds.core_type)]
    low = (tasks.dur >= LONG_TASK_US * NS_PER_US) & (tasks.block_dim > 0)
    long_ones = np.flatnonzero(low)
    low[long_ones] = tasks.block_dim[long_ones] < cores_of_kind[kinds.of_task[long_ones]]
    hit = np.flatnonzero(low)
    top = []
    if len(hit):  # summed per kind of task, then per (op type, core type)
        kind_of_hit = kinds.of_task[hit]
        kind_counts = np.bincount(kind_of_hit, minlength=len(kinds))
        kind_ns = np.bincount(kind_of_hit, weights=tasks.dur[hit], minlength=len(kinds))
        used = np.flatnonzero(kind_counts)
        row, first = group_rows(kinds.op_type[used], kinds.core_type[used])
        totals = np.bincount(row, weights=kind_ns[used], minlength=len(first))
        counts = np.bincount(row, weights=kind_counts[used], minlength=len(first))
        row_of_kind = np.full(len(kinds), -1, np.int64)
        row_of_kind[used] = row
        row_of_hit = row_of_kind[kind_of_hit]
        for k in np.argsort(-totals, kind="stable")[:TOP_TYPES].tolist():
            times = np.bincount(tasks.block_dim[hit[row_of_hit == k]])  # block dims are below the cores: small
            f = int(used[first[k]])
            top.append(LowBlockType(tasks.text(int(kinds.op_type[f])), tasks.text(int(kinds.core_type[f])),
                                    int(np.argmax(times)), int(cores_of_kind[f]), int(counts[k]),
                                    int(totals[k])))
    order = hit[longest_of(tasks.dur[hit], longest)]
    return LowBlockDim(len(hit), int(tasks.dur[hit].sum()), int(tasks.dur.sum()), top, order)
