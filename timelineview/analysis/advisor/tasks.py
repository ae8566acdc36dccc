"""A card's compute tasks as the advisor's checks read them: one column per attribute, in slice order."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.kernels.table import KernelTable
from timelineview.model.store.trace_store import TraceStore


@dataclass(frozen=True)
class Tasks:
    """Per compute task: its slice, lane, start and duration (ns), and its description's ids into ``strings``
    (op type, core type, input shapes; -1: none), block dim (-1: unknown) and dynamic flag (None: not said)."""

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

    def __len__(self) -> int:
        return len(self.slices)

    def text(self, i: int) -> str:
        return self.strings[i] if i >= 0 else ""

    @property
    def end(self) -> np.ndarray:
        return self.start + self.dur


def card_tasks(store: TraceStore, table: KernelTable) -> Tasks:
    """The compute tasks of ``table`` with their slice columns."""
    sl, g = store.slices, table.groups
    idx = table.slices
    group = table.group
    return Tasks(g.strings, idx, sl.lane[idx].astype(np.int64), sl.start[idx].astype(np.int64),
                 sl.dur[idx].astype(np.int64), g.op_type[group], g.core_type[group], g.shapes[group],
                 table.block_dim, table.dynamic)
