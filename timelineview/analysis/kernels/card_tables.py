"""The tables by op type and by shape of one card (metrics.md §7.1), made together from one pass over its
tasks' durations: the shared input both declared results draw on (``declared_results``), and the rows
``kernels_document`` reads through them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.kernels.grouping import KernelRows, group_stats, kernel_rows
from timelineview.analysis.kernels.table import KernelTable
from timelineview.model.store.trace_store import TraceStore


@dataclass(frozen=True)
class CardKernelTables:
    """The rows by (op type, core type) and by (op type, input shapes) of one card's compute tasks."""

    by_op_type: KernelRows
    by_shape: KernelRows


def card_kernel_tables(store: TraceStore, table: KernelTable) -> CardKernelTables:
    """Both tables of ``table``'s tasks, their per-group statistics taken once. The tasks' durations are let
    go before returning: ten million tasks hold 80 MB of them."""
    durations = store.slices.dur[table.slices].astype(np.int64, copy=False)  # the index made a copy already
    stats = group_stats(table, durations)
    return CardKernelTables(kernel_rows(table, durations, False, stats), kernel_rows(table, durations, True, stats))
