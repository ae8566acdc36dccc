"""The rows the Operators tab shows by op type and by shape: every row, with the tasks it gathers.

The same statistics as the ``kernels`` document (``document.kernel_records``), FLOPs in GFLOPs for reading,
and per row the slice indices of its tasks so that a double-click can highlight them.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.kernels.document import kernel_records
from timelineview.analysis.kernels.grouping import kernel_rows
from timelineview.analysis.kernels.peaks.chip_peaks import chip_peak
from timelineview.analysis.kernels.table import KernelTable
from timelineview.model.store.trace_store import TraceStore

SLICES = "slices"  # the row key holding the slice indices of its tasks
FLOPS_PER_GFLOP = 1e9


def kernel_view_rows(store: TraceStore, table: KernelTable, by_shape: bool) -> list[dict]:
    """Every row by (op type, core type), or by (op type, input shapes), with ``gflops`` and ``slices``."""
    durations = store.slices.dur[table.slices].astype(np.int64)
    rows = kernel_rows(table, durations, by_shape)
    records = kernel_records(rows, chip_peak(table.device), by_shape, None)
    row_of_group = np.zeros(len(table.groups), np.int64)
    for k, groups in enumerate(rows.groups_of_row):
        row_of_group[groups] = k
    task_row = row_of_group[table.group]
    order = np.argsort(task_row, kind="stable")  # one sort: each row's tasks are a run of it
    bounds = np.searchsorted(task_row[order], np.arange(len(records) + 1))
    for k, record in enumerate(records):
        flops = record["flops"]
        record["gflops"] = None if flops is None else flops / FLOPS_PER_GFLOP
        record[SLICES] = table.slices[order[bounds[k]:bounds[k + 1]]]
    return records
