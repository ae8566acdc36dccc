"""A card's :class:`KernelTable`: its compute tasks described by the best source its capture has.

Sources in order: the database's ``COMPUTE_TASK_INFO`` (a database card), ``kernel_details.csv`` beside a
JSON trace, the host operator that launched each task (its input shapes, through the trace's flows; on a GPU
trace its name is the op type too), and each task's name (the op type, read by the producer's rule). A task
that the chosen source does not describe falls back to its name, so every compute task has an op type;
``KernelTable.described`` says how many did not.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from timelineview.analysis.classify import Classification
from timelineview.analysis.kernels.dense_ids import turn_distinct_in_place
from timelineview.analysis.kernels.flops_of_shapes.formulas import task_flops
from timelineview.analysis.kernels.op_type_names import op_type_of_name
from timelineview.analysis.kernels.table import NO_VALUE, SOURCE_NAME, Interner, KernelGroups, KernelTable
from timelineview.analysis.kernels.task_sources.database_source import database_descriptions
from timelineview.analysis.kernels.task_sources.host_flow_source import host_flow_descriptions
from timelineview.analysis.kernels.task_sources.kernel_details_source import kernel_details_descriptions
from timelineview.analysis.kernels.task_sources.source_result import SourceResult
from timelineview.analysis.operators import UNTYPED
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import device_name, kernel_op_type_rule, op_type_from_launching_operator


def card_kernels(store: TraceStore, classification: Classification) -> KernelTable:
    """The compute tasks of ``store`` (metrics.md §1) with their op type, shapes, data types, formats, block
    dim and PMU figures (metrics.md §7.1)."""
    compute = np.flatnonzero(classification.compute)
    interner = Interner()
    found = None  # the names' empty result is made only when no source describes a task: not held meanwhile
    host_flows = partial(host_flow_descriptions,
                         op_type_from_operator=op_type_from_launching_operator(classification.mode))
    for source in (database_descriptions, kernel_details_descriptions, host_flows):
        result = source(store, compute, interner)
        if result is not None and result.described.any():  # level0 databases write only N/A
            found = result
            break
        del result
    if found is None:
        found = SourceResult.nothing_found(SOURCE_NAME, interner, len(compute))
    described = int(np.count_nonzero(found.described))
    _fill_from_names(store, compute, found, kernel_op_type_rule(classification.mode) or op_type_of_name)
    group, first = found.found.grouped()
    d = found.found
    texts = interner.strings

    def text(ids: np.ndarray, k: int) -> str:
        i = int(ids[k])
        return texts[i] if i >= 0 else ""

    flops = np.array([task_flops(text(d.op_type, k), text(d.shapes, k), text(d.formats, k), text(d.out_shapes, k))
                      for k in first.tolist()], dtype=np.float64)
    groups = KernelGroups(strings=texts, op_type=d.op_type[first], core_type=d.core_type[first],
                          shapes=d.shapes[first], dtypes=d.dtypes[first], formats=d.formats[first],
                          out_shapes=d.out_shapes[first], flops=flops)
    return KernelTable(source=found.source, slices=compute.astype(np.int64, copy=False), group=group,
                       block_dim=found.block_dim.astype(np.int32, copy=False), groups=groups,
                       described=described, pmu=found.pmu,
                       device=found.device or device_name(store, classification.mode), dynamic=found.dynamic)


def _fill_from_names(store: TraceStore, compute: np.ndarray, found: SourceResult,
                     op_type_of: Callable[[str], str]) -> None:
    """Op type from the name (read by ``op_type_of``, the producer's rule) and core type from the task's
    ``Task Type`` wherever the source gave none. Each distinct name and task type is read once, in place over
    the tasks' ids (no per-task int64 index when every task misses one: the database gives no core type; that
    column is then replaced, not written: it may be a read-only view)."""
    sl, d = store.slices, found.found
    for target, column, of_text in (("op_type", sl.name, op_type_of), ("core_type", sl.task_type, _core_type)):
        ids = getattr(d, target)
        missing = ids == NO_VALUE
        if not missing.any():
            continue
        every = bool(missing.all())
        values = column[compute] if every else column[compute[missing]]
        values = values.astype(np.int32, copy=False)
        turn_distinct_in_place(values, lambda u, of_text=of_text: found.interner.id(
            of_text(store.strings[u] if u >= 0 else "")))
        if every:
            setattr(d, target, values)  # a fresh array (an index of the column), turned above
        else:
            ids[missing] = values


def _core_type(task_type: str) -> str:
    """A task's unit as ``op_statistic.csv`` spells its Core Type; compute tasks without one are ``Other``."""
    return task_type if task_type.strip() and task_type.strip().lower() != UNTYPED.lower() else UNTYPED
